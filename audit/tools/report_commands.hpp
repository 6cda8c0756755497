#pragma once
// distgrid-audit's commands over finished reports: compare (a report against a
// baseline), history (the accuracy history page) and budgets --ratchet.
// Each takes the tool's argc/argv and returns its exit code.
namespace distgrid::audit::tool {

int compare_command(int argc, char** argv);
int history_command(int argc, char** argv);
int budgets_command(int argc, char** argv, const char* default_budgets);

}  // namespace distgrid::audit::tool
