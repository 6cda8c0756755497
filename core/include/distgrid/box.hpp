#pragma once
// Axis-aligned world box [lo, hi]; an infinite bound is +-infinity.
#include <array>
#include <cmath>
#include <cstddef>

namespace distgrid {

struct Box {
  std::array<double, 3> lo{0, 0, 0};
  std::array<double, 3> hi{0, 0, 0};

  bool finite() const noexcept {
    for (std::size_t a = 0; a < 3; ++a)
      if (!std::isfinite(lo[a]) || !std::isfinite(hi[a])) return false;
    return true;
  }
  bool empty() const noexcept {
    for (std::size_t a = 0; a < 3; ++a)
      if (!(lo[a] <= hi[a])) return true;
    return false;
  }
  friend bool operator==(const Box&, const Box&) = default;
};

}  // namespace distgrid
