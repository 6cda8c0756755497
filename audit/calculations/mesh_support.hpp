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

namespace distgrid::audit::calcs::mesh_support {

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

/// "the built-in meshes icosphere_1k and torus_mesh (inputs 0 and 1)": the mesh
/// parts by name, in order, and which input each one is.
inline std::string mesh_parts_text(const std::vector<const MeshSubject*>& parts) {
  if (parts.empty()) return "no mesh part of the run (none has at most " + std::to_string(kExactReferenceTriangles) +
                            " triangles)";
  bool built_in = true;
  std::string names;
  for (std::size_t n = 0; n < parts.size(); ++n) {
    built_in = built_in && parts[n]->source == "built-in";
    names += (n == 0 ? "" : (n + 1 == parts.size() ? " and " : ", ")) + parts[n]->part.name;
  }
  const std::string inputs = parts.size() == 1   ? "input 0"
                             : parts.size() == 2 ? "inputs 0 and 1"
                                                 : "inputs 0 to " + std::to_string(parts.size() - 1);
  return std::string(built_in ? "the built-in " : "the ") + (parts.size() == 1 ? "mesh " : "meshes ") + names + " (" +
         inputs + ")";
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

/// Index of a generator by name in a table of specs with a `name` member;
/// Error(badarg) naming the calculation when unknown.
template <class Spec, std::size_t N>
std::size_t stratum_index(const Spec (&strata)[N], std::string_view generator, std::string_view calculation) {
  for (std::size_t s = 0; s < N; ++s)
    if (generator == strata[s].name) return s;
  throw Error(ErrorCode::badarg,
              "replay: " + std::string(calculation) + " has no generator \"" + std::string(generator) + "\"");
}

/// A recorded whole number that must not be negative; Error(badarg) otherwise.
inline std::uint64_t recorded_unsigned(const ReplayRequest& request, std::string_view name) {
  const std::int64_t value = replay_integer(request, name);
  if (value < 0)
    throw Error(ErrorCode::badarg, "replay: value '" + std::string(name) + "' is negative: " + replay_text(request, name));
  return static_cast<std::uint64_t>(value);
}

}  // namespace distgrid::audit::calcs::mesh_support
