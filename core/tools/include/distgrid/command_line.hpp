#pragma once
// What the command-line tools share: argument parsing (with "did you mean" for a
// misspelt option), number parsing, the error-to-exit-code rule and progress on a
// terminal.
// Exit codes: 0 success, 1 failure (a typed error, printed as
// '<tool>: <code>: <message>'), 2 bad usage, 130 stopped by Ctrl-C or SIGTERM.
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "distgrid/error.hpp"
#include "distgrid/interrupt.hpp"

namespace distgrid::command_line {

/// A command line that cannot be understood: exit code 2.
struct UsageError {
  std::string message;
};

/// Edit distance between two words: insertions, deletions, substitutions and swaps
/// of neighbouring letters, one each.
std::size_t edit_distance(const std::string& a, const std::string& b);

/// " (did you mean --band?)" naming the candidates within edit distance 2 of `word`
/// (the nearest first, at most three), or "" when none is that near.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

/// The arguments after the command word: `--name value` options (some may repeat),
/// flags without a value, `--help` (anywhere, also where a value was expected, so
/// `--mesh --help` asks for help), and positional arguments.
struct Arguments {
  std::vector<std::pair<std::string, std::string>> options;
  std::vector<std::string> flags;
  std::vector<std::string> positional;
  bool help = false;

  static Arguments parse(int argc, char** argv, const std::vector<std::string>& valued,
                         const std::vector<std::string>& flag_names = {}) {
    Arguments args;
    std::optional<UsageError> first_error;  // reported unless --help comes later
    for (int n = 2; n < argc; ++n) {
      const std::string a = argv[n];
      if (a == "--help" || a == "-h") {
        args.help = true;
      } else if (a.rfind("--", 0) == 0) {
        if (contains(flag_names, a)) {
          args.flags.push_back(a);
          continue;
        }
        if (!contains(valued, a)) {
          std::vector<std::string> known(valued);
          known.insert(known.end(), flag_names.begin(), flag_names.end());
          known.emplace_back("--help");
          if (!first_error) first_error = UsageError{"unknown option " + a + did_you_mean(a, known)};
          continue;
        }
        if (n + 1 >= argc) {
          if (!first_error) first_error = UsageError{a + " needs a value"};
          continue;
        }
        const std::string value = argv[n + 1];
        if (contains(valued, value) || contains(flag_names, value)) {  // `--spec --h 0.1`: the value was left out
          if (!first_error) first_error = UsageError{a + " needs a value before " + value};
          continue;
        }
        ++n;
        if (value == "--help" || value == "-h") args.help = true;
        else args.options.emplace_back(a, value);
      } else {
        args.positional.push_back(a);
      }
    }
    if (first_error && !args.help) throw *first_error;
    return args;
  }
  bool has_flag(const std::string& name) const { return contains(flags, name); }
  std::vector<std::string> all(const std::string& name) const {
    std::vector<std::string> values;
    for (const auto& [key, value] : options)
      if (key == name) values.push_back(value);
    return values;
  }
  /// The value of an option given at most once.
  std::optional<std::string> get(const std::string& name) const {
    const std::vector<std::string> values = all(name);
    if (values.size() > 1) throw UsageError{name + " given twice"};
    if (values.empty()) return std::nullopt;
    return values.front();
  }

 private:
  static bool contains(const std::vector<std::string>& list, const std::string& item) {
    for (const std::string& x : list)
      if (x == item) return true;
    return false;
  }
};

/// How a value that cannot be used is refused. `distgrid` takes a malformed value
/// (a word where a number belongs) for bad usage and leaves what is out of range to
/// the library's typed errors; `distgrid-audit` refuses every unusable value with
/// Error(badarg) naming the option and the value (exit 1), keeping bad usage (exit
/// 2) for an unknown option, a missing value or a missing argument.
enum class BadValue { usage, badarg };

/// Throws UsageError or Error(badarg) with `message`, as `how` says.
[[noreturn]] inline void refuse_value(BadValue how, const std::string& message) {
  if (how == BadValue::badarg) throw Error(ErrorCode::badarg, message);
  throw UsageError{message};
}

/// A number in decimal or hex-float. Non-finite spellings ("nan", "inf") pass
/// through for the library to refuse with a typed error; overflow is refused.
inline double parse_number(const std::string& text, const std::string& what, BadValue how = BadValue::usage) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || (errno == ERANGE && std::isinf(v)))
    refuse_value(how, what + " expects a number, got '" + text + "'");
  return v;
}

/// Whether a bounded number may equal its bound.
enum class Bound { at_least, above };

/// A finite number in decimal or hex-float, at least `lo` (or above it).
inline double parse_finite(const std::string& text, const std::string& what, double lo, Bound bound,
                           BadValue how = BadValue::usage) {
  const double v = parse_number(text, what, how);
  const bool in_range = bound == Bound::above ? v > lo : v >= lo;
  if (!std::isfinite(v) || !in_range) {
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", lo);
    refuse_value(how, what + " expects a finite number " + (bound == Bound::above ? "> " : ">= ") + limit +
                          ", got '" + text + "'");
  }
  return v;
}

/// A whole number in [lo, hi].
inline unsigned long long parse_count(const std::string& text, const std::string& what, unsigned long long lo,
                                      unsigned long long hi, BadValue how = BadValue::usage) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || end != text.c_str() + text.size() || errno == ERANGE || v < lo || v > hi)
    refuse_value(how, what + " expects a whole number in " + std::to_string(lo) + ".." + std::to_string(hi) +
                          ", got '" + text + "'");
  return v;
}

/// A size in bytes: a whole number with an optional binary unit K, M, G or T
/// (1024-based; "KiB", "MB" and the like are read the same), e.g. "512M", "8GiB".
inline unsigned long long parse_bytes(const std::string& text, const std::string& what) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  std::string unit = text.substr(digits);
  for (const char* suffix : {"iB", "B"})
    if (unit.size() > 1 && unit.size() >= std::string(suffix).size() &&
        unit.compare(unit.size() - std::string(suffix).size(), std::string::npos, suffix) == 0) {
      unit.resize(unit.size() - std::string(suffix).size());
      break;
    }
  int shift = -1;
  if (unit.empty() || unit == "B") shift = 0;
  else if (unit == "K" || unit == "k") shift = 10;
  else if (unit == "M") shift = 20;
  else if (unit == "G") shift = 30;
  else if (unit == "T") shift = 40;
  const std::string usage = what + " expects a size such as 4096, 512M or 8G, got '" + text + "'";
  if (digits == 0 || shift < 0) throw UsageError{usage};
  const unsigned long long count = parse_count(text.substr(0, digits), what, 1, ~0ull >> shift);
  return count << shift;
}

/// Exit code of a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
inline constexpr int kInterruptedExitCode = 130;

/// Runs a tool's body and turns what it throws into a message and an exit code.
/// Installs the Ctrl-C handlers first (interrupt.hpp).
template <class Body>
int run_tool(const char* tool, Body&& body) noexcept {
  install_interrupt_handlers();
  try {
    return body();
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: usage: %s\nrun '%s --help' for the commands and their options\n", tool,
                 e.message.c_str(), tool);
    return 2;
  } catch (const Error& e) {
    std::fprintf(stderr, "%s: %s: %s\n", tool, std::string(error_code_name(e.code())).c_str(), e.what());
    return e.code() == ErrorCode::interrupted ? kInterruptedExitCode : 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%s: toolarge: out of memory\n", tool);
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal: %s\n", tool, e.what());
    return 1;
  }
}

/// Progress of a command in named phases, on one stderr line redrawn at most ten
/// times a second, once the command has run for a second and only while stderr is a
/// terminal: the phase, its percent and rate when its size is known, the time so far.
/// Silent otherwise. With DISTGRID_PHASE_LOG set in the environment, the start of
/// each phase is also written as a line "<tool>: phase <name>" whatever stderr is (a
/// hook for tests that must act while a given phase runs). One caller at a time.
class Progress {
 public:
  explicit Progress(const char* tool);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// Starts a phase; `total` units of `unit` (0: size unknown).
  void phase(const char* name, std::size_t total = 0, const char* unit = "");
  /// Units of the current phase done so far.
  void update(std::size_t done);
  /// For the library's PhaseProgressFn: starts the phase (counting `unit`) when its name changes.
  void operator()(const char* name, std::size_t done, std::size_t total, const char* unit = "");
  /// Clears the line (also done on destruction).
  void finish();

 private:
  void draw(bool force);
  using Clock = std::chrono::steady_clock;
  const char* tool_;
  bool terminal_, log_phases_;
  Clock::time_point started_, phase_started_, drawn_{};
  std::string name_, unit_;
  std::size_t total_ = 0, done_ = 0;
  bool line_shown_ = false;
};

}  // namespace distgrid::command_line
