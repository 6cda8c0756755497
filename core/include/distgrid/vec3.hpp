#pragma once
// A point or direction in world coordinates.
#include <array>

namespace distgrid {

using Vec3 = std::array<double, 3>;

}  // namespace distgrid
