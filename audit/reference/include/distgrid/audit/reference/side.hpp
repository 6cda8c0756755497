#pragma once
// Where a point lies with respect to a solid: the one answer type of the mesh
// reference (ray parity) and the formula reference (membership tests).
#include <string_view>

namespace distgrid::audit::reference {

enum class Side { outside, inside, surface };

/// "outside", "inside", "surface".
std::string_view side_text(Side s) noexcept;

/// The side a signed value says (negative inside, zero on the surface): how a
/// calculation reads the side off a distance core computed.
constexpr Side side_of_sign(double value) noexcept {
  return value < 0 ? Side::inside : (value > 0 ? Side::outside : Side::surface);
}

}  // namespace distgrid::audit::reference
