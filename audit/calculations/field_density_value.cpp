#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "calculations.hpp"
#include "distgrid/bake.hpp"
#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/audit/reference/density_map.hpp"
#include "distgrid/audit/reference/density_probe.hpp"
#include "distgrid/error.hpp"
#include "distgrid/field_json.hpp"
#include "part_inputs.hpp"
#include "stratified.hpp"

namespace distgrid::audit::calcs {

namespace {
struct FieldDensityValue;  // the measurement, below
}  // namespace

Calculation field_density_value() {
  return {
      .id = "field.density_value",
      .title = "Number that follows a density map",
      .declared = PrecisionClass::bits32_in_part,
      .sources = {{"core/include/distgrid/field_kernels.hpp", "density_value"},
                  {"core/include/distgrid/field_kernels.hpp", "cell_coord"}},
      .formula = "v = v0 + (v1 - v0) * d, d trilinear between cell centres of the map's S values, the edge value held "
                 "outside, in double",
      .inputs = "points on the planes x, y, z = 0 (where the probe reads the number exactly): uniform over the map's "
                "box, on cell centres, on cell faces, and outside the box; and through maps one cell thick along x "
                "and z, or along y",
      .implementation = "Field<S>::eval<double> of a probe formula whose value is -v/2 exactly",
      .reference = "the map's definition in high precision with the cell width unrounded, from the values as stored "
                   "and from the given values",
      .errors = "error: the core's number vs high precision from the given values; arithmetic: vs high precision from "
                "the stored values; storage: stored vs given values through the interpolation. In h and in ulps of "
                "the reference with its magnitude raised to max(|v0|, |v1|). No method error (null).",
      .run = &run_stratified<FieldDensityValue>,
      .replay = &replay_stratified<FieldDensityValue>,
  };
}

namespace {

constexpr std::string_view kId = "field.density_value";

/// The maps: a full one, and two a single cell thick along some axes (x and z;
/// y), which hold their value across those axes.
enum MapIndex : std::size_t { kFullMap = 0, kThinMapXZ = 1, kThinMapY = 2, kMapCount = 3 };
constexpr const char* kMapNames[kMapCount] = {"map", "thin_map_xz", "thin_map_y"};

reference::DensityMapSpec map_spec(std::size_t which) {
  constexpr std::array<std::int64_t, 3> kCells[kMapCount] = {{5, 4, 3}, {1, 4, 1}, {3, 1, 4}};
  reference::DensityMapSpec map;
  map.cells = kCells[which];
  map.lo = {-0.7, -0.55, -0.35};
  map.hi = {0.9, 0.65, 0.45};
  map.v0 = 0.04;
  map.v1 = 0.12;
  return map;
}

/// A map's values: every fourth one a multiple of 1/16 (exact in float), the
/// others uniform in [0, 1]; drawn from the seed, so a seed fixes the maps.
std::vector<double> map_values(std::uint64_t seed, std::size_t which) {
  const reference::DensityMapSpec map = map_spec(which);
  std::vector<double> values;
  const std::int64_t count = map.cells[0] * map.cells[1] * map.cells[2];
  for (std::int64_t n = 0; n < count; ++n) {
    InputRng rng(seed, kId, kMapNames[which], static_cast<std::uint64_t>(n));
    values.push_back(n % 4 == 0 ? static_cast<double>(rng.integer(0, 16)) / 16 : rng.unit());
  }
  return values;
}

enum class Stratum { uniform, centres, cell_faces, outside, single_cell_axes };

/// The probes of the maps, one per map, run storage and plane axis (at
/// 3 (map * storages + storage) + axis).
struct Probes {
  std::vector<std::variant<Field<float>, Field<double>>> fields;
};

/// A point on the plane p[axis] = 0, read through map `map`.
struct PlanePoint {
  Point p{};
  std::size_t axis = 0;
  std::size_t map = kFullMap;
};

struct FieldDensityValue {
  static constexpr std::string_view id = kId;
  static constexpr Generator<Stratum> kGenerators[] = {
      {Stratum::uniform, "uniform", "uniform over the map's box on the plane x, y or z = 0 (by index)"},
      {Stratum::centres, "centres",
       "a uniform point with each free coordinate moved to its nearest cell centre lo + (c + 1/2) w"},
      {Stratum::cell_faces, "cell_faces",
       "a uniform point with one free coordinate moved to a cell face lo + c w: half way between centres"},
      {Stratum::outside, "outside", "uniform over the box widened by one cell width per side: the held edge values"},
      {Stratum::single_cell_axes, "single_cell_axes",
       "uniform over the box widened by one cell width per side, read through a map of 1 x 4 x 1 or of 3 x 1 x 4 "
       "cells (taking turns every three indices, so each meets the three planes): one cell along x and z, or along "
       "y, whose value holds across them"},
  };
  using Subject = Probes;
  using Input = PlanePoint;
  using Outcome = Measured;

  const RunSettings& settings;
  std::array<reference::DensityMapSpec, kMapCount> maps{map_spec(kFullMap), map_spec(kThinMapXZ), map_spec(kThinMapY)};
  std::array<std::vector<double>, kMapCount> given;  ///< the maps' values, drawn from the run's seed

  explicit FieldDensityValue(RunContext& context)
      : settings(context.settings()),
        given{map_values(settings.seed, kFullMap), map_values(settings.seed, kThinMapXZ),
              map_values(settings.seed, kThinMapY)} {}

  /// One unit, the maps (no part).
  std::vector<PartUnit<Probes>> parts(RunContext&) const {
    return {{"", [this](Placement) {
               Probes probes;
               for (std::size_t m = 0; m < kMapCount; ++m)
                 for (Storage storage : settings.storages)
                   for (std::size_t axis = 0; axis < 3; ++axis)
                     with_storage(storage, [&]<class S>() {
                       probes.fields.emplace_back(
                           compile_field<FieldScalarOf<S>>(reference::density_probe_spec(maps[m], given[m], axis)));
                     });
               return probes;
             }}};
  }
  std::size_t inputs_per_generator(const RunSettings&) const { return settings.inputs; }
  void start(CalculationResult& r) const { start_errors_in_h(r, false); }

  /// A point on the plane p[index % 3] = 0.
  Input generate(const Probes&, const Generator<Stratum>& stratum, std::uint64_t seed, std::uint64_t index,
                 bool&) const {
    if (seed != settings.seed)
      throw Error(ErrorCode::badarg, "replay: field.density_value's map is drawn from the run's seed; run with --seed " +
                                         std::to_string(seed));
    InputRng rng(seed, kId, stratum.name, index);
    const std::size_t axis = index % 3;
    const std::size_t which =
        stratum.kind != Stratum::single_cell_axes ? kFullMap : (index / 3 % 2 == 0 ? kThinMapXZ : kThinMapY);
    const reference::DensityMapSpec& map = maps[which];
    Point p{};
    std::array<double, 3> width{};
    for (std::size_t a = 0; a < 3; ++a) width[a] = (map.hi[a] - map.lo[a]) / static_cast<double>(map.cells[a]);
    for (std::size_t a = 0; a < 3; ++a) {
      const double grow = stratum.kind == Stratum::outside || stratum.kind == Stratum::single_cell_axes ? width[a] : 0;
      p[a] = rng.uniform(map.lo[a] - grow, map.hi[a] + grow);
    }
    const std::size_t free_axis = (axis + 1 + static_cast<std::size_t>(rng.integer(0, 1))) % 3;
    for (std::size_t a = 0; a < 3; ++a) {
      if (a == axis) continue;
      if (stratum.kind == Stratum::centres)
        p[a] = map.lo[a] + (std::floor((p[a] - map.lo[a]) / width[a]) + 0.5) * width[a];
      if (stratum.kind == Stratum::cell_faces && a == free_axis)
        p[a] = map.lo[a] + std::nearbyint((p[a] - map.lo[a]) / width[a]) * width[a];
    }
    p[axis] = 0;
    return {p, axis, which};
  }

  /// Per storage: the number read through the probe against the map's definition
  /// in high precision from the given values and from the values as stored in S.
  Outcome measure(const Probes& probes, const Input& in) const {
    const std::array<HighPrecision, 3> at{HighPrecision(in.p[0]), HighPrecision(in.p[1]), HighPrecision(in.p[2])};
    const reference::DensityMapSpec& map = maps[in.map];
    const std::vector<double>& values = given[in.map];
    const HighPrecision from_given =
        reference::density_number(map, std::vector<HighPrecision>(values.begin(), values.end()), at);
    const double floor = std::max(std::fabs(map.v0), std::fabs(map.v1));
    Outcome out;
    for (std::size_t s = 0; s < settings.storages.size(); ++s)
      std::visit(
          [&]<class S>(const Field<S>& probe) {
            std::vector<HighPrecision> stored;
            for (double v : values) stored.emplace_back(static_cast<double>(static_cast<S>(v)));
            const HighPrecision from_stored = reference::density_number(map, stored, at);
            const HighPrecision core(reference::probe_number(probe, in.p));
            out.by_storage.push_back({distance_error(core, from_given, settings.h, floor),
                                      distance_error(core, from_stored, settings.h, floor),
                                      distance_error(from_stored, from_given, settings.h, floor), std::nullopt});
          },
          probes.fields[3 * (in.map * settings.storages.size() + s) + in.axis]);
    return out;
  }

  InputValues record(const Input& in) const { return point_values(in.p); }

  nlohmann::json row(CalculationResult& r, std::size_t, const std::string&, const Probes&,
                     std::span<const Sample<FieldDensityValue>>, const ErrorMaxima& max) const {
    return {{"max_h", maxima_json(max, r)}};
  }

  nlohmann::json map_json(std::size_t which) const {
    const reference::DensityMapSpec& map = maps[which];
    return {{"cells", map.cells},
            {"box", {map.lo[0], map.lo[1], map.lo[2], map.hi[0], map.hi[1], map.hi[2]}},
            {"v0", map.v0},
            {"v1", map.v1},
            {"values", given[which]}};
  }

  nlohmann::json details(nlohmann::json table) const {
    return {{"by_generator", std::move(table)},
            {kMapNames[kFullMap], map_json(kFullMap)},
            {kMapNames[kThinMapXZ], map_json(kThinMapXZ)},
            {kMapNames[kThinMapY], map_json(kThinMapY)},
            {"method_null_reason", "the interpolated map is the number's definition: nothing is discretised"}};
  }
};

}  // namespace

}  // namespace distgrid::audit::calcs
