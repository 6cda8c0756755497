#pragma once
// Reference for formula specs (docs/field-spec.md), written from each node's
// geometric definition and read from the JSON spec itself: nothing here comes
// from core's compiler or kernels.
//   - exact distances from the geometry: the nearest point of a sphere, of a
//     (rounded) box by clamping to it, of a capped cylinder by cases (side,
//     cap face, cap rim), of a torus's core circle, of a capsule's segment
//     (end points, or the line through a cross product), a half-space's plane;
//   - transforms by applying the inverse transform to the point (Rodrigues'
//     formula for an axis and angle, q* p q for a quaternion, p / s);
//   - the documented formula for the nodes that are not exact distances
//     (union, intersection, difference, offset, shell, gyroid) and for number
//     fields (constants and density maps);
//   - membership (inside, outside, on the surface) by tests that do not go
//     through the distance: squared distances against squared radii,
//     set operations on the operands for CSG, the wall's interval of the
//     shape's value for offsets and shells, |G| against the wall for gyroids;
//   - the documented Lipschitz bound of the formula (real arithmetic, no pad);
//   - special points of the geometry (centres, axes, cap rims, box edges and
//     corners, the torus's centre and circles, gyroid points with G = 0).
// value() and membership() compute in HighPrecision (134 bits; the constants
// derived from the spec, such as unit axes, sines and cosines, are computed
// once in it). value_double() runs the same definitions in double, for
// estimating volumes by sampling.
#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/reference/side.hpp"

namespace distgrid::audit::reference {

using FieldPoint = std::array<double, 3>;

/// Density-map values as a storage holds them: the given doubles (double
/// storage) or each rounded to the nearest float (float storage).
enum class DensityValues { given, float32 };

class FieldGeometry {
 public:
  /// Reads a spec as docs/field-spec.md defines it (defaults included). Throws
  /// std::invalid_argument naming the JSON pointer of anything it cannot read;
  /// it does not repeat core's validation, only what it needs to evaluate.
  FieldGeometry(const nlohmann::json& spec, DensityValues values);
  ~FieldGeometry();
  FieldGeometry(FieldGeometry&&) noexcept;
  FieldGeometry& operator=(FieldGeometry&&) noexcept;

  /// f(p) by the definitions above, in high precision.
  HighPrecision value(const FieldPoint& p) const;
  /// The same definitions in double (for volume estimates, not for audits).
  double value_double(const FieldPoint& p) const;

  /// Inside, outside or on the surface, by the membership tests above.
  Side membership(const FieldPoint& p) const;

  /// value() and membership() from one pass over the tree (each node still
  /// decides membership by its own test, not by the value's sign).
  struct Evaluation {
    HighPrecision value;
    Side membership;
  };
  Evaluation evaluate_with_membership(const FieldPoint& p) const;

  /// The documented bound on |grad f| over all space, in real arithmetic
  /// (docs/field-spec.md, "Lipschitz bounds"; an exact rotation keeps it).
  /// Computed once, when the spec is read.
  HighPrecision lipschitz_bound() const;

  /// Special points of the geometry, in world coordinates (rounded to double).
  std::vector<FieldPoint> special_points() const;

  struct Node;

 private:
  std::unique_ptr<Node> root_;
  HighPrecision lipschitz_;
};

}  // namespace distgrid::audit::reference
