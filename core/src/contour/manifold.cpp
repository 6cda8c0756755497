// The joined-face cell cases the manifold mode reads (declared in contour_cases.hpp).
#include <vector>

#include "distgrid/detail/contour_cases.hpp"

namespace distgrid::detail {

const CellCase& cell_case_joined(unsigned pattern, unsigned join_faces) {
  static const std::vector<CellCase> table = [] {
    std::vector<CellCase> cases(256 * 64);
    for (unsigned p = 0; p < 256; ++p)
      for (unsigned mask = 0; mask < 64; ++mask)
        if ((mask & ~static_cast<unsigned>(kAmbiguousFaces[p])) == 0) cases[p * 64 + mask] = make_cell_case(p, mask);
    return cases;
  }();
  return table[pattern * 64 + (join_faces & kAmbiguousFaces[pattern])];
}

}  // namespace distgrid::detail
