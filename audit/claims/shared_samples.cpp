// Claim: two grids with the same h share every sample point. Node (i, j, k) must
// sit at the correctly rounded products (i*h, j*h, k*h) whatever the grid's box:
// every stored node of a bake is compared with the formula evaluated at those
// reference positions, and a part baked alone is compared with the same part
// baked together with a far-away second part (another box, another brick range).
#include <algorithm>
#include <cmath>

#include "distgrid/audit/claims.hpp"
#include "distgrid/audit/error_stats.hpp"
#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/audit/reference/brick_key.hpp"
#include "distgrid/bake.hpp"
#include "distgrid/field_json.hpp"

namespace distgrid::audit::claim_checks {

namespace {

/// i*h rounded once to double, computed without core.
double node_position(std::int64_t i, double h) { return to_double(HighPrecision(i) * HighPrecision(h)); }

struct NodeCheck {
  std::size_t nodes = 0, wrong = 0;
  nlohmann::json first_wrong = nullptr;
};

/// Every stored node against clamp(f(reference position), +-band*h), bit for bit.
NodeCheck check_positions(const Field<double>& field, const Grid<double>& grid) {
  NodeCheck out;
  const double band_width = grid.band() * grid.h(), h = grid.h();
  for (std::size_t slot = 0; slot < grid.stored_keys().size(); ++slot) {
    const reference::BrickTriple b = reference::brick_of_stored_key(grid.stored_keys()[slot]);
    const double* values = grid.brick_values(slot);
    for (std::int64_t n = 0; n < kBrickNodes; ++n) {
      const std::int64_t i = 8 * b[0] + (n & 7), j = 8 * b[1] + ((n >> 3) & 7), k = 8 * b[2] + (n >> 6);
      const double x = node_position(i, h), y = node_position(j, h), z = node_position(k, h);
      const double expected = std::clamp(field.eval<double>(x, y, z), -band_width, band_width);
      ++out.nodes;
      if (values[n] != expected) {
        ++out.wrong;
        if (out.first_wrong.is_null())
          out.first_wrong = {{"node", {i, j, k}}, {"stored", hex_float(values[n])}, {"expected", hex_float(expected)}};
      }
    }
  }
  return out;
}

}  // namespace

ClaimResult grid_shared_sample_points(ClaimContext& context) {
  const RunSettings& s = context.run.settings();
  // The run's h and a step that is not a binary fraction, so i*h rounds.
  const std::vector<double> steps{s.h, 0.0123};
  const nlohmann::json far_sphere = {{"type", "sphere"}, {"center", {6.37, -5.11, 4.3}}, {"radius", 0.5}};
  std::size_t nodes = 0, wrong_nodes = 0, common_bricks = 0, differing_values = 0, samples = 0, differing_samples = 0;
  nlohmann::json per_step = nlohmann::json::array(), counterexample = nullptr;
  for (double h : steps) {
    BakeSettings settings;
    settings.h = h;
    settings.band = s.band;
    settings.threads = context.run.threads();
    for (const char* name : {"sphere", "torus"}) {
      const nlohmann::json& spec = default_part(name).spec;
      const Field<double> alone_field = compile_field<double>(spec);
      const Grid<double> alone = bake(alone_field, settings);
      const NodeCheck positions = check_positions(alone_field, alone);
      nodes += positions.nodes;
      wrong_nodes += positions.wrong;
      if (positions.wrong > 0 && counterexample.is_null()) counterexample = positions.first_wrong;

      // The same part with a second one far away: another box and brick range.
      const Grid<double> together =
          bake(compile_field<double>(nlohmann::json{{"type", "union"}, {"of", nlohmann::json::array({spec, far_sphere})}}),
               settings);
      std::size_t step_common = 0, step_differing = 0;
      for (std::size_t slot = 0; slot < alone.stored_keys().size(); ++slot) {
        const double* other = together.find_brick(alone.stored_keys()[slot]);
        if (!other) continue;
        ++step_common;
        const double* mine = alone.brick_values(slot);
        for (int n = 0; n < kBrickNodes; ++n) step_differing += mine[n] != other[n];
      }
      common_bricks += step_common;
      differing_values += step_differing;
      const std::size_t points = context.quick ? 500 : 4000;
      std::size_t step_samples_differing = 0;
      const auto& keys = alone.stored_keys();
      for (std::size_t n = 0; n < points && !keys.empty(); ++n) {
        InputRng rng(s.seed, "claim:grid.shared_sample_points", name, n);
        const BrickCoord b = brick_of(keys[static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(keys.size()) - 1))]);
        const double x = (static_cast<double>(b.bx * 8) + rng.uniform(0, 8)) * h;
        const double y = (static_cast<double>(b.by * 8) + rng.uniform(0, 8)) * h;
        const double z = (static_cast<double>(b.bz * 8) + rng.uniform(0, 8)) * h;
        const double a = alone.sample(x, y, z), t = together.sample(x, y, z);
        ++samples;
        if (a != t) {
          ++step_samples_differing;
          if (counterexample.is_null())
            counterexample = {{"part", name}, {"h", hex_float(h)}, {"point", {hex_float(x), hex_float(y), hex_float(z)}},
                              {"alone", hex_float(a)}, {"with_far_part", hex_float(t)}};
        }
      }
      differing_samples += step_samples_differing;
      per_step.push_back({{"part", name},
                          {"h", h},
                          {"h_hex", hex_float(h)},
                          {"stored_nodes", positions.nodes},
                          {"nodes_not_at_i_h", positions.wrong},
                          {"bricks_shared_with_far_part_grid", step_common},
                          {"node_values_differing", step_differing},
                          {"samples_differing", step_samples_differing}});
    }
  }
  ClaimResult r;
  r.numbers = {{"stored_nodes_checked", nodes},
               {"nodes_not_at_i_h", wrong_nodes},
               {"bricks_compared", common_bricks},
               {"node_values_differing", differing_values},
               {"samples_compared", samples},
               {"samples_differing", differing_samples},
               {"by_part_and_h", per_step}};
  if (wrong_nodes == 0 && differing_values == 0 && differing_samples == 0 && common_bricks > 0) {
    r.verdict = Verdict::verified;
    r.evidence = "Every one of " + std::to_string(nodes) +
                 " stored nodes (sphere and torus at h = " + evidence_number(s.h) +
                 " and at h = 0.0123, which is not a binary fraction) holds the formula evaluated at the correctly "
                 "rounded products i*h, j*h, k*h; the same parts baked with a far second part (another box and "
                 "brick range) hold bit-identical values in all " + std::to_string(common_bricks) +
                 " shared bricks and give bit-identical samples at " + std::to_string(samples) + " points.";
  } else {
    r.verdict = Verdict::refuted;
    r.evidence = std::to_string(wrong_nodes) + " nodes not at i*h, " + std::to_string(differing_values) +
                 " node values and " + std::to_string(differing_samples) + " samples differ between grids of the same h.";
    r.counterexample = counterexample;
  }
  return r;
}

}  // namespace distgrid::audit::claim_checks
