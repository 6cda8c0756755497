#include "export_audit.hpp"

namespace distgrid::audit::calcs {

namespace {
std::vector<CalculationResult> run(RunContext& context);
std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request);
}  // namespace

Calculation export_stl() {
  return {
      .id = "export.stl",
      .title = "Numbers written to STL",
      .declared = PrecisionClass::bits32_in_part,
      .sources = {{"core/src/mesh_write.cpp", "binary_stl"},
                  {"core/src/mesh_write.cpp", "ascii_stl"},
                  {"core/src/mesh_write.cpp", "append_f32_le"},
                  {"core/src/mesh_write.cpp", "append_number"}},
      .formula = "binary STL: each corner coordinate rounded to the nearest float32 (little-endian); ASCII STL: "
                 "printed with 17 significant digits",
      .inputs = "per part and storage: the first --inputs triangles of the surface-nets mesh, at the origin and moved "
                "~5e5 h away; per run: --inputs random corners (exponents 2^-16 .. 2^25, signed zeros)",
      .implementation = "write_mesh with MeshFormat::stl_binary and stl_ascii into a temporary directory",
      .reference = "the written bytes read back by the audit's own STL readers (float32 from the binary layout, "
                   "strtod for text); the float nearest each double checked from its two neighbours",
      .errors = "error: |read corner - mesh corner| in h and in ulps of the mesh's coordinate (no floor). Binary STL "
                "is the 32-bit exchange step; ASCII STL must read back bit for bit. mismatches: ASCII numbers that do "
                "not read back exactly, binary floats that are not the nearest float, and facet normals that are not the "
                "unit normal of their corners (right-hand rule) within 1e-6. Nothing stored or "
                "discretised: no arithmetic / storage / method split.",
      .run = &run,
      .replay = &replay,
      .parts_taken = PartsTaken::grid,
  };
}

namespace {

constexpr export_audit::Format kFormats[] = {{MeshFormat::stl_binary, "stl_binary"}, {MeshFormat::stl_ascii, "stl_ascii"}};

const export_audit::Spec kSpec{"export.stl", kFormats, std::size(kFormats)};


std::vector<CalculationResult> run(RunContext& context) { return export_audit::run(kSpec, context); }

std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request) {
  return export_audit::replay(kSpec, context, request);
}

}  // namespace

}  // namespace distgrid::audit::calcs
