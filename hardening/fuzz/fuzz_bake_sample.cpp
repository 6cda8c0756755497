// Fuzz target for bake-then-sample on small specs: the spec is the input; the
// voxel size is chosen from the part's box so the plan stays small (at most
// 64 voxels across, and a memory budget of 64 MiB), then the grid is sampled
// at the box's corners and centre and its volume taken. Any NaN read back from
// a baked grid is a finding.
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "distgrid/bake.hpp"
#include "distgrid/field_json.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  distgrid::fuzz::expect_typed_errors_only([&] {
    const distgrid::Field<float> field =
        distgrid::compile_field_text<float>(distgrid::fuzz::as_text(data, size), "fuzz-input");
    const distgrid::Box box = field.bounds();
    if (!box.finite() || box.empty()) return;
    double extent = 0;
    for (std::size_t a = 0; a < 3; ++a) extent = std::max(extent, box.hi[a] - box.lo[a]);
    distgrid::BakeSettings settings;
    settings.h = extent > 0 ? extent / 64 : 1;
    settings.threads = 1;
    settings.max_memory_bytes = std::uint64_t{64} << 20;
    const distgrid::Grid<float> grid = distgrid::bake(field, settings);
    const double points[][3] = {{box.lo[0], box.lo[1], box.lo[2]},
                                {box.hi[0], box.hi[1], box.hi[2]},
                                {(box.lo[0] + box.hi[0]) / 2, (box.lo[1] + box.hi[1]) / 2, (box.lo[2] + box.hi[2]) / 2}};
    for (const auto& p : points)
      if (std::isnan(grid.sample(p[0], p[1], p[2]))) std::abort();
    if (std::isnan(grid.volume())) std::abort();
  });
  return 0;
}
