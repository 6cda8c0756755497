#pragma once
// Baking: 512 clamped node values per planned brick, computed in double and
// stored in S. Threads split the bricks; every brick is computed by exactly the
// same code whatever the thread count, so results are identical bit for bit.
#include <cstdint>
#include <functional>

#include "distgrid/field.hpp"
#include "distgrid/grid.hpp"
#include "distgrid/plan.hpp"

namespace distgrid {

/// Called with (bricks done, bricks in all) after each chunk of bricks, from the
/// worker that finished it, one call at a time.
using ProgressFn = std::function<void(std::size_t, std::size_t)>;

/// Progress of a run in named phases: called with the phase's name (a string
/// literal), units done and units in all, one call at a time.
using PhaseProgressFn = std::function<void(const char*, std::size_t, std::size_t)>;

/// Node values of one brick: clamp(f(i*h, j*h, k*h), -band*h, band*h), n = i + 8j + 64k.
template <class S>
void bake_brick(const Field<S>& field, std::int64_t key, double h, double band_width, S* out,
                FieldScratch& scratch);

template <class S>
Grid<S> bake(const Field<S>& field, const BakeSettings& settings,
             const ProgressFn& progress = {});

/// Bakes the bricks of a plan computed before (plan_bricks): its near bricks
/// computed, its inside bricks marked.
template <class S>
Grid<S> bake_planned_bricks(const Field<S>& field, const Plan& plan, unsigned threads,
                            const ProgressFn& progress = {});

extern template Grid<float> bake<float>(const Field<float>&, const BakeSettings&, const ProgressFn&);
extern template Grid<double> bake<double>(const Field<double>&, const BakeSettings&, const ProgressFn&);

}  // namespace distgrid
