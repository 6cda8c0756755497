#pragma once
// Small helpers shared by the mesh calculations (mesh_*.cpp).
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "distgrid/audit/calculation.hpp"
#include "distgrid/audit/error_stats.hpp"
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/audit/run.hpp"
#include "distgrid/error.hpp"

namespace distgrid::audit::runs::mesh_support {

using Point = std::array<double, 3>;

/// "(x, y, z)" in hex-float, exact and replayable.
inline std::string point_text(const Point& p) {
  std::string text = "(";
  for (std::size_t a = 0; a < 3; ++a) {
    text += hex_float(p[a]);
    text += a < 2 ? ", " : ")";
  }
  return text;
}

/// Number of doubles strictly between x and y plus one (0 when x == y, so -0
/// and +0 are 0 apart): how many one-ulp steps separate them.
inline double ulp_steps(double x, double y) noexcept {
  const auto ordered = [](double v) {
    std::int64_t bits = 0;
    const double positive_zero = v + 0.0;  // -0 + 0 is +0
    std::memcpy(&bits, &positive_zero, sizeof bits);
    return bits < 0 ? -(bits & 0x7FFFFFFFFFFFFFFF) : bits;
  };
  const std::int64_t a = ordered(x), b = ordered(y);
  return a > b ? static_cast<double>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b))
               : static_cast<double>(static_cast<std::uint64_t>(b) - static_cast<std::uint64_t>(a));
}

/// A storage-independent result copied once per storage the run asks for.
inline std::vector<CalculationResult> for_each_storage(const CalculationResult& result, const RunSettings& settings) {
  std::vector<CalculationResult> out;
  for (Storage s : settings.storages) {
    out.push_back(result);
    out.back().storage = s;
  }
  return out;
}

/// The recorded value `name` of a replay request; Error(badarg) when absent.
inline const std::string& recorded_value(const ReplayRequest& request, std::string_view name) {
  for (const auto& [key, value] : request.input.values)
    if (key == name) return value;
  throw Error(ErrorCode::badarg, "replay: the record has no value '" + std::string(name) + "'");
}

/// Index of a generator by name in a table of specs with a `name` member;
/// Error(badarg) naming the calculation when unknown.
template <class Spec, std::size_t N>
std::size_t stratum_index(const Spec (&strata)[N], std::string_view generator, std::string_view calculation) {
  for (std::size_t s = 0; s < N; ++s)
    if (generator == strata[s].name) return s;
  throw Error(ErrorCode::badarg,
              "replay: " + std::string(calculation) + " has no generator '" + std::string(generator) + "'");
}

/// An integer parsed from a recorded value; Error(badarg) when it is not one.
inline std::uint64_t recorded_unsigned(const ReplayRequest& request, std::string_view name) {
  const std::string& text = recorded_value(request, name);
  std::size_t used = 0;
  unsigned long long value = 0;
  try {
    value = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size())
    throw Error(ErrorCode::badarg, "replay: value '" + std::string(name) + "' is not an integer: " + text);
  return value;
}

}  // namespace distgrid::audit::runs::mesh_support
