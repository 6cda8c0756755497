#pragma once
// Baking: 512 clamped node values per planned brick, computed in double and
// encoded by the grid's storage S (storage.hpp). Threads split the bricks; every
// brick is computed by exactly the same code whatever the thread count, so results
// are identical bit for bit.
#include <concepts>
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

/// The scalar of the formula a grid of storage S is baked from: float for float,
/// double for the others (a density map's values are held in it).
template <class S>
using FieldScalarOf = typename Storage<S>::FieldScalar;

/// Node values of one brick, exact and clamped, before any storage rounds them:
/// out[n] = clamp(f(i*h, j*h, k*h), -band*h, band*h) in double, n = i + 8j + 64k.
template <class F>
void bake_brick(const Field<F>& field, std::int64_t key, double h, double band_width, double* out,
                FieldScratch& scratch);

/// Bakes a formula into storage S: each brick's exact clamped values (bake_brick),
/// encoded by Storage<S>. float and double take the formula of their own scalar
/// (bake(field, settings) deduces S); Half, Q16 and Q8 a Field<double>, named
/// explicitly: bake<Q16>(field, settings).
template <class S>
  requires std::same_as<S, FieldScalarOf<S>>
Grid<S> bake(const Field<S>& field, const BakeSettings& settings, const ProgressFn& progress = {});
template <class S>
  requires(!std::same_as<S, FieldScalarOf<S>>)
Grid<S> bake(const Field<FieldScalarOf<S>>& field, const BakeSettings& settings, const ProgressFn& progress = {});

/// Bakes the bricks of a plan computed before (plan_bricks): its near bricks
/// computed, its inside bricks marked.
template <class S>
  requires std::same_as<S, FieldScalarOf<S>>
Grid<S> bake_planned_bricks(const Field<S>& field, const Plan& plan, unsigned threads,
                            const ProgressFn& progress = {});
template <class S>
  requires(!std::same_as<S, FieldScalarOf<S>>)
Grid<S> bake_planned_bricks(const Field<FieldScalarOf<S>>& field, const Plan& plan, unsigned threads,
                            const ProgressFn& progress = {});

extern template Grid<float> bake<float>(const Field<float>&, const BakeSettings&, const ProgressFn&);
extern template Grid<double> bake<double>(const Field<double>&, const BakeSettings&, const ProgressFn&);
extern template Grid<Half> bake<Half>(const Field<double>&, const BakeSettings&, const ProgressFn&);
extern template Grid<Q16> bake<Q16>(const Field<double>&, const BakeSettings&, const ProgressFn&);
extern template Grid<Q8> bake<Q8>(const Field<double>&, const BakeSettings&, const ProgressFn&);

}  // namespace distgrid
