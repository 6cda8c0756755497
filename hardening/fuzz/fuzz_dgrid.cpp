// Fuzz target for .dgrid files. The checksum is recomputed over the fuzzed
// bytes first, so inputs reach the body's checks instead of all failing the
// checksum; a grid that loads is then sampled and measured.
#include <cstring>
#include <string>
#include <variant>

#include "distgrid/grid_io.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string bytes(distgrid::fuzz::as_text(data, size));
  if (bytes.size() >= 8) {
    std::uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a 64, as grid_io writes it
    for (std::size_t n = 0; n + 8 < bytes.size(); ++n) {
      hash ^= static_cast<unsigned char>(bytes[n]);
      hash *= 0x100000001b3ull;
    }
    std::memcpy(bytes.data() + bytes.size() - 8, &hash, 8);
  }
  distgrid::fuzz::expect_typed_errors_only([&] {
    const distgrid::AnyGrid grid = distgrid::parse_grid(bytes, "fuzz-input");
    std::visit(
        [](const auto& g) {
          (void)g.sample(0.1, -0.2, 0.3);
          (void)g.gradient(0.1, -0.2, 0.3);
          (void)g.volume();
          (void)g.world_box();
        },
        grid);
  });
  return 0;
}
