// distgrid-estimate-volume: the volume of a built-in part by jittered
// (stratified) sampling of the audit's own formula reference
// (reference/field_geometry.hpp, in double), independent of core's formula
// code: one uniform point per cell of a CELLS^3 lattice over the part's box,
// REPLICATES independent replicates (std::mt19937_64 seeded from 1000 + the
// replicate and the lattice layer, so the result does not depend on threads).
// Prints JSON: the estimates, their mean and the standard error of the mean.
// Used once per part whose volume has no closed form; default_parts.cpp cites
// the command and its output.
// Exit codes: 0 success, 1 a typed error, 2 bad usage.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/audit/reference/field_geometry.hpp"
#include "distgrid/default_parts.hpp"
#include "distgrid/error.hpp"
#include "distgrid/field_json.hpp"

namespace {

using distgrid::audit::reference::FieldGeometry;
using distgrid::audit::reference::FieldPoint;

constexpr const char* kHelp = R"(usage: distgrid-estimate-volume PART CELLS REPLICATES

  PART        a built-in part (distgrid bake --list-parts)
  CELLS       lattice cells per axis, one jittered point each
  REPLICATES  independent replicates, seeds 1000, 1001, ...

Prints JSON: the part's box (its formula box widened by 1 %, checked to hold
the part: no point of a 64 x 64 grid on each face is inside), each replicate's
estimate, their mean and the standard error of the mean. Exit codes: 0
success, 1 a failure ('distgrid-estimate-volume: <code>: <message>'), 2 bad usage.
)";

struct Box3 {
  std::array<double, 3> lo, hi;
};

/// Points inside (f <= 0) among one jittered point per cell of one lattice layer k.
std::uint64_t count_layer(const FieldGeometry& f, const Box3& box, int cells, int k, std::uint64_t seed) {
  std::seed_seq sequence{seed, static_cast<std::uint64_t>(k)};
  std::mt19937_64 rng(sequence);
  std::uniform_real_distribution<double> jitter(0, 1);
  std::array<double, 3> step{};
  for (std::size_t a = 0; a < 3; ++a) step[a] = (box.hi[a] - box.lo[a]) / cells;
  std::uint64_t inside = 0;
  for (int j = 0; j < cells; ++j)
    for (int i = 0; i < cells; ++i) {
      const FieldPoint p{box.lo[0] + (i + jitter(rng)) * step[0], box.lo[1] + (j + jitter(rng)) * step[1],
                         box.lo[2] + (k + jitter(rng)) * step[2]};
      inside += f.value_double(p) <= 0;
    }
  return inside;
}

/// Throws unless every point of a 64 x 64 grid on each face of the box is outside.
void check_box_holds_part(const FieldGeometry& f, const Box3& box) {
  constexpr int kGrid = 64;
  for (std::size_t a = 0; a < 3; ++a)
    for (double side : {box.lo[a], box.hi[a]})
      for (int u = 0; u <= kGrid; ++u)
        for (int v = 0; v <= kGrid; ++v) {
          FieldPoint p{};
          const std::size_t b = (a + 1) % 3, c = (a + 2) % 3;
          p[a] = side;
          p[b] = box.lo[b] + (box.hi[b] - box.lo[b]) * u / kGrid;
          p[c] = box.lo[c] + (box.hi[c] - box.lo[c]) * v / kGrid;
          if (f.value_double(p) <= 0)
            throw distgrid::Error(distgrid::ErrorCode::badarg, "the widened formula box does not hold the part");
        }
}

int parse_positive(const char* text, const char* what) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < 1 || v > 100000) {
    std::fprintf(stderr, "distgrid-estimate-volume: %s must be an integer in 1..100000, got \"%s\"\n", what, text);
    std::exit(2);
  }
  return static_cast<int>(v);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (argc != 4) {
    std::fputs(kHelp, stderr);
    return 2;
  }
  const int cells = parse_positive(argv[2], "CELLS");
  const int replicates = parse_positive(argv[3], "REPLICATES");
  try {
    const distgrid::DefaultPart& part = distgrid::default_part(argv[1]);
    const FieldGeometry reference(part.spec, distgrid::audit::reference::DensityValues::given);
    const distgrid::Box bounds = distgrid::compile_field<double>(part.spec).bounds();
    Box3 box{};
    for (std::size_t a = 0; a < 3; ++a) {
      const double margin = 0.01 * (bounds.hi[a] - bounds.lo[a]);
      box.lo[a] = bounds.lo[a] - margin;
      box.hi[a] = bounds.hi[a] + margin;
    }
    check_box_holds_part(reference, box);
    const double cell_volume = (box.hi[0] - box.lo[0]) * (box.hi[1] - box.lo[1]) * (box.hi[2] - box.lo[2]) /
                               (static_cast<double>(cells) * cells * cells);
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<double> estimates;
    for (int r = 0; r < replicates; ++r) {
      std::vector<std::uint64_t> layers(static_cast<std::size_t>(cells));
      std::vector<std::thread> pool;
      for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
          for (int k = static_cast<int>(t); k < cells; k += static_cast<int>(threads))
            layers[static_cast<std::size_t>(k)] = count_layer(reference, box, cells, k, 1000 + static_cast<std::uint64_t>(r));
        });
      for (std::thread& t : pool) t.join();
      std::uint64_t inside = 0;
      for (std::uint64_t n : layers) inside += n;
      estimates.push_back(static_cast<double>(inside) * cell_volume);
    }
    double mean = 0;
    for (double e : estimates) mean += e;
    mean /= replicates;
    double squares = 0;
    for (double e : estimates) squares += (e - mean) * (e - mean);
    const double standard_error = replicates > 1 ? std::sqrt(squares / (replicates - 1) / replicates) : 0;
    const nlohmann::json out = {{"part", part.name},
                                {"cells", cells},
                                {"replicates", replicates},
                                {"box", {box.lo[0], box.lo[1], box.lo[2], box.hi[0], box.hi[1], box.hi[2]}},
                                {"estimates", estimates},
                                {"mean", mean},
                                {"standard_error", replicates > 1 ? nlohmann::json(standard_error) : nlohmann::json(nullptr)}};
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  } catch (const distgrid::Error& e) {
    std::fprintf(stderr, "distgrid-estimate-volume: %s: %s\n", std::string(distgrid::error_code_name(e.code())).c_str(),
                 e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "distgrid-estimate-volume: badspec: %s\n", e.what());
    return 1;
  }
}
