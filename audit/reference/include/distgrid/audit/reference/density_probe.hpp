#pragma once
// Reading a density map's number through the compiled formula exactly (how the
// references see what core computes, not a reference itself). A Field keeps its
// number fields private, so the map is wrapped as the
// thickness of a centred shell around the plane {p_axis = 0}: on that plane the
// plane's value is exactly 0 (p . e_axis - 0 with the other products 0), so
// the formula returns exactly -t/2 and t = -2 f with no rounding. Points are
// therefore drawn on the planes x = 0, y = 0 and z = 0.
#include <array>
#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/audit/reference/density_map.hpp"
#include "distgrid/field.hpp"
#include "distgrid/field_json.hpp"

namespace distgrid::audit::reference {

/// The spec of the probe around the plane p[axis] = 0 whose thickness is the map.
inline nlohmann::json density_probe_spec(const reference::DensityMapSpec& map, const std::vector<double>& values,
                                         std::size_t axis) {
  nlohmann::json normal = nlohmann::json::array({0.0, 0.0, 0.0});
  normal[axis] = 1.0;
  return {{"type", "shell"},
          {"side", "center"},
          {"thickness",
           {{"type", "density"},
            {"cells", {map.cells[0], map.cells[1], map.cells[2]}},
            {"box", {map.lo[0], map.lo[1], map.lo[2], map.hi[0], map.hi[1], map.hi[2]}},
            {"data", values},
            {"v0", map.v0},
            {"v1", map.v1}}},
          {"shape", {{"type", "halfspace"}, {"normal", normal}, {"offset", 0.0}}}};
}

/// The map's number at a point of the probe's plane, as the core computed it.
template <class S>
double probe_number(const Field<S>& probe, const std::array<double, 3>& p) {
  return -2 * probe.template eval<double>(p[0], p[1], p[2]);
}

}  // namespace distgrid::audit::reference
