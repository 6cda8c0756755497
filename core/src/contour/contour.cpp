// The contour entry points (contour.hpp): mesher names, the scratch arrays and the
// brick-wise mesher's run (brick_mesher.hpp).
#include "distgrid/contour.hpp"

#include <memory>
#include <string>
#include <utility>

#include "brick_mesher.hpp"
#include "distgrid/error.hpp"

namespace distgrid {

Mesher mesher_from_name(std::string_view name) {
  if (name == "surface-nets") return Mesher::surface_nets;
  if (name == "marching-cubes") return Mesher::marching_cubes;
  throw Error(ErrorCode::badarg,
              "unknown mesher '" + std::string(name) + "' (known: surface-nets, marching-cubes)");
}

std::string_view mesher_name(Mesher mesher) noexcept {
  return mesher == Mesher::surface_nets ? "surface-nets" : "marching-cubes";
}

ContourScratch::ContourScratch() = default;
ContourScratch::~ContourScratch() = default;
ContourScratch::ContourScratch(ContourScratch&&) noexcept = default;
ContourScratch& ContourScratch::operator=(ContourScratch&&) noexcept = default;

ContourScratch::Arrays& ContourScratch::arrays() {
  if (!arrays_) arrays_ = std::make_unique<Arrays>();
  return *arrays_;
}

template <class S>
ContourResult contour(const Grid<S>& grid, const ContourOptions& options) {
  ContourScratch scratch;
  return detail::meshing::BrickMesher<S>(grid, options, ContourResult{}, scratch).run();
}

template <class S>
void contour(const Grid<S>& grid, const ContourOptions& options, ContourResult& result) {
  ContourScratch scratch;
  contour(grid, options, result, scratch);
}

template <class S>
void contour(const Grid<S>& grid, const ContourOptions& options, ContourResult& result, ContourScratch& scratch) {
  result = detail::meshing::BrickMesher<S>(grid, options, std::move(result), scratch).run();
}

template ContourResult contour<float>(const Grid<float>&, const ContourOptions&);
template ContourResult contour<double>(const Grid<double>&, const ContourOptions&);
template ContourResult contour<Half>(const Grid<Half>&, const ContourOptions&);
template ContourResult contour<Q16>(const Grid<Q16>&, const ContourOptions&);
template ContourResult contour<Q8>(const Grid<Q8>&, const ContourOptions&);
template void contour<float>(const Grid<float>&, const ContourOptions&, ContourResult&);
template void contour<double>(const Grid<double>&, const ContourOptions&, ContourResult&);
template void contour<Half>(const Grid<Half>&, const ContourOptions&, ContourResult&);
template void contour<Q16>(const Grid<Q16>&, const ContourOptions&, ContourResult&);
template void contour<Q8>(const Grid<Q8>&, const ContourOptions&, ContourResult&);
template void contour<float>(const Grid<float>&, const ContourOptions&, ContourResult&, ContourScratch&);
template void contour<double>(const Grid<double>&, const ContourOptions&, ContourResult&, ContourScratch&);
template void contour<Half>(const Grid<Half>&, const ContourOptions&, ContourResult&, ContourScratch&);
template void contour<Q16>(const Grid<Q16>&, const ContourOptions&, ContourResult&, ContourScratch&);
template void contour<Q8>(const Grid<Q8>&, const ContourOptions&, ContourResult&, ContourScratch&);

}  // namespace distgrid
