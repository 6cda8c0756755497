#pragma once
// Whole-file reading and crash-safe writing, with typed errors naming the path.
#include <string>
#include <string_view>

namespace distgrid {

/// The file's bytes. Throws Error(badfile) naming the path when it cannot be read.
std::string read_file(const std::string& path);

/// Writes the bytes to a temporary file beside `path`, then renames it over
/// `path`, so an interrupted or failed write never leaves a partial file under
/// that name (an existing file stays as it was). Throws Error(badfile) naming the path.
void replace_file(const std::string& path, std::string_view bytes);

}  // namespace distgrid
