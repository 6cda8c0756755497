#pragma once
// Tightening budgets that a baseline report beats by a wide margin (the
// "ratchet"): a budget is lowered to the baseline's measurement times 2^margin,
// so it keeps that many bits of headroom and no more. The budgets file is
// edited in place as text (its layout and every other byte kept), so the
// change reads as a small diff.
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace distgrid::audit {

/// One budget the ratchet lowers.
struct RatchetChange {
  std::size_t index = 0;  ///< position in the file's "budgets"
  std::string id, storage, metric;
  double measured = 0, old_max = 0, new_max = 0;
  std::size_t first_line = 0, last_line = 0;  ///< 1-based lines of the budget's object in the file
};

struct Ratchet {
  std::string text;  ///< the budgets file with the changes made
  std::vector<RatchetChange> changes;
  std::size_t budgets = 0;      ///< budgets in the file
  std::size_t not_measured = 0; ///< budgets whose metric the baseline has no number for
};

/// Budgets of the file at `budgets_path` (distgrid-audit-gates/1) that the
/// baseline's measurement beats by more than `margin_bits` (max > measured
/// * 2^margin_bits, measured > 0) lowered to measured * 2^margin_bits rounded
/// up to two significant digits; each changed "why" says so, naming the
/// baseline's revision. A budget measured 0 or at 0, an error model and an
/// informational budget are left alone. Throws
/// distgrid::Error(badfile) for a malformed budgets file or baseline and
/// Error(badarg) for a margin that is negative or not finite.
Ratchet ratchet_budgets(const std::string& budgets_path, const nlohmann::json& baseline, double margin_bits);

/// The change as a diff: per budget a header naming it and the lines of its
/// object before ("-") and after ("+"). `before` is the file's text.
std::string ratchet_diff(const std::string& before, const Ratchet& ratchet);

}  // namespace distgrid::audit
