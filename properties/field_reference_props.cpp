// Properties of compiled formulas against the audit's geometric reference
// (audit/reference/include/distgrid/audit/reference/field_geometry.hpp, written from each
// node's definition in docs/field-spec.md, not from core): every node type's
// value at random points and at the special points of its geometry (centres,
// axes, cap rims, box edges and corners, the torus's centre and circles,
// gyroid points with G = 0), and its sign against the reference's membership
// test wherever the value is clear of the 64-bit rounding.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "distgrid/audit/reference/field_geometry.hpp"
#include "distgrid/field_json.hpp"
#include "distgrid/properties/generators.hpp"
#include "harness/property.hpp"

namespace distgrid {
namespace {

using namespace properties;
using audit::HighPrecision;
using audit::reference::DensityValues;
using audit::reference::FieldGeometry;
using audit::reference::Side;

/// A half-space with a direction of small integers, with or without an offset.
rc::Gen<ShapeSpec> halfspace_spec(double h) {
  return rc::gen::apply(
      [h](int x, int y, int z, int sixteenths, bool with_offset) {
        if (x == 0 && y == 0 && z == 0) z = 1;
        nlohmann::json spec = {{"type", "halfspace"}, {"normal", {x, y, z}}};
        if (with_offset) spec["offset"] = sixteenths * h / 16;
        return ShapeSpec{spec};
      },
      rc::gen::inRange(-3, 4), rc::gen::inRange(-3, 4), rc::gen::inRange(-3, 4), rc::gen::inRange(-64, 65),
      rc::gen::arbitrary<bool>());
}

/// A torus about the default axis.
rc::Gen<ShapeSpec> default_axis_torus_spec(double h) {
  return rc::gen::map(torus_spec(h), [](ShapeSpec s) {
    s.spec.erase("axis");
    return s;
  });
}

/// A capsule whose segment is a point.
rc::Gen<ShapeSpec> point_capsule_spec(double h) {
  return rc::gen::map(capsule_spec(h), [](ShapeSpec s) {
    s.spec["end"] = s.spec["start"];
    return s;
  });
}

/// Every primitive, each option included.
rc::Gen<ShapeSpec> any_primitive_spec(double h) {
  return rc::gen::weightedOneOf<ShapeSpec>({{4, primitive_spec(h)},
                                            {1, halfspace_spec(h)},
                                            {1, default_axis_torus_spec(h)},
                                            {1, point_capsule_spec(h)}});
}

/// `shape` turned by a quaternion of small integers (normalised when compiled).
rc::Gen<ShapeSpec> quaternion_rotated(const rc::Gen<ShapeSpec>& shape) {
  return rc::gen::apply(
      [](ShapeSpec s, int w, int x, int y, int z) {
        if (w == 0 && x == 0 && y == 0 && z == 0) w = 1;
        return ShapeSpec{{{"type", "rotate"}, {"quaternion", {w, x, y, z}}, {"shape", s.spec}}};
      },
      shape, rc::gen::inRange(-4, 5), rc::gen::inRange(-4, 5), rc::gen::inRange(-4, 5), rc::gen::inRange(-4, 5));
}

/// A number field: a plain number, a constant object or a density map over [lo, hi].
rc::Gen<nlohmann::json> number_field(double lo, double hi) {
  const auto plain = rc::gen::map(rc::gen::inRange(0, 65), [lo, hi](int k) { return nlohmann::json(lo + (hi - lo) * k / 64); });
  return rc::gen::weightedOneOf<nlohmann::json>(
      {{1, plain},
       {1, rc::gen::map(plain, [](nlohmann::json v) { return nlohmann::json{{"type", "constant"}, {"value", v}}; })},
       {2, rc::gen::mapcat(rc::gen::tuple(rc::gen::inRange(0, 65), rc::gen::inRange(0, 65)),
                           [lo, hi](const std::tuple<int, int>& ends) {
                             return density_map(lo + (hi - lo) * std::get<0>(ends) / 64, lo + (hi - lo) * std::get<1>(ends) / 64);
                           })}});
}

/// A gyroid: cell and thickness as any number field, with or without an origin.
rc::Gen<ShapeSpec> gyroid_spec() {
  return rc::gen::apply(
      [](nlohmann::json cell, nlohmann::json thickness, int ox, int oy, int oz, bool with_origin) {
        nlohmann::json spec = {{"type", "gyroid"}, {"cell", cell}, {"thickness", thickness}};
        if (with_origin) spec["origin"] = {ox / 64.0, oy / 64.0, oz / 64.0};
        return ShapeSpec{spec};
      },
      number_field(0.25, 1), number_field(0, 0.125), rc::gen::inRange(-64, 65), rc::gen::inRange(-64, 65),
      rc::gen::inRange(-64, 65), rc::gen::arbitrary<bool>());
}

/// An offset or shell of `shape` whose number is any number field.
rc::Gen<ShapeSpec> with_number_field(const rc::Gen<ShapeSpec>& shape) {
  return rc::gen::apply(
      [](ShapeSpec s, nlohmann::json grow, nlohmann::json thickness, int kind) {
        static const char* const kSides[3] = {"center", "inside", "outside"};
        if (kind == 3) return ShapeSpec{{{"type", "offset"}, {"distance", grow}, {"shape", s.spec}}};
        nlohmann::json spec = {{"type", "shell"}, {"thickness", thickness}, {"shape", s.spec}};
        if (kind > 0) spec["side"] = kSides[kind - 1];  // kind 0: the default side
        return ShapeSpec{spec};
      },
      shape, number_field(-0.25, 0.25), number_field(0, 0.25), rc::gen::inRange(0, 4));
}

/// A point within `reach` units of the origin on the lattice 2^-10.
std::array<double, 3> random_point(double reach) {
  const auto c = rc::gen::map(rc::gen::inRange(-1024, 1025), [reach](int n) { return n * reach / 1024; });
  return {*c, *c, *c};
}

/// The reference's special points, each also moved 2^-k (k in 10..50) along a random direction.
std::vector<std::array<double, 3>> special_points(const FieldGeometry& reference) {
  std::vector<std::array<double, 3>> out;
  for (const auto& p : reference.special_points()) {
    out.push_back(p);
    const int k = *rc::gen::inRange(10, 51);
    const auto d = random_point(1);
    out.push_back({p[0] + std::ldexp(d[0], -k), p[1] + std::ldexp(d[1], -k), p[2] + std::ldexp(d[2], -k)});
  }
  return out;
}

/// Core's value within 256 ulps of the point's and value's scale of the reference,
/// and its sign the reference's membership wherever the value is clear of that.
template <class S>
void check_agrees(const nlohmann::json& spec, const std::vector<std::array<double, 3>>& points) {
  const Field<S> field = compile_field<S>(spec);
  const FieldGeometry reference(spec, sizeof(S) == 4 ? DensityValues::float32 : DensityValues::given);
  for (const auto& p : points) {
    const double core = field.template eval<double>(p[0], p[1], p[2]);
    const FieldGeometry::Evaluation exact = reference.evaluate_with_membership(p);
    const double truth = audit::to_double(exact.value);
    const double scale = std::max({1.0, std::fabs(p[0]) + std::fabs(p[1]) + std::fabs(p[2]), std::fabs(truth)});
    const double tolerance = 256 * std::numeric_limits<double>::epsilon() * scale;
    RC_LOG() << "at (" << p[0] << ", " << p[1] << ", " << p[2] << "): core " << core << ", reference " << truth << "\n";
    RC_ASSERT(std::fabs(core - truth) <= tolerance);
    if (std::fabs(truth) > 4 * tolerance)
      RC_ASSERT(exact.membership == (core < 0 ? Side::inside : Side::outside));
  }
}

std::vector<std::array<double, 3>> points_for(const FieldGeometry& reference, double reach) {
  std::vector<std::array<double, 3>> points = special_points(reference);
  for (int n = 0; n < 16; ++n) points.push_back(random_point(reach));
  return points;
}

DISTGRID_PROPERTY(FieldEval, everyPrimitiveEqualsItsGeometricReferenceAtRandomAndSpecialPoints, 400) {
  const ShapeSpec s = *any_primitive_spec(0.125);
  const FieldGeometry reference(s.spec, DensityValues::given);
  check_agrees<double>(s.spec, points_for(reference, 2.5));
}

DISTGRID_PROPERTY(FieldEval, everyCsgTreeAndTransformEqualsItsGeometricReference, 300) {
  const ShapeSpec s = *rc::gen::weightedOneOf<ShapeSpec>(
      {{3, csg_over(any_primitive_spec(0.125), 0.125, 3, true)}, {1, quaternion_rotated(csg_spec(0.125, 1))}});
  const FieldGeometry reference(s.spec, DensityValues::given);
  check_agrees<double>(s.spec, points_for(reference, 2.5));
}

DISTGRID_PROPERTY(FieldEval, offsetsAndShellsWithNumberFieldsEqualTheirReferenceInBothStorages, 300) {
  const ShapeSpec s = *with_number_field(csg_spec(0.125, 1));
  const FieldGeometry reference(s.spec, DensityValues::given);
  const auto points = points_for(reference, 2.5);
  check_agrees<double>(s.spec, points);
  check_agrees<float>(s.spec, points);
}

DISTGRID_PROPERTY(FieldEval, gyroidsEqualTheirReferenceInBothStorages, 300) {
  const ShapeSpec s = *gyroid_spec();
  const FieldGeometry reference(s.spec, DensityValues::given);
  const auto points = points_for(reference, 3);
  check_agrees<double>(s.spec, points);
  check_agrees<float>(s.spec, points);
}

// The documented Lipschitz bound, which the plan relies on, is never above core's bound.
DISTGRID_PROPERTY(FieldEval, coresLipschitzBoundIsAtLeastTheDocumentedOne, 300) {
  const ShapeSpec s = *rc::gen::weightedOneOf<ShapeSpec>(
      {{2, csg_over(any_primitive_spec(0.125), 0.125, 2, true)}, {1, with_number_field(csg_spec(0.125, 1))}, {1, gyroid_spec()}});
  const double documented = audit::to_double(FieldGeometry(s.spec, DensityValues::given).lipschitz_bound());
  RC_ASSERT(compile_field<double>(s.spec).lipschitz() >= documented);
}

}  // namespace
}  // namespace distgrid
