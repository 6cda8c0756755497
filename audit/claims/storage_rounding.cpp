// Claim: a stored value's 32-bit rounding is at most about 6e-8 of band*h.
// Every stored node of the run's float grids is compared with the same node of
// the double grids (same plan, same double arithmetic before the store).
#include <cmath>

#include "distgrid/audit/claims.hpp"
#include "distgrid/audit/error_stats.hpp"

namespace distgrid::audit::claim_checks {

ClaimResult storage_float_rounding(ClaimContext& context) {
  RunContext& run = context.run;
  const RunSettings& s = run.settings();
  const double band_width = s.band * s.h;
  // |v| <= band*h and a float keeps 24 bits: half an ulp is at most 2^-24 |v|.
  const double bound = std::ldexp(1.0, -24);
  double worst = 0, worst_other = 0;
  std::size_t nodes = 0, rounding_only = 0, other = 0;
  nlohmann::json by_part = nlohmann::json::array(), worst_node = nullptr;
  for (std::size_t n = 0; n < run.part_count(); ++n) {
    PartSubject& subject = run.part(n);
    const Grid<float>& f = subject.grid<float>(Placement::origin);
    const Grid<double>& d = subject.grid<double>(Placement::origin);
    double part_worst = 0, part_other = 0;
    std::size_t part_nodes = 0, part_other_count = 0;
    for (std::size_t slot = 0; slot < d.stored_keys().size(); ++slot) {
      const float* fv = f.find_brick(d.stored_keys()[slot]);
      if (!fv) continue;
      const double* dv = d.brick_values(slot);
      for (int k = 0; k < kBrickNodes; ++k) {
        ++part_nodes;
        const double ratio = std::fabs(static_cast<double>(fv[k]) - dv[k]) / band_width;
        if (fv[k] == static_cast<float>(dv[k])) {
          if (ratio > part_worst) {
            part_worst = ratio;
            if (ratio > worst)
              worst_node = {{"part", subject.part().name}, {"key", d.stored_keys()[slot]}, {"node", k},
                            {"double", hex_float(dv[k])}, {"float", hex_float(static_cast<double>(fv[k]))}};
          }
          worst = std::max(worst, ratio);
        } else {
          ++part_other_count;
          part_other = std::max(part_other, ratio);
        }
      }
    }
    nodes += part_nodes;
    other += part_other_count;
    rounding_only += part_nodes - part_other_count;
    worst_other = std::max(worst_other, part_other);
    nlohmann::json entry = {{"part", subject.part().name},
                            {"nodes", part_nodes},
                            {"max_rounding_over_band_h", part_worst},
                            {"nodes_not_the_rounding_of_the_double_value", part_other_count}};
    if (part_other_count > 0) {
      entry["max_difference_over_band_h_at_those_nodes"] = part_other;
      entry["why_different"] =
          "the float grid's formula holds its density map in float (field.density_store), so the double value "
          "before the store differs too";
    }
    by_part.push_back(entry);
  }
  ClaimResult r;
  r.numbers = {{"h", s.h},
               {"band", s.band},
               {"nodes", nodes},
               {"nodes_rounding_only", rounding_only},
               {"max_rounding_over_band_h", worst},
               {"max_rounding_h", worst * s.band},
               {"bound_2_to_minus_24", bound},
               {"claimed", 6e-8},
               {"worst_node", worst_node},
               {"by_part", by_part}};
  if (nodes == 0) {
    r.verdict = Verdict::inconclusive;
    r.evidence = "no stored nodes to compare";
    return r;
  }
  const std::string other_text =
      other == 0 ? std::string()
                 : " At " + std::to_string(other) + " nodes the float value is not the rounding of the double one, "
                                                    "because that part's density map is stored in float too; they "
                                                    "differ by up to " + evidence_number(worst_other) +
                       " of band*h, which is field.density_store's error, not this rounding.";
  if (worst <= bound) {
    r.verdict = Verdict::verified;
    r.evidence = "Over " + std::to_string(rounding_only) + " stored nodes of the run's parts (h = " +
                 evidence_number(s.h) + ", band " + evidence_number(s.band) + ") the float rounding is at most " +
                 evidence_number(worst) + " of band*h, within 2^-24 = 5.96e-8 (half a float ulp of a value no larger "
                 "than band*h): about " + evidence_number(worst * s.band) + " h." + other_text;
  } else {
    r.verdict = Verdict::refuted;
    r.evidence = "A stored float differs from its double value by " + evidence_number(worst) +
                 " of band*h, more than 2^-24." + other_text;
    r.counterexample = worst_node;
  }
  return r;
}

}  // namespace distgrid::audit::claim_checks
