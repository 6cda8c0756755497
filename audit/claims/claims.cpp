// The registry of the policy page's claims: one list, in report order. Each
// claim's check lives in the file named after its subject in this directory.
#include "distgrid/audit/claims.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "distgrid/audit/report.hpp"

namespace distgrid::audit {

std::string_view verdict_name(Verdict v) noexcept {
  switch (v) {
    case Verdict::verified: return "verified";
    case Verdict::refuted: return "refuted";
    case Verdict::inconclusive: return "inconclusive";
  }
  return "inconclusive";
}

std::string evidence_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

const std::vector<Claim>& claims() {
  using namespace claim_checks;
  static const std::vector<Claim> list{
      {"volume.flat_exact",
       "The volume rule h^3 * sum clamp(1/2 - d/h, 0, 1) is exact for a flat surface.",
       {"grid.volume"},
       &volume_flat_exact},
      {"volume.curved_second_order",
       "For a curved surface the volume rule's error is second order in h.",
       {"grid.volume"},
       &volume_curved_second_order,
       true},
      {"storage.float_rounding",
       "A stored value is at most band*h in size, so its 32-bit rounding is at most about 6e-8 of band*h.",
       {"bake.node_values", "grid.sample"},
       &storage_float_rounding},
      {"storage.q16_half_step",
       "A q16 brick holds every node within half its step of the value it was made from, the step being at most "
       "1/65535 of the brick's range.",
       {"bake.node_values", "grid.sample"},
       &storage_q16_half_step},
      {"storage.half_keeps_float_signs",
       "Half bricks keep the sign of every node of a float-stored grid.",
       {"bake.node_values", "grid.sample"},
       &storage_half_keeps_float_signs},
      {"storage.linear_against_nanovdb",
       "Made from the same float values, our q8 and q16 bricks take no more memory than NanoVDB's Fp8 and Fp16 "
       "grids, with every node within its bound and no sign changed; NanoVDB's figures, and FpN's, beside.",
       {"bake.node_values"},
       &storage_linear_against_nanovdb},
      {"key.exact_below_2_51",
       "Brick keys are whole numbers below 2^51, exact as 64-bit integers and as doubles.",
       {"grid.key"},
       &key_exact_below_2_51},
      {"edge_key.exact_below_2_21_corners",
       "An edge key a*2^32 + b is exact as a double only below 2^21 welded corners.",
       {"mesh.edge_key"},
       &edge_key_exact_below_2_21_corners},
      {"plan.ball_covers_brick",
       "A ball of radius 3.5*sqrt(3)*h around a brick's centre holds all of its nodes.",
       {"bake.plan"},
       &plan_ball_covers_brick},
      {"normals.any_monotone_weight",
       "Any monotone weight of the incident triangles gives a corner pseudo-normal with the same sign as the "
       "angle weight.",
       {"mesh.normals", "mesh.node_distance"},
       &normals_any_monotone_weight},
      {"closest_point.face_never_divides_by_zero",
       "Once zero-area triangles are skipped, the face case of the closest point never divides by zero.",
       {"mesh.closest_point"},
       &closest_point_face_never_divides_by_zero},
      {"grid.shared_sample_points",
       "Two grids with the same h share every sample point.",
       {"bake.node_values", "grid.sample"},
       &grid_shared_sample_points},
  };
  return list;
}

bool claim_selected(const Claim& claim, const std::vector<std::string>& selected) {
  if (selected.empty()) return true;
  return std::any_of(claim.calculations.begin(), claim.calculations.end(), [&](std::string_view id) {
    return std::find(selected.begin(), selected.end(), id) != selected.end();
  });
}

nlohmann::json run_claims(ClaimContext& context) {
  nlohmann::json out = nlohmann::json::array();
  for (const Claim& claim : claims()) {
    if (!claim_selected(claim, context.run.settings().calculations)) continue;
    const auto started = std::chrono::steady_clock::now();
    context.run.progress().begin("claim " + std::string(claim.id), 1);
    const ClaimResult result = claim.check(context);
    context.run.progress().end();
    nlohmann::json calculations = nlohmann::json::array();
    for (std::string_view id : claim.calculations) calculations.push_back(id);
    out.push_back({{"id", claim.id},
                   {"statement", claim.statement},
                   {"verdict", verdict_name(result.verdict)},
                   {"evidence", result.evidence},
                   {"numbers", result.numbers},
                   {"counterexample", result.counterexample},
                   {"calculations", calculations},
                   {"seconds", finite_or_null(std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                                            started).count())}});
  }
  return out;
}

}  // namespace distgrid::audit
