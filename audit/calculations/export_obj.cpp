// export.obj: numbers as written to OBJ corners and normals (17 significant digits), read back from the bytes by the
// audit's own reader and compared with the mesh's doubles. Shared machinery:
// export_audit.hpp.
#include "export_audit.hpp"

namespace distgrid::audit::runs {

namespace {

constexpr export_audit::Format kFormats[] = {{MeshFormat::obj, "obj"}};

const export_audit::Spec kSpec{"export.obj", kFormats, std::size(kFormats)};

}  // namespace

std::vector<CalculationResult> run_export_obj(RunContext& context) { return export_audit::run(kSpec, context); }

std::vector<ReplayValue> replay_export_obj(RunContext& context, const ReplayRequest& request) {
  return export_audit::replay(kSpec, context, request);
}

}  // namespace distgrid::audit::runs
