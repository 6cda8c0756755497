#pragma once
// Field<S>: a compiled formula, a tree of distance nodes and number fields.
//
// Each node states the Lipschitz bound it relies on (|grad f| over all space);
// the bounds are composed when the tree is compiled (field_json.cpp) and used by
// classify(). The real-arithmetic bounds are padded by the relative factor
// kLipschitzPad, which covers unit axes, normals and rotation matrices that are
// unit only to a few ulps once rounded to double.
//
// The per-point kernels that evaluate the nodes are in field_kernels.hpp, which
// only the files instantiating them include: a change to a kernel recompiles
// those files alone.
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <span>
#include <type_traits>
#include <variant>
#include <vector>

#include "distgrid/box.hpp"
#include "distgrid/field.hpp"

namespace distgrid {

/// eval_batch works in blocks of this many points (a brick's node count).
inline constexpr std::size_t kFieldBatchPoints = 512;

namespace detail {

template <class S>
class FieldCompiler;  // builds a Field<S> (field_json.cpp)

/// Relative safety factor on every node's Lipschitz bound (see the file comment).
inline constexpr double kLipschitzPad = 1e-12;
inline constexpr double kTwoPi = 2.0 * std::numbers::pi;
/// 1 / (2*pi*sqrt(3)): turns a gyroid value into a distance bound (see GyroidNode).
inline constexpr double kGyroidDistancePerCell = 1.0 / (2.0 * std::numbers::pi * std::numbers::sqrt3);

using Vec3 = std::array<double, 3>;
using NodeId = std::uint32_t;

// ---- number fields -------------------------------------------------------------

/// A number that follows a density map: values in [0, 1] at cell centres of a box,
/// trilinear between centres, held at the edge value outside (per axis), then the
/// profile v0 + (v1 - v0) * density. The values are stored as S; arithmetic is T.
/// Lipschitz: |v1 - v0| * sqrt(sum over axes of (largest neighbour step / cell width)^2).
template <class S>
struct DensityMap {
  std::array<std::ptrdiff_t, 3> cells{1, 1, 1};  ///< nx, ny, nz (each >= 1)
  Vec3 lo{0, 0, 0};                               ///< box corner (x0, y0, z0)
  Vec3 width{1, 1, 1};                            ///< x1 - x0, y1 - y0, z1 - z0 (each > 0)
  double v0 = 0, v1 = 1;
  std::vector<S> data;  ///< nx*ny*nz values, x fastest
};

/// A constant (Lipschitz 0) or a density map.
template <class S>
struct NumberField {
  bool constant = true;
  double value = 0;   ///< the number, when constant
  DensityMap<S> map;  ///< the map, when not constant
  double min = 0, max = 0;  ///< range of values over all space
  double lipschitz = 0;     ///< bound on |grad value|
};

// ---- distance nodes --------------------------------------------------------------
// Primitives are exact signed distances: Lipschitz 1.

struct SphereNode {
  Vec3 center;
  double radius;
};

/// Box of half extents inner_half + round, edges rounded by `round` (inner box offset).
struct BoxNode {
  Vec3 center, inner_half;
  double round;
};

/// Solid cylinder with flat caps: centre, unit axis, radius, half length.
struct CylinderNode {
  Vec3 center, axis;
  double radius, half_length;
};

/// Ring torus: centre, unit axis, major radius (to the tube centre), minor radius.
struct TorusNode {
  Vec3 center, axis;
  double major, minor;
};

/// Points within `radius` of the segment start..start+along.
struct CapsuleNode {
  Vec3 start, along;
  double length2;      ///< |along|^2
  double inv_length2;  ///< 1/|along|^2, 0 for a point
  double radius;
};

/// unit_normal . p - offset: negative on the side the normal points away from.
struct HalfSpaceNode {
  Vec3 unit_normal;
  double offset;
};

/// min over children; Lipschitz max of the children.
struct UnionNode {
  std::vector<NodeId> children;
};
/// max over children; Lipschitz max of the children.
struct IntersectionNode {
  std::vector<NodeId> children;
};
/// max(from, -subtract_1, ...); Lipschitz max of the children.
struct DifferenceNode {
  NodeId from;
  std::vector<NodeId> subtract;
};
/// child - distance(p); Lipschitz L_child + L_distance.
struct OffsetNode {
  NodeId child;
  std::uint32_t distance;  ///< number field
};

enum class ShellSide : std::uint8_t {
  center,   ///< |g| - t/2: a wall of thickness t centred on the surface
  inside,   ///< max(g, -g - t): the wall lies inside the surface
  outside,  ///< max(-g, g - t): the wall lies outside the surface
};
/// Wall around the child's surface; Lipschitz L_child + L_t/2 (center) or L_child + L_t.
struct ShellNode {
  NodeId child;
  std::uint32_t thickness;  ///< number field, >= 0
  ShellSide side;
};

/// child(p - by); Lipschitz L_child.
struct TranslateNode {
  NodeId child;
  Vec3 by;
};
/// child(M p), M the inverse rotation, row-major; Lipschitz L_child * ||M||.
struct RotateNode {
  NodeId child;
  std::array<double, 9> to_child;
};
/// factor * child(p / factor); Lipschitz L_child.
struct ScaleNode {
  NodeId child;
  double factor;
};

/// Gyroid wall: f = |G(phi)| * c(p) / (2 pi sqrt 3) - t(p) / 2 with
/// G = sin phi_x cos phi_y + sin phi_y cos phi_z + sin phi_z cos phi_x.
/// |grad_phi G| <= sqrt(3) (Cauchy-Schwarz on each component) and |G| <= 3/2.
/// Uniform cell c: phi = 2 pi (p - origin) / c, so f is 1-Lipschitz plus L_t / 2.
/// Varying cell (a density map over box B): phi_a = 2 pi ((q_a - o_a) / c(p) + (p_a - q_a) / c_max)
/// with q = clamp(p, B); beyond B the lattice continues with the largest cell along
/// that axis (a period that changes with y cannot continue for all x without
/// unbounded shear). Bound: 1 + E L_c / c_min + (3/2) L_c / (2 pi sqrt 3) + L_t / 2,
/// E the largest distance from the origin to a corner of B (derivation in
/// docs/field-spec.md).
struct GyroidNode {
  std::uint32_t cell, thickness;  ///< number fields
  Vec3 origin;
  bool uniform_cell;
  double phase_per_length;    ///< 2 pi / c (uniform cell)
  double distance_per_value;  ///< c / (2 pi sqrt 3) (uniform cell)
  Vec3 hold_lo, hold_hi;      ///< box B of the cell's density map (varying cell)
  double cell_max;            ///< largest cell size (varying cell)
};

using NodeShape = std::variant<SphereNode, BoxNode, CylinderNode, TorusNode, CapsuleNode, HalfSpaceNode,
                               UnionNode, IntersectionNode, DifferenceNode, OffsetNode, ShellNode,
                               TranslateNode, RotateNode, ScaleNode, GyroidNode>;

struct Node {
  NodeShape shape;
  double lipschitz = 1;            ///< padded bound on |grad f| of this subtree
  std::size_t scratch_blocks = 0;  ///< blocks of kFieldBatchPoints doubles eval_batch needs
};

}  // namespace detail

/// A compiled formula (see field.hpp). Build it with compile_field().
template <class S>
class Field {
 public:
  using Storage = S;

  /// f at (x, y, z) in T arithmetic; T = double is the reference semantics.
  /// Defined for T = double (core/src/field.cpp); another T needs the kernels
  /// of field_kernels.hpp and an explicit instantiation of eval_node (the audit
  /// makes its high-precision one in a single file).
  template <class T>
  T eval(T x, T y, T z) const {
    return eval_node<T>(root_, x, y, z);
  }

  /// out[i] = eval<double>(x[i], y[i], z[i]) bit for bit, for any count of points.
  /// Spans must have equal sizes and `out` must not overlap the inputs (badarg).
  /// No allocation once `scratch` has served this field; one scratch per thread.
  void eval_batch(std::span<const double> x, std::span<const double> y, std::span<const double> z,
                  std::span<double> out, FieldScratch& scratch) const;

  /// Box holding every point with f <= 0; may be infinite (a half-space) or empty.
  const Box& bounds() const noexcept { return bounds_; }
  /// Box holding every point with f <= level (level < 0 gives bounds()).
  Box bounds_within(double level) const;

  /// Proven bound on |grad f| over all space (padded, see kLipschitzPad).
  double lipschitz() const noexcept { return nodes_[root_].lipschitz; }

  /// Conservative: `outside` / `inside` only when no point of the ball (centre,
  /// radius r) has |f| < band_width. Leaves use their Lipschitz bound with the
  /// slack described in field.cpp; CSG and transform nodes refine through
  /// their children (a union is outside when all children are).
  BallClass classify(double cx, double cy, double cz, double r, double band_width) const;

  std::size_t node_count() const noexcept { return nodes_.size(); }

 private:
  friend class detail::FieldCompiler<S>;
  Field() = default;

  template <class T>
  T number(std::uint32_t id, const T& x, const T& y, const T& z) const;

  template <class T>
  T eval_node(detail::NodeId id, const T& x, const T& y, const T& z) const;

  void batch_node(detail::NodeId id, const double* x, const double* y, const double* z, double* out,
                  std::size_t n, double* scratch) const;
  void batch_number(std::uint32_t id, const double* x, const double* y, const double* z, double* out,
                    std::size_t n) const;
  /// outside: f >= above over the ball; inside: f <= below. `magnitude` bounds the
  /// world coordinates behind (cx, cy, cz) in this node's frame (rounding slack).
  BallClass classify_node(detail::NodeId id, double cx, double cy, double cz, double r, double magnitude,
                          double below, double above) const;
  Box bounds_node(detail::NodeId id, double level) const;

  std::vector<detail::Node> nodes_;
  std::vector<detail::NumberField<S>> numbers_;
  detail::NodeId root_ = 0;
  Box bounds_;
};

extern template class Field<float>;
extern template class Field<double>;

}  // namespace distgrid
