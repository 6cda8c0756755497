#pragma once
// Reading and writing triangle meshes: STL (binary and ASCII), OBJ, PLY (ASCII and
// binary little-endian). Readers throw Error(badfile) or Error(badmesh) naming the
// file and the line, record or byte offset; writers go through a temporary file
// and a rename, and throw Error(badfile) naming the path.
#include <string>
#include <string_view>

#include "distgrid/mesh.hpp"

namespace distgrid {

enum class MeshFormat { stl_binary, stl_ascii, obj, ply_ascii, ply_binary };

/// Reads a mesh; the format is chosen by content (the extension may lie).
/// Implemented in mesh_read.cpp.
TriangleMesh read_mesh(const std::string& path);

/// The same from the file's bytes; `path` only names the input in errors.
TriangleMesh parse_mesh(std::string_view bytes, const std::string& path);

/// Writes a mesh in the given format with enough digits or bits that a double
/// round-trips where the format allows (binary STL is float32 by definition).
/// Implemented in mesh_write.cpp.
void write_mesh(const TriangleMesh& mesh, const std::string& path, MeshFormat format);

/// Format from the file name's extension (.stl binary, .obj, .ply binary);
/// Error(badarg) for any other extension.
MeshFormat mesh_format_for_path(const std::string& path);

}  // namespace distgrid
