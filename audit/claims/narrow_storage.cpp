// Claims on the narrow storages, each read from the run's grids of every part
// at the origin and decoded by the audit's own reference_decode:
//   - a q16 brick holds every node within half its step of the double value it
//     was made from (the node rounded to the nearest code), and its step is at
//     most the brick's range over 65535, plus at most 2^-48 of the brick's
//     largest magnitude (the encoder puts the step and offset on a lattice of
//     2^-50 of that magnitude, so that decoding is exact);
//   - half bricks keep the sign (< 0 inside) of every node of the float grid
//     made from the same double values (a negative value too small for binary16
//     is stored as -2^-24, not -0).
// The run's double grid is the value each storage was encoded from (one plan,
// one double evaluation before the store).
#include <cmath>
#include <cstdio>
#include <string>

#include "distgrid/audit/claims.hpp"
#include "distgrid/audit/error_stats.hpp"
#include "distgrid/audit/reference/stored_nodes.hpp"

namespace distgrid::audit::claim_checks {

namespace {

/// A ratio to a bound with seven significant digits, so 0.9999997 does not read as 1.
std::string seven_digits(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.7g", value);
  return text;
}

}  // namespace

ClaimResult storage_q16_half_step(ClaimContext& context) {
  RunContext& run = context.run;
  const RunSettings& s = run.settings();
  double worst = 0, widest_step_h = 0, worst_step_share = 0, worst_excess = 0;
  std::size_t nodes = 0, bricks = 0, constant_bricks = 0, over = 0;
  nlohmann::json by_part = nlohmann::json::array(), worst_node = nullptr;
  for (std::size_t n = 0; n < run.part_count(); ++n) {
    PartSubject& subject = run.part(n);
    const Grid<Q16>& q = subject.grid<Q16>(Placement::origin);
    const Grid<double>& d = subject.grid<double>(Placement::origin);
    double part_worst = 0;
    std::size_t part_nodes = 0, part_over = 0;
    for (std::size_t slot = 0; slot < d.stored_keys().size(); ++slot) {
      const auto other = q.find_slot(d.stored_keys()[slot]);
      if (!other) continue;
      ++bricks;
      const LinearBrick brick = q.brick_parameters(*other);
      const double* dv = d.brick_values(slot);
      double low = dv[0], high = dv[0];
      for (int k = 0; k < kBrickNodes; ++k) {
        low = std::fmin(low, dv[k]);
        high = std::fmax(high, dv[k]);
      }
      if (brick.step == 0) ++constant_bricks;
      if (high > low) {
        worst_step_share = std::fmax(worst_step_share, brick.step / (high - low));
        const double lattice_allowance = std::ldexp(std::fmax(std::fabs(low), std::fabs(high)), -48);
        worst_excess = std::fmax(worst_excess, (brick.step - (high - low) / 65535) / lattice_allowance);
      }
      widest_step_h = std::fmax(widest_step_h, brick.step / s.h);
      for (int k = 0; k < kBrickNodes; ++k) {
        ++part_nodes;
        const double decoded = reference::stored_node_value(q, *other, static_cast<std::size_t>(k));
        const double difference = std::fabs(decoded - dv[k]);
        // A constant brick (step 0) must read its value exactly.
        const double ratio = brick.step > 0 ? difference / (brick.step / 2) : difference == 0 ? 0 : HUGE_VAL;
        if (ratio > 1) ++part_over;
        if (ratio > part_worst) {
          part_worst = ratio;
          if (ratio > worst)
            worst_node = {{"part", subject.part().name}, {"key", d.stored_keys()[slot]}, {"node", k},
                          {"double", hex_float(dv[k])}, {"q16", hex_float(decoded)},
                          {"step", hex_float(brick.step)}, {"offset", hex_float(brick.offset)}};
        }
        worst = std::fmax(worst, ratio);
      }
    }
    nodes += part_nodes;
    over += part_over;
    by_part.push_back({{"part", subject.part().name},
                       {"nodes", part_nodes},
                       {"max_over_half_step", part_worst},
                       {"nodes_over_half_step", part_over}});
  }
  ClaimResult r;
  r.numbers = {{"h", s.h},
               {"band", s.band},
               {"bricks", bricks},
               {"bricks_without_codes", constant_bricks},
               {"nodes", nodes},
               {"max_over_half_step", worst},
               {"nodes_over_half_step", over},
               {"max_step_over_range", worst_step_share},
               {"max_step_excess_over_2_to_minus_48_of_largest_magnitude", worst_excess},
               {"max_step_h", widest_step_h},
               {"worst_node", worst_node},
               {"by_part", by_part}};
  if (nodes == 0) {
    r.verdict = Verdict::inconclusive;
    r.evidence = "no stored nodes to compare";
    return r;
  }
  const bool step_fits = worst_excess <= 1;
  if (over == 0 && step_fits) {
    r.verdict = Verdict::verified;
    r.evidence = "Over " + std::to_string(nodes) + " nodes in " + std::to_string(bricks) + " q16 bricks of the run's "
                 "parts (h = " + evidence_number(s.h) + ", band " + evidence_number(s.band) + "), every node lies within half its brick's step of the double value it was made from (at most " +
                 seven_digits(worst) + " of it); no step exceeds its brick's range "
                 "over 65535 by more than " + evidence_number(worst_excess) + " of the 2^-48 of the brick's largest "
                 "magnitude allowed for the step's lattice (the largest step is " + evidence_number(widest_step_h) +
                 " h); " + std::to_string(constant_bricks) +
                 " bricks of one value store no codes.";
  } else {
    r.verdict = Verdict::refuted;
    r.evidence = over > 0 ? std::to_string(over) + " nodes lie further than half their brick's step from their "
                                                   "double value; the worst by " + evidence_number(worst) +
                                " half steps."
                          : "A brick's step exceeds its range over 65535 by " + evidence_number(worst_excess) +
                                " times 2^-48 of its largest magnitude, more than the step's lattice allows.";
    r.counterexample = worst_node;
  }
  return r;
}

ClaimResult storage_half_keeps_float_signs(ClaimContext& context) {
  RunContext& run = context.run;
  const RunSettings& s = run.settings();
  std::size_t nodes = 0, flips = 0, near_zero = 0;
  double smallest_float = HUGE_VAL;
  nlohmann::json by_part = nlohmann::json::array(), first_flip = nullptr;
  for (std::size_t n = 0; n < run.part_count(); ++n) {
    PartSubject& subject = run.part(n);
    const Grid<Half>& half = subject.grid<Half>(Placement::origin);
    const Grid<float>& f = subject.grid<float>(Placement::origin);
    std::size_t part_nodes = 0, part_flips = 0;
    for (std::size_t slot = 0; slot < f.stored_keys().size(); ++slot) {
      const auto other = half.find_slot(f.stored_keys()[slot]);
      if (!other) continue;
      const float* fv = f.brick_values(slot);
      for (int k = 0; k < kBrickNodes; ++k) {
        ++part_nodes;
        const double value = static_cast<double>(fv[k]);
        if (value != 0) smallest_float = std::fmin(smallest_float, std::fabs(value));
        // Values below half binary16's smallest subnormal (2^-25) are the ones a
        // rounding could take to zero: counted, to show the claim was tested there.
        if (std::fabs(value) < std::ldexp(1.0, -24)) ++near_zero;
        const double decoded = reference::stored_node_value(half, *other, static_cast<std::size_t>(k));
        if ((decoded < 0) != (value < 0)) {
          ++part_flips;
          if (first_flip.is_null())
            first_flip = {{"part", subject.part().name}, {"key", f.stored_keys()[slot]}, {"node", k},
                          {"float", hex_float(value)}, {"half", hex_float(decoded)}};
        }
      }
    }
    nodes += part_nodes;
    flips += part_flips;
    by_part.push_back({{"part", subject.part().name}, {"nodes", part_nodes}, {"sign_flips", part_flips}});
  }
  ClaimResult r;
  r.numbers = {{"h", s.h},
               {"band", s.band},
               {"nodes", nodes},
               {"sign_flips", flips},
               {"nodes_below_2_to_minus_24", near_zero},
               {"smallest_nonzero_float_value", std::isfinite(smallest_float) ? nlohmann::json(smallest_float)
                                                                              : nlohmann::json(nullptr)},
               {"first_flip", first_flip},
               {"by_part", by_part}};
  if (nodes == 0) {
    r.verdict = Verdict::inconclusive;
    r.evidence = "no stored nodes to compare";
    return r;
  }
  if (flips == 0) {
    r.verdict = Verdict::verified;
    r.evidence = "All " + std::to_string(nodes) + " nodes stored by both the float and the half grids of the run's "
                 "parts (h = " + evidence_number(s.h) + ", band " + evidence_number(s.band) + ") have the same sign (" +
                 std::to_string(near_zero) + " below 2^-24 in magnitude, where binary16 keeps only its "
                 "subnormals); the smallest non-zero float value is " +
                 evidence_number(std::isfinite(smallest_float) ? smallest_float : 0) + ".";
  } else {
    r.verdict = Verdict::refuted;
    r.evidence = std::to_string(flips) + " of " + std::to_string(nodes) + " nodes change sign from float to half "
                 "bricks: a negative value too small for binary16 was stored as -0, which reads outside, not as -2^-24.";
    r.counterexample = first_flip;
  }
  return r;
}

}  // namespace distgrid::audit::claim_checks
