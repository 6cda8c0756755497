#include "distgrid/audit/reference/side.hpp"

namespace distgrid::audit::reference {

std::string_view side_text(Side s) noexcept {
  switch (s) {
    case Side::outside: return "outside";
    case Side::inside: return "inside";
    case Side::surface: return "surface";
  }
  return "outside";
}

}  // namespace distgrid::audit::reference
