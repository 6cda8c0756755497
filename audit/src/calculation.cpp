#include "distgrid/audit/calculation.hpp"

#include <cerrno>
#include <cstdlib>

#include "../calculations/calculations.hpp"
#include "distgrid/error.hpp"

namespace distgrid::audit {

std::string_view precision_name(PrecisionClass c) noexcept {
  switch (c) {
    case PrecisionClass::exact: return "exact";
    case PrecisionClass::bits64: return "64-bit";
    case PrecisionClass::bits32_in_part: return "32-bit in part";
    case PrecisionClass::inexact: return "inexact";
  }
  return "inexact";
}

PrecisionClass measured_class(double max_ulps, std::uint64_t mismatches, PrecisionClass declared) noexcept {
  if (mismatches > 0) return PrecisionClass::inexact;
  if (max_ulps == 0) return PrecisionClass::exact;
  if (declared == PrecisionClass::exact) return PrecisionClass::inexact;
  return max_ulps <= kSixtyFourBitMaxUlps ? PrecisionClass::bits64 : PrecisionClass::bits32_in_part;
}

// The one list. Each entry is registered here and nowhere else.
const std::vector<Calculation>& calculations() {
  static const std::vector<Calculation> list{
      {
          "grid.key",
          "Brick key and its inverse",
          PrecisionClass::exact,
          {{"core/include/distgrid/brick_key.hpp", "brick_key"},
           {"core/include/distgrid/brick_key.hpp", "brick_of"},
           {"core/src/brick_key.cpp", "brick_key_checked"}},
          "key = ((bx + 65536) * 131072 + (by + 65536)) * 131072 + (bz + 65536), each shifted coordinate in "
          "[0, 131071]; the inverse takes remainders and exact quotients by 131072",
          "all 343 combinations of the range edges -65536, -65535, -1, 0, 1, 65534, 65535; uniform coordinates "
          "over the key range; coordinates beyond it, which must be refused",
          "brick_key, brick_of, brick_key_valid, brick_key_checked",
          "the key in 128-bit integers and its three base-2^17 digits, from the convention in DESIGN.md",
          "error: |core key - reference key| in ulps of the key as a double, for inputs with a key; mismatches: "
          "inputs with any wrong answer (key, inverse, validity, range refusal, key not exact as a double below "
          "2^51). An integer is right or wrong, so no arithmetic / storage / method split.",
          &runs::run_grid_key,
          &runs::replay_grid_key,
      },
      {
          "grid.sample",
          "Value at a point",
          PrecisionClass::bits32_in_part,
          {{"core/src/grid.cpp", "GridAccessor<S>::sample"},
           {"core/src/grid.cpp", "floor_exact"},
           {"core/src/grid.cpp", "GridAccessor<S>::look_up"},
           {"core/src/grid.cpp", "Grid<S>::sample"}},
          "i = floor(x / h), u = x / h - i on each axis; over the cell's eight nodes a + (b - a) * t along x, then "
          "y, then z, in double; a node reads its stored S value, +band h in an absent brick, -band h in an "
          "inside brick",
          "per part: uniform in the box; in the band; on nodes; on brick faces; on brick corners; at the band's "
          "edge; a copy of the part translated ~5e5 h from the origin; points beyond the key range (|x|/h up to "
          "1e9). Each input is drawn from (seed, generator, index).",
          "Grid<S>::sample",
          "trilinear interpolation as a weighted sum of the eight corners in high precision, at the cell and "
          "fractions found from the point in high precision; corners from the stored values (read through the "
          "audit's own key map) or from exact node values clamp(f(i h), +-band h), f the part's formula in high "
          "precision; the true value clamp(f(p), +-band h)",
          "error: the core's sample vs high precision from exact node values (arithmetic + storage), in h and in "
          "ulps of the reference (magnitude raised to band h). Method: against clamp(f(p), +-band h), since "
          "beyond the band a grid stores only the clamp.",
          &runs::run_grid_sample,
          &runs::replay_grid_sample,
      },
      {
          "grid.volume",
          "Enclosed volume",
          PrecisionClass::bits32_in_part,
          {{"core/src/volume.cpp", "Grid<S>::volume"},
           {"core/src/volume.cpp", "brick_volume_in_voxels"},
           {"core/src/volume.cpp", "round_up_to_storage"},
           {"core/src/volume.cpp", "brick_fraction_sum"}},
          "V = h^3 * sum over nodes of clamp(1/2 - d / h, 0, 1), an inside brick adding 512; summed in double in "
          "ascending key order",
          "each default part baked at the run's h and band (one input per part)",
          "Grid<S>::volume",
          "the same sum in high precision over the grid's own bricks (keys decoded by the reference; an inside "
          "brick counts 512 as the plan classified it): from the stored values, and from exact node values "
          "clamp(f(i h), +-band h); the part's analytic (or best known) volume",
          "error: the core's volume vs high precision from exact node values (arithmetic + storage), relative and "
          "in ulps of the reference. Method: high precision from exact node values vs the analytic volume, "
          "relative.",
          &runs::run_grid_volume,
          &runs::replay_grid_volume,
      },
  };
  return list;
}

const std::string& replay_text(const ReplayRequest& request, std::string_view name) {
  for (const auto& [key, value] : request.input.values)
    if (key == name) return value;
  throw Error(ErrorCode::badarg, "the recorded input has no value \"" + std::string(name) + "\"");
}

double replay_double(const ReplayRequest& request, std::string_view name) {
  const std::string& text = replay_text(request, name);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE)
    throw Error(ErrorCode::badarg, "the recorded input \"" + std::string(name) + "\" is not a number: " + text);
  return v;
}

std::int64_t replay_integer(const ReplayRequest& request, std::string_view name) {
  const std::string& text = replay_text(request, name);
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE)
    throw Error(ErrorCode::badarg, "the recorded input \"" + std::string(name) + "\" is not a whole number: " + text);
  return v;
}

const Calculation* find_calculation(std::string_view id) {
  for (const Calculation& c : calculations())
    if (c.id == id) return &c;
  return nullptr;
}

}  // namespace distgrid::audit
