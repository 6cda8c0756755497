#pragma once
// .dgrid files: versioned little-endian binary (see grid_io.cpp for the layout)
// with storage type, h, band, keys, values and a checksum. Saving writes a
// temporary file beside the target and renames it, so an interrupted save never
// leaves a broken file under the target name.
#include <string>
#include <string_view>
#include <variant>

#include "distgrid/grid.hpp"

namespace distgrid {

using AnyGrid = std::variant<Grid<float>, Grid<double>>;

/// Throws Error(badfile) naming the path when it cannot be written.
template <class S>
void save_grid(const Grid<S>& grid, const std::string& path);

/// Throws Error(badfile) naming the path and the byte offset for a missing,
/// truncated, corrupt or unsupported file.
AnyGrid load_grid(const std::string& path);

/// The same from the file's bytes; `path` only names the input in errors.
AnyGrid parse_grid(std::string_view bytes, const std::string& path);

}  // namespace distgrid
