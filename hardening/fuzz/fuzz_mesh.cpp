// Fuzz target for the mesh readers, then welding and the validation report.
// DISTGRID_FUZZ_MESH_FORMAT selects the reader the bytes reach first: the
// content decides the format, so a fixed prefix keeps each target in one reader.
#include <string>
#include <string_view>

#include "distgrid/mesh_io.hpp"
#include "distgrid/mesh_prepare.hpp"
#include "fuzz_input.hpp"

namespace {
// By DISTGRID_FUZZ_MESH_FORMAT: 0 binary STL, 1 ASCII STL, 2 OBJ, 3 PLY.
constexpr std::string_view kPrefixes[] = {"", "solid ", "# obj\n", "ply\n"};
constexpr std::string_view kPrefix = kPrefixes[DISTGRID_FUZZ_MESH_FORMAT];
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes = std::string(kPrefix) + std::string(distgrid::fuzz::as_text(data, size));
  distgrid::fuzz::expect_typed_errors_only([&] {
    const distgrid::TriangleMesh mesh = distgrid::parse_mesh(bytes, "fuzz-input");
    distgrid::prepare_mesh(mesh, "fuzz-input", /*allow_open=*/true);
  });
  return 0;
}
