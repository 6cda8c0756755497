#pragma once
// Pieces both pages show: the head, the gate banner at the top, the change of
// a figure against a baseline report, and the share of inputs within budget.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "distgrid/reports/compare.hpp"

namespace distgrid::render::detail {

/// Everything before a page's content: doctype, head with the title and the
/// inline style sheet, and the opening of <body> and <main>.
std::string page_start(const std::string& title);

/// The banner at the top of a page: whether the report's gates passed and how
/// many budget checks fell short; `subject` names the report ("this report",
/// "the newest report (#4, abc123)"); `more` is appended inside it (HTML).
std::string gate_banner(const nlohmann::json& report, const std::string& subject, const std::string& more = "");

/// Every figure of a report against a baseline (distgrid::reports::compare_reports,
/// unlike settings allowed and said).
class BaselineChanges {
 public:
  BaselineChanges() = default;
  BaselineChanges(const nlohmann::json& baseline, const nlohmann::json& report, std::string baseline_name);

  bool active() const noexcept { return active_; }
  /// " <span class="change ...">+2.00 bits</span>" beside the figure at `metric`
  /// of the entry (a compare row name such as "error/h/max"); "" without a baseline.
  std::string note(const nlohmann::json& entry, std::string_view metric) const;
  /// The same for a gate check's JSON pointer (/error/h/max, /decisions/0/misclassified).
  std::string note_for_pointer(const nlohmann::json& entry, const std::string& pointer) const;
  /// What the banner says about the baseline (HTML).
  std::string summary() const;

 private:
  bool active_ = false;
  std::string name_, revision_;
  reports::Comparison comparison_;
  std::map<std::string, std::size_t> rows_;  // "id storage metric" -> position in comparison_.rows
};

/// The entry's headline share within budget for a table cell ("—" without one).
std::string confidence_cell(const nlohmann::json& entry);
/// The entry's shares within budget per budget and generator, as a table ("" without any).
std::string confidence_table(const nlohmann::json& entry);

}  // namespace distgrid::render::detail
