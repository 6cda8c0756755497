#pragma once
// The policy page's claims, each checked against core and an independent
// reference and reported verified, refuted (with a counterexample) or
// inconclusive. Claims are registered once, in the list in audit/claims/claims.cpp;
// their ids are stable (gates.json records which ones were verified).
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/audit/refinement.hpp"
#include "distgrid/audit/run.hpp"

namespace distgrid::audit {

enum class Verdict { verified, refuted, inconclusive };

/// "verified", "refuted", "inconclusive", as the report spells them.
std::string_view verdict_name(Verdict v) noexcept;

struct ClaimResult {
  Verdict verdict = Verdict::inconclusive;
  std::string evidence;                       ///< one or two sentences with the deciding numbers
  nlohmann::json numbers = nlohmann::json::object();
  nlohmann::json counterexample = nullptr;    ///< an object when refuted
};

/// What a claim check sees: the run (settings, threads, parts) and the
/// refinement series the volume claims and the comparison share.
struct ClaimContext {
  RunContext& run;
  const Refinement& refinement;
  /// True for a quick run (few inputs): searches draw fewer inputs.
  bool quick = false;
};

struct Claim {
  std::string_view id;
  std::string_view statement;                  ///< the policy's claim, in our words
  std::vector<std::string_view> calculations;  ///< catalogue ids the claim is about
  ClaimResult (*check)(ClaimContext& context);
  /// The check reads the run's refinement series (ClaimContext::refinement), so a
  /// run that checks the claim computes the series.
  bool needs_refinement = false;
};

/// The registry, in report order.
const std::vector<Claim>& claims();

/// True when a run with this calculation selection (empty: all) checks the claim.
bool claim_selected(const Claim& claim, const std::vector<std::string>& selected_calculations);

/// A number for an evidence sentence: %.3g ("1.19e-07", "2.5").
std::string evidence_number(double value);

/// The report's "claims" array: one entry per claim checked.
nlohmann::json run_claims(ClaimContext& context);

namespace claim_checks {
ClaimResult volume_flat_exact(ClaimContext& context);
ClaimResult volume_curved_second_order(ClaimContext& context);
ClaimResult storage_float_rounding(ClaimContext& context);
ClaimResult storage_q16_half_step(ClaimContext& context);
ClaimResult storage_half_keeps_float_signs(ClaimContext& context);
ClaimResult storage_linear_against_nanovdb(ClaimContext& context);
ClaimResult key_exact_below_2_51(ClaimContext& context);
ClaimResult edge_key_exact_below_2_21_corners(ClaimContext& context);
ClaimResult plan_ball_covers_brick(ClaimContext& context);
ClaimResult normals_any_monotone_weight(ClaimContext& context);
ClaimResult closest_point_face_never_divides_by_zero(ClaimContext& context);
ClaimResult grid_shared_sample_points(ClaimContext& context);
}  // namespace claim_checks

}  // namespace distgrid::audit
