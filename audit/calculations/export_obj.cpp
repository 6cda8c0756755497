#include "export_audit.hpp"

namespace distgrid::audit::calcs {

namespace {
std::vector<CalculationResult> run(RunContext& context);
std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request);
}  // namespace

Calculation export_obj() {
  return {
      .id = "export.obj",
      .title = "Numbers written to OBJ",
      .declared = PrecisionClass::exact,
      .sources = {{"core/src/mesh_write.cpp", "obj"}, {"core/src/mesh_write.cpp", "append_number"}},
      .formula = "each corner and normal coordinate printed with 17 significant digits, which reads back to the same "
                 "double",
      .inputs = "per part and storage: the first --inputs triangles of the surface-nets mesh (with normals), at the "
                "origin and moved ~5e5 h away; per run: --inputs random corners (exponents 2^-16 .. 2^25, signed "
                "zeros)",
      .implementation = "write_mesh with MeshFormat::obj into a temporary directory",
      .reference = "the written text read back by the audit's own OBJ reader (strtod)",
      .errors = "error: |read corner - mesh corner| in h and in ulps of the mesh's coordinate. mismatches: corner or "
                "normal numbers that do not read back bit for bit, and faces that differ. No arithmetic / storage / "
                "method split.",
      .run = &run,
      .replay = &replay,
      .parts_taken = PartsTaken::grid,
  };
}

namespace {

constexpr export_audit::Format kFormats[] = {{MeshFormat::obj, "obj"}};

const export_audit::Spec kSpec{"export.obj", kFormats, std::size(kFormats)};


std::vector<CalculationResult> run(RunContext& context) { return export_audit::run(kSpec, context); }

std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request) {
  return export_audit::replay(kSpec, context, request);
}

}  // namespace

}  // namespace distgrid::audit::calcs
