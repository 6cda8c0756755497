#pragma once
// Whole-file reading and crash-safe writing, with typed errors naming the path.
#include <string>
#include <string_view>

namespace distgrid {

/// The file's bytes. Throws Error(badarg) naming the path when it is a folder and
/// Error(badfile) when it cannot be read.
std::string read_file(const std::string& path);

/// Throws Error(badarg) when `path` names a folder (or ends in '/') and
/// Error(badfile) when its folder does not exist: what replace_file would refuse,
/// checked before a long run rather than after it.
void check_output_path(const std::string& path);

/// Writes the bytes to a temporary file beside `path`, flushes it to disk
/// (fsync), then renames it over `path`: a run killed at any moment leaves the
/// old file or the new one under that name, never a partial one (a killed run
/// may leave its `<path>.tmp.<pid>` behind). Throws what check_output_path throws,
/// Error(badfile) naming the path when writing fails, and Error(interrupted),
/// removing the temporary file, when an interrupt arrives while writing.
void replace_file(const std::string& path, std::string_view bytes);

}  // namespace distgrid
