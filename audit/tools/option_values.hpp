#pragma once
// How distgrid-audit's commands read option values: every value that cannot be
// used is Error(badarg) naming the option and the value (exit 1), an output
// that cannot be written is refused before any work. Bad usage (exit 2) stays
// for an unknown option, a missing value and a missing argument.
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "distgrid/command_line.hpp"
#include "distgrid/error.hpp"
#include "distgrid/file_io.hpp"

namespace distgrid::audit::tool {

/// A whole number in [lo, hi] given with `option`.
inline unsigned long long count_value(const std::string& text, const std::string& option, unsigned long long lo,
                                      unsigned long long hi) {
  return command_line::parse_count(text, option, lo, hi, command_line::BadValue::badarg);
}

/// A finite number at least `lo` (or above it) given with `option`.
inline double number_value(const std::string& text, const std::string& option, double lo, command_line::Bound bound) {
  return command_line::parse_finite(text, option, lo, bound, command_line::BadValue::badarg);
}

/// Error(badarg) unless `dir`, given with `option`, is a folder.
inline void check_folder(const std::string& option, const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw Error(ErrorCode::badarg,
                option + " " + dir + ": " + (std::filesystem::exists(dir, ec) ? "not a folder" : "no such folder"));
}

/// The files the given options name, checked before the command's work
/// (check_output_path): badarg for a folder, badfile for a folder that does not exist.
inline void check_outputs(const command_line::Arguments& args, const std::vector<std::string>& options) {
  for (const std::string& option : options)
    if (auto path = args.get(option)) check_output_path(*path);
}

}  // namespace distgrid::audit::tool
