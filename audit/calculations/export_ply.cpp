// export.ply: numbers as written to PLY ASCII (17 significant digits) and binary little-endian (float64), read back from the bytes by the
// audit's own reader and compared with the mesh's doubles. Shared machinery:
// export_audit.hpp.
#include "export_audit.hpp"

namespace distgrid::audit::runs {

namespace {

constexpr export_audit::Format kFormats[] = {{MeshFormat::ply_ascii, "ply_ascii"}, {MeshFormat::ply_binary, "ply_binary"}};

const export_audit::Spec kSpec{"export.ply", kFormats, std::size(kFormats)};

}  // namespace

std::vector<CalculationResult> run_export_ply(RunContext& context) { return export_audit::run(kSpec, context); }

std::vector<ReplayValue> replay_export_ply(RunContext& context, const ReplayRequest& request) {
  return export_audit::replay(kSpec, context, request);
}

}  // namespace distgrid::audit::runs
