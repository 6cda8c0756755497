#pragma once
// Formula specs (JSON, for compile_field) of random shapes: primitives, CSG trees
// of bounded depth, transforms and density maps. Numbers are dyadic multiples of
// h (exact in float and double), sized a few to some tens of voxels so a bake
// stays small; every spec shrinks towards a smaller, simpler tree.
#include <rapidcheck.h>

#include <array>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/properties/lattice.hpp"

namespace distgrid::properties {

/// A spec with a readable form for counterexamples.
struct ShapeSpec {
  nlohmann::json spec;
  friend std::ostream& operator<<(std::ostream& out, const ShapeSpec& s) { return out << s.spec.dump(); }
};

namespace internal {

inline nlohmann::json vec(double x, double y, double z) { return nlohmann::json::array({x, y, z}); }

/// A length of `lo` to `hi` voxels on the lattice h/16.
inline rc::Gen<double> length_in_voxels(double h, int lo, int hi) {
  return rc::gen::map(rc::gen::inRange(lo * 16, hi * 16 + 1), [h](int n) { return n * h / 16; });
}

/// A point within `reach` voxels of the origin on the lattice h/16.
inline rc::Gen<nlohmann::json> point_near_origin(double h, int reach) {
  const auto c = rc::gen::map(rc::gen::inRange(-reach * 16, reach * 16 + 1), [h](int n) { return n * h / 16; });
  return rc::gen::apply([](double x, double y, double z) { return vec(x, y, z); }, c, c, c);
}

}  // namespace internal

/// A sphere of radius 2..12 voxels near the origin.
inline rc::Gen<ShapeSpec> sphere_spec(double h) {
  return rc::gen::apply(
      [](nlohmann::json centre, double radius) {
        return ShapeSpec{{{"type", "sphere"}, {"center", centre}, {"radius", radius}}};
      },
      internal::point_near_origin(h, 8), internal::length_in_voxels(h, 2, 12));
}

/// An axis-aligned box, edges 2..16 voxels, optionally rounded.
inline rc::Gen<ShapeSpec> box_spec(double h) {
  return rc::gen::apply(
      [h](nlohmann::json centre, double sx, double sy, double sz, int round_sixteenths) {
        const double smallest = std::min({sx, sy, sz});
        const double round = std::min(round_sixteenths * h / 16, smallest / 4);
        return ShapeSpec{{{"type", "box"}, {"center", centre}, {"size", internal::vec(sx, sy, sz)}, {"round", round}}};
      },
      internal::point_near_origin(h, 8), internal::length_in_voxels(h, 2, 16), internal::length_in_voxels(h, 2, 16),
      internal::length_in_voxels(h, 2, 16), rc::gen::weightedOneOf<int>({{2, rc::gen::just(0)}, {1, rc::gen::inRange(0, 32)}}));
}

/// A box whose faces lie on half-node planes (i + 1/2)*h: every node is at least
/// h/2 from the surface, so the volume rule counts it fully in or out.
inline rc::Gen<ShapeSpec> half_node_box_spec(double h) {
  const auto lo = rc::gen::inRange(-12, 4);
  const auto extent = rc::gen::inRange(1, 12);
  return rc::gen::apply(
      [h](int x0, int y0, int z0, int nx, int ny, int nz) {
        const auto centre = [h](int a, int n) { return (a + 0.5 + n / 2.0) * h; };
        return ShapeSpec{{{"type", "box"},
                          {"center", internal::vec(centre(x0, nx), centre(y0, ny), centre(z0, nz))},
                          {"size", internal::vec(nx * h, ny * h, nz * h)}}};
      },
      lo, lo, lo, extent, extent, extent);
}

inline rc::Gen<ShapeSpec> cylinder_spec(double h) {
  return rc::gen::apply(
      [](nlohmann::json start, nlohmann::json end, double radius) {
        if (start == end) end[0] = end[0].get<double>() + 1.0;
        return ShapeSpec{{{"type", "cylinder"}, {"start", start}, {"end", end}, {"radius", radius}}};
      },
      internal::point_near_origin(h, 8), internal::point_near_origin(h, 8), internal::length_in_voxels(h, 1, 6));
}

inline rc::Gen<ShapeSpec> capsule_spec(double h) {
  return rc::gen::apply(
      [](nlohmann::json start, nlohmann::json end, double radius) {
        return ShapeSpec{{{"type", "capsule"}, {"start", start}, {"end", end}, {"radius", radius}}};
      },
      internal::point_near_origin(h, 8), internal::point_near_origin(h, 8), internal::length_in_voxels(h, 1, 6));
}

inline rc::Gen<ShapeSpec> torus_spec(double h) {
  return rc::gen::apply(
      [](nlohmann::json centre, double minor, double extra, nlohmann::json axis) {
        if (axis == internal::vec(0, 0, 0)) axis = internal::vec(0, 0, 1);
        return ShapeSpec{{{"type", "torus"}, {"center", centre}, {"major_radius", minor + extra},
                          {"minor_radius", minor}, {"axis", axis}}};
      },
      internal::point_near_origin(h, 6), internal::length_in_voxels(h, 1, 4), internal::length_in_voxels(h, 1, 6),
      rc::gen::apply([](int x, int y, int z) { return internal::vec(x, y, z); }, rc::gen::inRange(-2, 3),
                     rc::gen::inRange(-2, 3), rc::gen::inRange(-2, 3)));
}

/// Any exact-distance primitive (Lipschitz 1).
inline rc::Gen<ShapeSpec> primitive_spec(double h) {
  return rc::gen::weightedOneOf<ShapeSpec>({{3, sphere_spec(h)},
                                            {3, box_spec(h)},
                                            {1, cylinder_spec(h)},
                                            {1, capsule_spec(h)},
                                            {1, torus_spec(h)}});
}

/// A CSG tree of at most `depth` operator levels over primitives: union,
/// intersection, difference, translate (dyadic), rotate (right angles and
/// general angles), scale (powers of two), offset and shell.
inline rc::Gen<ShapeSpec> csg_over(const rc::Gen<ShapeSpec>& leaf, double h, int depth, bool rotations) {
  if (depth <= 0) return leaf;
  const rc::Gen<ShapeSpec> child = csg_over(leaf, h, depth - 1, rotations);
  const auto children = rc::gen::container<std::vector<ShapeSpec>>(2, child);
  const auto specs_of = [](const std::vector<ShapeSpec>& c) {
    nlohmann::json of = nlohmann::json::array();
    for (const ShapeSpec& s : c) of.push_back(s.spec);
    return of;
  };
  return rc::gen::weightedOneOf<ShapeSpec>(
      {{4, leaf},
       {2, rc::gen::map(children, [specs_of](const std::vector<ShapeSpec>& c) {
          return ShapeSpec{{{"type", "union"}, {"of", specs_of(c)}}};
        })},
       {1, rc::gen::map(children, [specs_of](const std::vector<ShapeSpec>& c) {
          return ShapeSpec{{{"type", "intersection"}, {"of", specs_of(c)}}};
        })},
       {2, rc::gen::map(children, [](const std::vector<ShapeSpec>& c) {
          return ShapeSpec{{{"type", "difference"}, {"from", c[0].spec}, {"subtract", nlohmann::json::array({c[1].spec})}}};
        })},
       {1, rc::gen::apply(
               [](ShapeSpec s, nlohmann::json by) { return ShapeSpec{{{"type", "translate"}, {"by", by}, {"shape", s.spec}}}; },
               child, internal::point_near_origin(h, 4))},
       {rotations ? 1 : 0, rc::gen::apply(
               [](ShapeSpec s, int axis, int quarter_turns_or_radians) {
                 const double angle = quarter_turns_or_radians < 4 ? quarter_turns_or_radians * 1.5707963267948966
                                                                   : 0.1 * quarter_turns_or_radians;
                 nlohmann::json a = internal::vec(axis == 0, axis == 1, axis == 2);
                 return ShapeSpec{{{"type", "rotate"}, {"axis", a}, {"angle", angle}, {"shape", s.spec}}};
               },
               child, rc::gen::inRange(0, 3), rc::gen::inRange(0, 12))},
       {1, rc::gen::apply(
               [](ShapeSpec s, int e) { return ShapeSpec{{{"type", "scale"}, {"factor", power_of_two(e)}, {"shape", s.spec}}}; },
               child, rc::gen::inRange(-1, 2))},
       {1, rc::gen::apply(
               [h](ShapeSpec s, int sixteenths) {
                 return ShapeSpec{{{"type", "offset"}, {"distance", sixteenths * h / 16}, {"shape", s.spec}}};
               },
               child, rc::gen::inRange(-16, 33))},
       {1, rc::gen::apply(
               [h](ShapeSpec s, int sixteenths, int side) {
                 static const char* const kSides[3] = {"center", "inside", "outside"};
                 return ShapeSpec{{{"type", "shell"},
                                   {"thickness", (sixteenths + 8) * h / 16},
                                   {"side", kSides[side]},
                                   {"shape", s.spec}}};
               },
               child, rc::gen::inRange(0, 32), rc::gen::inRange(0, 3))}});
}

/// A CSG tree over every primitive, with rotations.
inline rc::Gen<ShapeSpec> csg_spec(double h, int depth) { return csg_over(primitive_spec(h), h, depth, true); }

/// A CSG tree of spheres and boxes without rotations: every node value is exact
/// enough that permuting or mirroring the axes permutes the values bit for bit.
inline rc::Gen<ShapeSpec> axis_symmetric_csg_spec(double h, int depth) {
  return csg_over(rc::gen::weightedOneOf<ShapeSpec>({{1, sphere_spec(h)}, {1, box_spec(h)}}), h, depth, false);
}

/// The spec with every length multiplied by `factor` (directions and angles kept):
/// for a power of two, f_scaled(factor * p) = factor * f(p) bit for bit.
inline nlohmann::json scaled_spec(const nlohmann::json& spec, double factor) {
  if (spec.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : spec) out.push_back(scaled_spec(e, factor));
    return out;
  }
  if (!spec.is_object()) return spec;
  nlohmann::json out = spec;
  for (auto& [key, value] : out.items()) {
    if (key == "axis" || key == "normal" || key == "angle" || key == "factor" || key == "type" || key == "side" ||
        key == "cells" || key == "data")
      continue;
    if (value.is_number()) value = value.get<double>() * factor;
    else if (value.is_array() && !value.empty() && value[0].is_number())
      for (auto& v : value) v = v.get<double>() * factor;
    else value = scaled_spec(value, factor);
  }
  return out;
}

/// The spec with axes permuted (new axis a = old axis perm[a]) and, where
/// mirror[a], negated: p -> M p for a signed permutation M. Specs with rotations
/// are not supported (returns null).
inline nlohmann::json moved_axes_spec(const nlohmann::json& spec, const std::array<int, 3>& perm,
                                      const std::array<bool, 3>& mirror) {
  if (spec.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : spec) {
      out.push_back(moved_axes_spec(e, perm, mirror));
      if (out.back().is_null()) return nullptr;
    }
    return out;
  }
  if (!spec.is_object()) return spec;
  if (spec.value("type", "") == "rotate") return nullptr;
  nlohmann::json out = spec;
  for (auto& [key, value] : out.items()) {
    if (key == "cells" || key == "data") continue;
    if (value.is_array() && value.size() == 3 && value[0].is_number()) {
      const bool is_size = key == "size";
      nlohmann::json moved = value;
      for (std::size_t a = 0; a < 3; ++a) {
        const double v = value[static_cast<std::size_t>(perm[a])].get<double>();
        moved[a] = mirror[a] && !is_size ? -v : v;
      }
      value = moved;
    } else if (value.is_object() || value.is_array()) {
      value = moved_axes_spec(value, perm, mirror);
      if (value.is_null()) return nullptr;
    }
  }
  return out;
}

/// A density map number field: 1, 2 or 4 cells per axis over a dyadic box (cell
/// centres are dyadic), values in
/// [0, 1] with up to 40 fraction bits (so a float map must round them), v0 and v1
/// as given.
inline rc::Gen<nlohmann::json> density_map(double v0, double v1) {
  return rc::gen::mapcat(
      rc::gen::tuple(rc::gen::element(1, 2, 4), rc::gen::element(1, 2, 4), rc::gen::element(1, 2, 4)),
      [v0, v1](const std::tuple<int, int, int>& cells) {
        // Named copies, not a structured binding: clang 14 cannot capture bindings.
        const int nx = std::get<0>(cells), ny = std::get<1>(cells), nz = std::get<2>(cells);
        const auto count = static_cast<std::size_t>(nx * ny * nz);
        const auto value = rc::gen::weightedOneOf<double>(
            {{3, rc::gen::map(rc::gen::inRange<std::int64_t>(0, (std::int64_t{1} << 40) + 1),
                              [](std::int64_t n) { return static_cast<double>(n) / power_of_two(40); })},
             {1, rc::gen::element(0.0, 1.0, 0.5)}});
        return rc::gen::apply(
            [nx, ny, nz, v0, v1](std::vector<double> data, int x0, int y0, int z0, int wx, int wy, int wz) {
              const double s = 1.0 / 8;
              return nlohmann::json{{"type", "density"},
                                    {"cells", {nx, ny, nz}},
                                    {"box", {x0 * s, y0 * s, z0 * s, (x0 + wx) * s, (y0 + wy) * s, (z0 + wz) * s}},
                                    {"data", data},
                                    {"v0", v0},
                                    {"v1", v1}};
            },
            rc::gen::container<std::vector<double>>(count, value), rc::gen::inRange(-16, 16),
            rc::gen::inRange(-16, 16), rc::gen::inRange(-16, 16), rc::gen::inRange(1, 32), rc::gen::inRange(1, 32),
            rc::gen::inRange(1, 32));
      });
}

}  // namespace distgrid::properties
