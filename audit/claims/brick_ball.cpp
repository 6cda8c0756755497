// Claim: the ball of radius 3.5*sqrt(3)*h around a brick's centre holds all its
// nodes. Checked in exact rationals (GMP): squared distances in units of h^2 are
// quarter-integers, the radius squared is 36.75; then the double radius core uses.
#include <algorithm>

#include "distgrid/audit/claims.hpp"
#include "distgrid/audit/rational.hpp"
#include "distgrid/audit/error_stats.hpp"
#include "distgrid/audit/high_precision.hpp"
#include "distgrid/field_nodes.hpp"
#include "distgrid/plan.hpp"

namespace distgrid::audit::claim_checks {

ClaimResult plan_ball_covers_brick(ClaimContext& context) {
  // Node offsets from the centre are (n - 7/2) voxels, n = 0..7; in quarters of
  // a voxel squared the distance is (2n - 7)^2 summed over the axes.
  long farthest_quarters = 0, outside = 0, on_sphere = 0;
  const long radius_quarters = 3 * 49;  // (2 * 3.5)^2 * 3 = 4 * (3.5 sqrt 3)^2
  for (long k = 0; k < 8; ++k)
    for (long j = 0; j < 8; ++j)
      for (long i = 0; i < 8; ++i) {
        const long q = (2 * i - 7) * (2 * i - 7) + (2 * j - 7) * (2 * j - 7) + (2 * k - 7) * (2 * k - 7);
        farthest_quarters = std::max(farthest_quarters, q);
        outside += q > radius_quarters;
        on_sphere += q == radius_quarters;
      }
  // The radius as core computes it, in voxels and at the run's h.
  const double h = context.run.settings().h;
  const double radius_voxels = kBrickBallRadiusVoxels;
  const double radius_at_h = radius_voxels * h;
  const Rational exact_squared(147, 4);
  const Rational computed_squared = Rational(radius_voxels) * Rational(radius_voxels);
  const Rational computed_at_h_squared = Rational(radius_at_h) * Rational(radius_at_h) / (Rational(h) * Rational(h));
  const HighPrecision exact_radius = HighPrecision(3.5) * sqrt(HighPrecision(3));
  const double shortfall_voxels = to_double(exact_radius - HighPrecision(radius_voxels));
  const double shortfall_at_h_voxels = to_double(exact_radius - HighPrecision(radius_at_h) / HighPrecision(h));
  const double relative_shortfall = to_double((exact_radius - HighPrecision(radius_voxels)) / exact_radius);

  ClaimResult r;
  r.numbers = {{"nodes", 512},
               {"farthest_node_squared_voxels", static_cast<double>(farthest_quarters) / 4},
               {"radius_squared_voxels", 36.75},
               {"nodes_outside", outside},
               {"nodes_on_the_sphere", on_sphere},
               {"radius_voxels_core", radius_voxels},
               {"radius_voxels_core_hex", hex_float(radius_voxels)},
               {"radius_below_exact", computed_squared < exact_squared},
               {"radius_at_h_below_exact", computed_at_h_squared < exact_squared},
               {"shortfall_voxels", shortfall_voxels},
               {"shortfall_at_run_h_voxels", shortfall_at_h_voxels},
               {"shortfall_ulps", shortfall_voxels / ulp_of(radius_voxels)},
               {"relative_shortfall", relative_shortfall},
               {"lipschitz_pad", detail::kLipschitzPad}};
  if (outside == 0 && farthest_quarters == radius_quarters) {
    r.verdict = Verdict::verified;
    r.evidence =
        "In exact rationals every node of a brick is within 3.5*sqrt(3) voxels of its centre; the eight corner nodes "
        "lie exactly on the sphere (squared distance 36.75 voxels^2 = (3.5 sqrt 3)^2). The double radius core uses, " +
        hex_float(radius_voxels) + " voxels, is " + (computed_squared < exact_squared ? "below" : "not below") +
        " the exact value (relative " + evidence_number(relative_shortfall) +
        "), so taken literally the rounded ball misses the corners by that much; the classification pads every "
        "Lipschitz bound by 1e-12 (relative), four orders more than the shortfall, so no brick is misclassified by it.";
  } else {
    r.verdict = Verdict::refuted;
    r.evidence = std::to_string(outside) + " nodes lie outside the ball in exact arithmetic.";
    r.counterexample = {{"farthest_node_squared_voxels", static_cast<double>(farthest_quarters) / 4}};
  }
  return r;
}

}  // namespace distgrid::audit::claim_checks
