#pragma once
// A compiled formula: a tree of distance and number nodes evaluated at a point.
//
// Field<S> is immutable after compile_field() and safe to evaluate from many
// threads at once. S is the storage scalar of the grid it is baked into; only a
// density map's values are held in S, every other number is double.
//
// eval<T>() is a template so the audit can run the same formula in
// Boost.Multiprecision; eval_batch() is the fast double path used by the bake and
// returns, for each point, exactly the bits eval<double>() returns.
#include <cstddef>
#include <span>
#include <vector>

#include "distgrid/box.hpp"

namespace distgrid {

/// Where a ball lies relative to the band |f| < band_width.
enum class BallClass {
  outside,  ///< every point of the ball has f >= band_width
  inside,   ///< every point of the ball has f <= -band_width
  near,     ///< may hold a point with |f| < band_width
};

/// Per-thread working memory for Field::eval_batch (reused; no allocation once warm).
struct FieldScratch {
  std::vector<double> buffers;
};

template <class S>
class Field;  // defined in field_nodes.hpp (included below)

}  // namespace distgrid

#include "distgrid/field_nodes.hpp"
