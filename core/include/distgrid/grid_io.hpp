#pragma once
// .dgrid files: versioned little-endian binary (see grid_io.cpp for the layout)
// with the storage (its id), h, band, where the grid came from, keys, the
// storage's codes and brick parameters exactly as held, and a checksum. Saving writes a temporary file beside the target and renames it, so an
// interrupted save never leaves a broken file under the target name.
#include <string>
#include <string_view>
#include <variant>

#include "distgrid/grid.hpp"

namespace distgrid {

/// A grid of any of the five storages (storage.hpp), as a file holds it.
using AnyGrid = std::variant<Grid<float>, Grid<double>, Grid<Half>, Grid<Q16>, Grid<Q8>>;

/// Writes the grid and `origin`, a text saying where it came from (the tools write
/// a JSON object: tool and version, spec, part or mesh). Loading gives back the
/// same codes and parameters, bit for bit. Throws what replace_file
/// throws (file_io.hpp): Error(badfile) naming the path when it cannot be written.
template <class S>
void save_grid(const Grid<S>& grid, const std::string& path, std::string_view origin = {});

/// Throws Error(badfile) naming the path and the byte offset for a missing,
/// truncated, corrupt or unsupported file. `origin`, when given, receives the
/// origin text (empty for a version 1 file, which has none).
AnyGrid load_grid(const std::string& path, std::string* origin = nullptr);

/// The same from the file's bytes; `path` only names the input in errors.
AnyGrid parse_grid(std::string_view bytes, const std::string& path, std::string* origin = nullptr);

}  // namespace distgrid
