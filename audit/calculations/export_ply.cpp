#include "export_audit.hpp"

namespace distgrid::audit::calcs {

namespace {
std::vector<CalculationResult> run(RunContext& context);
std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request);
}  // namespace

Calculation export_ply() {
  return {
      .id = "export.ply",
      .title = "Numbers written to PLY",
      .declared = PrecisionClass::exact,
      .sources = {{"core/src/mesh_write.cpp", "ply"},
                  {"core/src/mesh_write.cpp", "append_f64_le"},
                  {"core/src/mesh_write.cpp", "append_number"}},
      .formula = "ASCII PLY: 17 significant digits per number; binary little-endian PLY: float64 properties, the "
                 "double's own bits",
      .inputs = "per part and storage: the first --inputs triangles of the surface-nets mesh (with normals), at the "
                "origin and moved ~5e5 h away; per run: --inputs random corners (exponents 2^-16 .. 2^25, signed "
                "zeros)",
      .implementation = "write_mesh with MeshFormat::ply_ascii and ply_binary into a temporary directory",
      .reference = "the written bytes read back by the audit's own PLY reader (header parsed, float64 from the binary "
                   "layout, strtod for text)",
      .errors = "error: |read corner - mesh corner| in h and in ulps of the mesh's coordinate. mismatches: numbers "
                "that do not read back bit for bit, and faces that differ. No arithmetic / storage / method split.",
      .run = &run,
      .replay = &replay,
      .parts_taken = PartsTaken::grid,
  };
}

namespace {

constexpr export_audit::Format kFormats[] = {{MeshFormat::ply_ascii, "ply_ascii"}, {MeshFormat::ply_binary, "ply_binary"}};

const export_audit::Spec kSpec{"export.ply", kFormats, std::size(kFormats)};


std::vector<CalculationResult> run(RunContext& context) { return export_audit::run(kSpec, context); }

std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request) {
  return export_audit::replay(kSpec, context, request);
}

}  // namespace

}  // namespace distgrid::audit::calcs
