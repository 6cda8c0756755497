#pragma once
// The storage comparison of a run with float and double bricks (and any of half,
// q16 and q8): every calculation's storage and method errors side by side, a
// column per storage; sign flips at nodes, contour differences, memory per brick
// and per grid, each storage against double; the verdict on the policy's open
// item (keep float and state the grid's resolution next to h, or move to
// double) and the smallest storage that is safe at the run's parts and h.
#include <nlohmann/json.hpp>

#include "distgrid/audit/refinement.hpp"

namespace distgrid::audit {

class RunContext;

/// Float's storage error counts as negligible where it is at most this share of
/// the method error (the discretisation a reader already accepts at that h).
inline constexpr double kNegligibleStorageShare = 0.01;

/// The report's "comparison" section. `calculation_entries` is the report's
/// "calculations" array: a row is made for every id with both storages whose
/// entries carry storage and method errors (and per part where the entry's
/// details.by_part gives them). The verdict rests on the refinement series'
/// cells (the run's parts at the series' h) and states its scope: the parts,
/// the h, the band and the range of |x|/h of the inputs (from
/// `settings_section`'s reach_voxels and largest_abs_x_over_h); with no cell it
/// gives no verdict and says why. Precondition: the run has both storages.
nlohmann::json comparison_json(RunContext& context, const nlohmann::json& calculation_entries,
                               const Refinement& refinement, const nlohmann::json& settings_section);

/// The comparison's "rows" alone, from the report's calculation entries and
/// its h (what merge recomputes once every shard's entries are joined).
nlohmann::json comparison_rows(const nlohmann::json& calculation_entries, double h);

/// The verdict on the smallest safe storage from the comparison's "storages"
/// section (its by_storage), its rows and the float verdict's scope: the
/// storage with the fewest bytes per brick that passes every check of the
/// rule it states, "double" when none does, "no verdict" with nothing
/// measured; each storage with what rules it out (the worst case per
/// quantity). A function of the report alone, so merge recomputes it with the
/// joined rows.
nlohmann::json storage_verdict(const nlohmann::json& storages, const nlohmann::json& rows,
                               const nlohmann::json& scope);

}  // namespace distgrid::audit
