// Both tools as a user first meets them: --version, --help after any subcommand,
// and distgrid-audit's list in aligned columns.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/scratch_dir.hpp"

namespace {

using distgrid::test_support::CliResult;
using distgrid::test_support::run_command;

TEST(Tools, BothPrintTheirVersionAndGitRevision) {
  for (const auto& [tool, name] : {std::pair{DISTGRID_CLI, "distgrid"}, std::pair{DISTGRID_AUDIT_CLI, "distgrid-audit"}}) {
    const CliResult r = run_command(std::string(tool) + " --version");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_TRUE(std::regex_match(r.out, std::regex(std::string(name) + R"( [0-9]+\.[0-9]+\.[0-9]+ \(git [0-9a-z]+\)\n)")))
        << r.out;
  }
}

TEST(Tools, AuditHelpWorksAfterAnySubcommandAlsoWhereAValueWasExpected) {
  for (const char* args : {"run --out --help", "gate --budgets --help", "replay r.json --calc --help", "merge --help",
                           "render r.json --out --help", "list --help"}) {
    const CliResult r = run_command(std::string(DISTGRID_AUDIT_CLI) + " " + args);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.out;
    EXPECT_NE(r.out.find("usage: distgrid-audit"), std::string::npos) << args << "\n" << r.out;
  }
}

TEST(Tools, AuditListPrintsEachSectionInAlignedColumns) {
  const CliResult r = run_command(std::string(DISTGRID_AUDIT_CLI) + " list");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  // Per section, the second column starts at the same place on every row: after the
  // longest first column and two spaces.
  std::istringstream lines(r.out);
  std::string line, section;
  std::vector<std::string> rows;
  auto check_section = [&] {
    if (rows.size() < 2 || section == "built-in mesh parts:") return;
    std::size_t longest = 0;
    for (const std::string& row : rows) longest = std::max(longest, row.find(' ', 2) - 2);
    for (const std::string& row : rows) {
      const std::size_t first_end = row.find(' ', 2);
      EXPECT_EQ(row.find_first_not_of(' ', first_end), 2 + longest + 2) << section << "\n" << row;
    }
  };
  while (std::getline(lines, line)) {
    if (line.rfind("  ", 0) == 0) {
      rows.push_back(line);
      continue;
    }
    check_section();
    section = line;
    rows.clear();
  }
  check_section();
  EXPECT_NE(r.out.find("calculations:\n  bake.plan "), std::string::npos) << r.out;
}

}  // namespace
