#include "distgrid/bake.hpp"

#include <array>
#include <cmath>
#include <string>

#include "distgrid/detail/parallel.hpp"
#include "distgrid/error.hpp"

namespace distgrid {

template <class F>
void bake_brick(const Field<F>& field, std::int64_t key, double h, double band_width, double* out,
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
    out[n] = at_least_low > band_width ? band_width : at_least_low;
  }
  if (not_numbers != 0) {
    for (std::size_t n = 0; n < kBrickNodes; ++n)
      if (std::isnan(f[n]))
        throw Error(ErrorCode::badspec, "the formula is not a number at (" + std::to_string(at.x[n & 7]) + ", " +
                                            std::to_string(at.y[(n >> 3) & 7]) + ", " +
                                            std::to_string(at.z[n >> 6]) + ")");
  }
}

namespace {

// The plan's bricks computed into a grid of storage S: each brick's exact clamped
// values, then encoded into its slot.
template <class S, class F>
Grid<S> bake_into(const Field<F>& field, const Plan& plan, unsigned threads, const ProgressFn& progress) {
  Grid<S> grid(plan.h, plan.band);
  grid.reserve(plan.near_keys.size(), plan.inside_keys.size());
  for (std::int64_t key : plan.near_keys) grid.add_brick_room(key);
  for (std::int64_t key : plan.inside_keys) grid.add_inside(key);

  const double h = plan.h, band_width = plan.band * plan.h;
  const std::size_t total = plan.near_keys.size();
  detail::parallel_chunks(
      total, threads, 64,
      [&](std::size_t begin, std::size_t end) {
        FieldScratch scratch;
        std::array<double, kBrickNodes> values;  // every element written by bake_brick
        for (std::size_t n = begin; n < end; ++n) {
          bake_brick(field, plan.near_keys[n], h, band_width, values.data(), scratch);
          grid.set_brick(n, values);
        }
      },
      [&](std::size_t done) {
        if (progress) progress(done, total);
      });
  grid.pack();
  return grid;
}

// Settings with the storage's brick size, for the plan's memory check.
template <class S>
BakeSettings settings_for(const BakeSettings& settings) {
  BakeSettings own = settings;
  own.brick_bytes = kMaxBrickBytes<S>;
  return own;
}

}  // namespace

template <class S>
  requires std::same_as<S, FieldScalarOf<S>>
Grid<S> bake_planned_bricks(const Field<S>& field, const Plan& plan, unsigned threads, const ProgressFn& progress) {
  return bake_into<S>(field, plan, threads, progress);
}

template <class S>
  requires(!std::same_as<S, FieldScalarOf<S>>)
Grid<S> bake_planned_bricks(const Field<FieldScalarOf<S>>& field, const Plan& plan, unsigned threads,
                            const ProgressFn& progress) {
  return bake_into<S>(field, plan, threads, progress);
}

template <class S>
  requires std::same_as<S, FieldScalarOf<S>>
Grid<S> bake(const Field<S>& field, const BakeSettings& settings, const ProgressFn& progress) {
  return bake_into<S>(field, plan_bricks(field, settings_for<S>(settings)), settings.threads, progress);
}

template <class S>
  requires(!std::same_as<S, FieldScalarOf<S>>)
Grid<S> bake(const Field<FieldScalarOf<S>>& field, const BakeSettings& settings, const ProgressFn& progress) {
  return bake_into<S>(field, plan_bricks(field, settings_for<S>(settings)), settings.threads, progress);
}

template void bake_brick<float>(const Field<float>&, std::int64_t, double, double, double*, FieldScratch&);
template void bake_brick<double>(const Field<double>&, std::int64_t, double, double, double*, FieldScratch&);
template Grid<float> bake_planned_bricks<float>(const Field<float>&, const Plan&, unsigned, const ProgressFn&);
template Grid<double> bake_planned_bricks<double>(const Field<double>&, const Plan&, unsigned, const ProgressFn&);
template Grid<Half> bake_planned_bricks<Half>(const Field<double>&, const Plan&, unsigned, const ProgressFn&);
template Grid<Q16> bake_planned_bricks<Q16>(const Field<double>&, const Plan&, unsigned, const ProgressFn&);
template Grid<Q8> bake_planned_bricks<Q8>(const Field<double>&, const Plan&, unsigned, const ProgressFn&);
template Grid<float> bake<float>(const Field<float>&, const BakeSettings&, const ProgressFn&);
template Grid<double> bake<double>(const Field<double>&, const BakeSettings&, const ProgressFn&);
template Grid<Half> bake<Half>(const Field<double>&, const BakeSettings&, const ProgressFn&);
template Grid<Q16> bake<Q16>(const Field<double>&, const BakeSettings&, const ProgressFn&);
template Grid<Q8> bake<Q8>(const Field<double>&, const BakeSettings&, const ProgressFn&);

}  // namespace distgrid
