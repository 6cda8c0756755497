#pragma once
// What the distgrid commands share in their output: numbers in tables to six
// significant digits (full precision goes to hex-float beside them, to --json and
// to data lines), the tool's version, the origin text saved with a grid, and the
// --storage option of both bakes.
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/command_line.hpp"
#include "distgrid/detail/parallel.hpp"
#include "distgrid/error.hpp"
#include "distgrid/storage.hpp"

namespace distgrid::tools {

/// "0.1.0 (git 1234abcd5678)": the project version and the git revision configured.
extern const char* const kToolVersion;

/// A number for a table: 6 significant digits ("0.0625", "4.18879", "1.2e-07").
inline std::string table_number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

/// A number that reads back to the same double: 17 significant digits.
inline std::string exact_number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

/// Hex-float, exact ("0x1.8p-5").
inline std::string hex_number(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%a", v);
  return text;
}

/// "on 1 thread", "on 4 threads": the worker threads a --threads value (0: all) gives.
inline std::string threads_used(unsigned requested) {
  const unsigned count = detail::resolve_thread_count(requested);
  return "on " + std::to_string(count) + (count == 1 ? " thread" : " threads");
}

/// FNV-1a 64 of the bytes as 16 hex digits: names an input's exact content.
inline std::string content_hash(const std::string& bytes) {
  unsigned long long hash = 0xcbf29ce484222325ull;
  for (const char byte : bytes) {
    hash ^= static_cast<unsigned char>(byte);
    hash *= 0x100000001b3ull;
  }
  char text[20];
  std::snprintf(text, sizeof text, "%016llx", hash);
  return text;
}

/// The origin object saved with a grid: the tool and its version, what the grid was
/// baked from ("spec", "part" or "mesh") and its name; callers add details.
inline nlohmann::json grid_origin(const std::string& from, const std::string& input) {
  return {{"tool", std::string("distgrid ") + kToolVersion}, {"from", from}, {"input", input}};
}

/// The --storage option's value (default "float"), one of the five storages'
/// names; Error(badarg) naming the storages (and the nearest) for any other value.
inline std::string storage_option(const command_line::Arguments& args) {
  const std::string name = args.get("--storage").value_or("float");
  const std::vector<std::string> names{"float", "double", "half", "q16", "q8"};
  for (const std::string& known : names)
    if (name == known) return name;
  throw Error(ErrorCode::badarg, "--storage: unknown storage '" + name + "' (" + std::string(kStorageNames) + ")" +
                                     command_line::did_you_mean(name, names));
}

}  // namespace distgrid::tools
