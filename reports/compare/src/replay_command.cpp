#include "distgrid/reports/replay_command.hpp"

#include <string_view>

namespace distgrid::reports {

std::string shell_word(const std::string& word) {
  constexpr std::string_view kPlain =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,/:=+@%^";
  if (!word.empty() && word.find_first_not_of(kPlain) == std::string::npos) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string replay_command(const ReplayTarget& target) {
  std::string command = "distgrid-audit replay " + shell_word(target.report) + " --calc " + shell_word(target.id) +
                        " --storage " + shell_word(target.storage) + " --rank " + std::to_string(target.rank);
  if (target.error != "error") command += " --error " + shell_word(target.error);
  return command;
}

}  // namespace distgrid::reports
