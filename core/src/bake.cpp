#include "distgrid/bake.hpp"

#include <array>
#include <cmath>
#include <string>

#include "distgrid/detail/parallel.hpp"
#include "distgrid/error.hpp"

namespace distgrid {

template <class S>
void bake_brick(const Field<S>& field, std::int64_t key, double h, double band_width, S* out,
                FieldScratch& scratch) {
  const BrickNodePositions at = brick_node_positions(key, h);
  // Left uninitialised: every element is written below (zeroing 16 KiB per brick
  // cost a fifth of the bake).
  std::array<double, kBrickNodes> x, y, z, f;
  for (std::size_t k = 0; k < 8; ++k)
    for (std::size_t j = 0; j < 8; ++j)
      for (std::size_t i = 0; i < 8; ++i) {
        const std::size_t n = i + 8 * j + 64 * k;
        x[n] = at.x[i];
        y[n] = at.y[j];
        z[n] = at.z[k];
      }
  field.eval_batch(x, y, z, f, scratch);
  int not_numbers = 0;
  for (std::size_t n = 0; n < kBrickNodes; ++n) {
    const double v = f[n];
    not_numbers += static_cast<int>(v != v);
    // clamp(v, -band_width, band_width), written so it compiles to max/min.
    const double at_least_low = v < -band_width ? -band_width : v;
    out[n] = static_cast<S>(at_least_low > band_width ? band_width : at_least_low);
  }
  if (not_numbers != 0) {
    for (std::size_t n = 0; n < kBrickNodes; ++n)
      if (std::isnan(f[n]))
        throw Error(ErrorCode::badspec, "the formula is not a number at (" + std::to_string(at.x[n & 7]) + ", " +
                                            std::to_string(at.y[(n >> 3) & 7]) + ", " +
                                            std::to_string(at.z[n >> 6]) + ")");
  }
}

template <class S>
Grid<S> bake_planned_bricks(const Field<S>& field, const Plan& plan, unsigned threads, const ProgressFn& progress) {
  Grid<S> grid(plan.h, plan.band);
  grid.reserve(plan.near_keys.size(), plan.inside_keys.size());
  std::vector<S*> targets;
  targets.reserve(plan.near_keys.size());
  for (std::int64_t key : plan.near_keys) targets.push_back(grid.add_brick_for_overwrite(key));
  for (std::int64_t key : plan.inside_keys) grid.add_inside(key);

  const double h = plan.h, band_width = plan.band * plan.h;
  const std::size_t total = targets.size();
  detail::parallel_chunks(
      total, threads, 64,
      [&](std::size_t begin, std::size_t end) {
        FieldScratch scratch;
        for (std::size_t n = begin; n < end; ++n)
          bake_brick(field, plan.near_keys[n], h, band_width, targets[n], scratch);
      },
      [&](std::size_t done) {
        if (progress) progress(done, total);
      });
  return grid;
}

template <class S>
Grid<S> bake(const Field<S>& field, const BakeSettings& settings, const ProgressFn& progress) {
  return bake_planned_bricks(field, plan_bricks(field, settings), settings.threads, progress);
}

template void bake_brick<float>(const Field<float>&, std::int64_t, double, double, float*, FieldScratch&);
template void bake_brick<double>(const Field<double>&, std::int64_t, double, double, double*, FieldScratch&);
template Grid<float> bake_planned_bricks<float>(const Field<float>&, const Plan&, unsigned, const ProgressFn&);
template Grid<double> bake_planned_bricks<double>(const Field<double>&, const Plan&, unsigned, const ProgressFn&);
template Grid<float> bake<float>(const Field<float>&, const BakeSettings&, const ProgressFn&);
template Grid<double> bake<double>(const Field<double>&, const BakeSettings&, const ProgressFn&);

}  // namespace distgrid
