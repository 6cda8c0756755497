// export.stl: numbers as written to binary STL (float32 numbers: the 32-bit exchange step) and ASCII STL (17 significant digits), read back from the bytes by the
// audit's own reader and compared with the mesh's doubles. Shared machinery:
// export_audit.hpp.
#include "export_audit.hpp"

namespace distgrid::audit::runs {

namespace {

constexpr export_audit::Format kFormats[] = {{MeshFormat::stl_binary, "stl_binary"}, {MeshFormat::stl_ascii, "stl_ascii"}};

const export_audit::Spec kSpec{"export.stl", kFormats, std::size(kFormats)};

}  // namespace

std::vector<CalculationResult> run_export_stl(RunContext& context) { return export_audit::run(kSpec, context); }

std::vector<ReplayValue> replay_export_stl(RunContext& context, const ReplayRequest& request) {
  return export_audit::replay(kSpec, context, request);
}

}  // namespace distgrid::audit::runs
