#pragma once
// The `distgrid-audit replay` command line that recomputes one kept input of a
// report: what the gate, the policy page and the comparison's Markdown print,
// written in one place so that each runs as printed.
#include <cstddef>
#include <string>

namespace distgrid::reports {

struct ReplayTarget {
  std::string report;  ///< the report's path, as the command names it
  std::string id;      ///< the calculation
  std::string storage; ///< "float" or "double"
  std::size_t rank = 1;
  /// The kept list: "error", "arithmetic", "storage", "method" or a decision's name.
  std::string error = "error";
};

/// "distgrid-audit replay REPORT --calc ID --storage S --rank N [--error Q]",
/// --error left out for "error" (replay's default); a word a POSIX shell would
/// split or expand is single-quoted.
std::string replay_command(const ReplayTarget& target);

/// `word` as one word of a POSIX shell command line: as it is when it holds only
/// letters, digits and `_-.,/:=+@%^`, else in single quotes.
std::string shell_word(const std::string& word);

}  // namespace distgrid::reports
