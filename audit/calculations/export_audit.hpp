#pragma once
// What export.stl, export.obj and export.ply share: meshes to write, writing
// them with core's write_mesh into a temporary directory, reading the bytes
// back with the audit's own readers (reference/mesh_files.hpp), and comparing
// every number with the mesh's double it was written from.
//
// Sources of meshes (each a stratum per format):
//   contour  the first `inputs` triangles of the part's surface-nets mesh;
//   far      the same triangles moved by the run's far offset (|x|/h ~ 5e5);
//   random   `inputs` corners with random signs, significands and exponents
//            2^-16 .. 2^25 (|x|/h up to ~2e9), one in 16 a signed zero, and
//            random normals (one mesh per run, not per part).
// A number is exact when it reads back bit for bit (the sign of zero included);
// binary STL's float32 must be the float nearest the double (ties to even).
#include <cstddef>
#include <string_view>
#include <vector>

#include "distgrid/audit/calculation.hpp"
#include "distgrid/audit/run.hpp"
#include "distgrid/mesh_io.hpp"

namespace distgrid::audit::calcs::export_audit {

struct Format {
  MeshFormat format;
  const char* name;
};

struct Spec {
  std::string_view id;
  const Format* formats;
  std::size_t format_count;
};

/// Every format's strata over the run's parts and the random mesh, one result per storage.
std::vector<CalculationResult> run(const Spec& spec, RunContext& context);
/// Recomputes the numbers of one recorded position.
std::vector<ReplayValue> replay(const Spec& spec, RunContext& context, const ReplayRequest& request);

}  // namespace distgrid::audit::calcs::export_audit
