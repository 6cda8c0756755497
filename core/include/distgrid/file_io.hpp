#pragma once
// Whole-file reading and crash-safe writing, with typed errors naming the path.
#include <string>
#include <string_view>

namespace distgrid {

/// The file's bytes. Throws Error(badfile) naming the path when it cannot be read.
std::string read_file(const std::string& path);

/// Writes the bytes to a temporary file beside `path`, flushes it to disk
/// (fsync), then renames it over `path`: a run killed at any moment leaves the
/// old file or the new one under that name, never a partial one (a killed run
/// may leave its `<path>.tmp.<pid>` behind). Throws Error(badfile) naming the path.
void replace_file(const std::string& path, std::string_view bytes);

}  // namespace distgrid
