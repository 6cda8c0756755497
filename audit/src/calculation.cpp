#include "distgrid/audit/calculation.hpp"

#include "../calculations/calculations.hpp"

namespace distgrid::audit {

std::string_view precision_name(PrecisionClass c) noexcept {
  switch (c) {
    case PrecisionClass::exact: return "exact";
    case PrecisionClass::bits64: return "64-bit";
    case PrecisionClass::bits32_in_part: return "32-bit in part";
    case PrecisionClass::inexact: return "inexact";
  }
  return "inexact";
}

PrecisionClass measured_class(double max_ulps, std::uint64_t mismatches, PrecisionClass declared) noexcept {
  if (mismatches > 0) return PrecisionClass::inexact;
  if (max_ulps == 0) return PrecisionClass::exact;
  if (declared == PrecisionClass::exact) return PrecisionClass::inexact;
  return max_ulps <= kSixtyFourBitMaxUlps ? PrecisionClass::bits64 : PrecisionClass::bits32_in_part;
}

// The one list. Each entry is registered here and nowhere else.
const std::vector<Calculation>& calculations() {
  static const std::vector<Calculation> list{
      {
          "grid.key",
          "Brick key and its inverse",
          PrecisionClass::exact,
          {{"core/include/distgrid/brick_key.hpp", "brick_key"},
           {"core/include/distgrid/brick_key.hpp", "brick_of"},
           {"core/src/brick_key.cpp", "brick_key_checked"}},
          "key = ((bx + 65536) * 131072 + (by + 65536)) * 131072 + (bz + 65536), each shifted coordinate in "
          "[0, 131071]; the inverse takes remainders and exact quotients by 131072",
          "all 343 combinations of the range edges -65536, -65535, -1, 0, 1, 65534, 65535; uniform coordinates "
          "over the key range; coordinates beyond it, which must be refused",
          "brick_key, brick_of, brick_key_valid, brick_key_checked",
          "the key in 128-bit integers and its three base-2^17 digits, from the convention in DESIGN.md",
          "error: |core key - reference key| in ulps of the key as a double, for inputs with a key; mismatches: "
          "inputs with any wrong answer (key, inverse, validity, range refusal, key not exact as a double below "
          "2^51). An integer is right or wrong, so no arithmetic / storage / method split.",
          &runs::run_grid_key,
      },
      {
          "grid.sample",
          "Value at a point",
          PrecisionClass::bits32_in_part,
          {{"core/src/grid.cpp", "GridAccessor<S>::sample"},
           {"core/src/grid.cpp", "floor_exact"},
           {"core/src/grid.cpp", "GridAccessor<S>::look_up"},
           {"core/src/grid.cpp", "Grid<S>::sample"}},
          "i = floor(x / h), u = x / h - i on each axis; over the cell's eight nodes a + (b - a) * t along x, then "
          "y, then z, in double; a node reads its stored S value, +band h in an absent brick, -band h in an "
          "inside brick",
          "per part: uniform in the box; in the band; on nodes; on brick faces; on brick corners; at the band's "
          "edge; a copy of the part translated ~5e5 h from the origin; points beyond the key range (|x|/h up to "
          "1e9). Each input is drawn from (seed, generator, index).",
          "Grid<S>::sample",
          "trilinear interpolation as a weighted sum of the eight corners in high precision, at the cell and "
          "fractions found from the point in high precision; corners from the stored values (read through the "
          "audit's own key map) or from exact node values clamp(f(i h), +-band h), f the part's formula in high "
          "precision; the true value clamp(f(p), +-band h)",
          "error: the core's sample vs high precision from exact node values (arithmetic + storage), in h and in "
          "ulps of the reference (magnitude raised to band h). Method: against clamp(f(p), +-band h), since "
          "beyond the band a grid stores only the clamp.",
          &runs::run_grid_sample,
      },
      {
          "grid.volume",
          "Enclosed volume",
          PrecisionClass::bits32_in_part,
          {{"core/src/volume.cpp", "Grid<S>::volume"},
           {"core/src/volume.cpp", "brick_volume_in_voxels"},
           {"core/src/volume.cpp", "round_up_to_storage"},
           {"core/src/volume.cpp", "brick_fraction_sum"}},
          "V = h^3 * sum over nodes of clamp(1/2 - d / h, 0, 1), an inside brick adding 512; summed in double in "
          "ascending key order",
          "each default part baked at the run's h and band (one input per part)",
          "Grid<S>::volume",
          "the same sum in high precision over the grid's own bricks (keys decoded by the reference; an inside "
          "brick counts 512 as the plan classified it): from the stored values, and from exact node values "
          "clamp(f(i h), +-band h); the part's analytic (or best known) volume",
          "error: the core's volume vs high precision from exact node values (arithmetic + storage), relative and "
          "in ulps of the reference. Method: high precision from exact node values vs the analytic volume, "
          "relative.",
          &runs::run_grid_volume,
      },
      {
          "mesh.weld",
          "Merge corners at identical positions",
          PrecisionClass::bits64,
          {{"core/src/mesh_prepare.cpp", "weld_corners"}, {"core/src/mesh_prepare.cpp", "bits_of"}},
          "two corners merge when their three coordinates are equal as doubles (no tolerance; -0 equals +0); "
          "welded corners keep the first position bit for bit",
          "triangle soups of 12 to 30 corners copied from a few base positions: equal copies and copies one ulp "
          "away, zeros of both signs and the smallest subnormal, base positions far from the origin, independent "
          "random corners with exact repeats",
          "weld_corners",
          "for every pair of corners, IEEE equality of the three coordinates (an exact comparison)",
          "error: |welded position - input position| in ulps (must be 0). Decision weld: merged vs equal, per "
          "pair, margin the ulp distance between the positions. No stored values: no arithmetic / storage / "
          "method split.",
          &runs::run_mesh_weld,
          &runs::replay_mesh_weld,
      },
      {
          "mesh.normals",
          "Face, edge and angle-weighted corner pseudo-normals",
          PrecisionClass::bits64,
          {{"core/src/mesh_prepare.cpp", "prepare_mesh"}, {"core/src/mesh_prepare.cpp", "unit"}},
          "face: (ab x ac) / |ab x ac|; edge: the sum of its triangles' unit normals; corner: the sum over its "
          "triangles of acos(clamp(e1 . e2 / (|e1| |e2|), -1, 1)) times the unit normal (Baerentzen-Aanaes)",
          "icosphere_1k and torus_mesh; random bipyramids; tetrahedra with a sliver face (angles near 0 and pi) "
          "and with needle faces (an edge 2^-10 .. 2^-45 long)",
          "prepare_mesh (face_normals, edge_normals, corner_normals)",
          "the same normals in high precision from the prepared corners and triangles, angles by atan2",
          "error: |core vector - high-precision vector| in ulps of the reference's length; per kind (face, edge, "
          "corner) the largest ulps and angle in the details. No stored values: no arithmetic / storage / method "
          "split.",
          &runs::run_mesh_normals,
          &runs::replay_mesh_normals,
      },
      {
          "mesh.node_distance",
          "Signed distance from a node to the mesh, stored",
          PrecisionClass::bits32_in_part,
          {{"core/src/mesh_bake.cpp", "bake_mesh_brick"}, {"core/src/mesh_bake.cpp", "TriangleFrame"},
           {"core/src/mesh_bake.cpp", "pseudo_normal"}},
          "d = min over triangles of |node - closest point| (a branch-free squared distance picks the triangle, "
          "closest_point_on_triangle the point and feature), sign of (node - point) . pseudo-normal, clamped to "
          "+-band h and stored as S",
          "per mesh part (icosphere_1k, torus_mesh) baked at twice the run's h: nodes near the surface, near "
          "+-band h, near mesh edges and corners, uniform in the box",
          "bake_mesh (node values read back as stored)",
          "min over triangles of the exact closest point's distance (rationals; high-precision square root); the "
          "node's side by exact ray parity",
          "error: stored vs exact clamped signed distance, in h and ulps of band h. Arithmetic: the core's double "
          "(the double grid's value) vs exact; storage: stored S vs the core's double; method: not applicable (see "
          "details). Decision sign: the node's sign vs the exact side.",
          &runs::run_mesh_node_distance,
          &runs::replay_mesh_node_distance,
      },
      {
          "mesh.closest_point",
          "Closest point on a triangle and its feature",
          PrecisionClass::bits64,
          {{"core/include/distgrid/closest_point.hpp", "closest_point_on_triangle"},
           {"core/include/distgrid/closest_point.hpp", "closest_on_boundary"}},
          "Voronoi regions tested in the order corner a, corner b, edge ab, corner c, edge ca, edge bc, face from "
          "d1..d6 (dot products of ab, ac with ap, bp, cp) and va, vb, vc; an edge point by lerp(s, e, t); the face "
          "point by projection on n = ab x ac",
          "per Voronoi region (7) a point built inside it; points 2^-10 .. 2^-60 of the triangle's size from a "
          "region boundary; slivers and needles down to 2^-50; triangles 2^20 .. 2^30 from the origin",
          "closest_point_on_triangle",
          "the exact closest point in rationals (projection on the plane, else the nearest clamped edge), its "
          "feature and the distance to its Voronoi region's boundary",
          "error: |core point - exact point| in ulps of the largest coordinate. Decision region: core feature vs "
          "exact feature, margin in ulps of the largest coordinate. No stored values: no arithmetic / storage / "
          "method split.",
          &runs::run_mesh_closest_point,
          &runs::replay_mesh_closest_point,
      },
      {
          "mesh.ray_parity",
          "Inside or outside of far bricks by ray crossings",
          PrecisionClass::bits64,
          {{"core/src/mesh_bake.cpp", "ray_crossings"}, {"core/src/mesh_bake.cpp", "bake_mesh"}},
          "one ray along +x per row of bricks at (8 b + 3.5 + offset) h; a triangle counts when its three edge "
          "functions share a strict sign; a ray touching an edge or corner, or with an odd count, is shifted and "
          "retried (three attempts); a brick is inside when an odd number of crossings lie before its centre",
          "tetrahedra whose opposite edges lie exactly on a row's first ray, octahedra with two corners on it, "
          "random tetrahedra; baked at h = 1/8, band 1; every far brick of the mesh's range",
          "bake_mesh (far bricks read back as stored)",
          "the side of each far brick's centre by the exact parity (rationals) of a ray perturbed symbolically to "
          "(y + e, z + e^2), which never meets an edge or corner",
          "error: a far brick's value vs the exact -+band h. Decision parity: inside/outside vs the exact side, "
          "margin the first ray's distance to the nearest projected edge. No arithmetic / storage / method split: "
          "a far brick holds only the marker.",
          &runs::run_mesh_ray_parity,
          &runs::replay_mesh_ray_parity,
      },
      {
          "mesh.edge_key",
          "Edge key a * 2^32 + b",
          PrecisionClass::exact,
          {{"core/include/distgrid/mesh_prepare.hpp", "edge_key"}, {"core/src/mesh_prepare.cpp", "prepare_mesh"}},
          "key = min(a, b) * 2^32 + max(a, b) in 64-bit unsigned integers; exact as a double only below 2^21 "
          "welded corners",
          "corner pairs uniform over 32 bits, below 2^21, within 8 of 2^21, within 8 of 2^32 - 1, equal; each with "
          "a second edge swapped or one corner away; the edge keys prepare_mesh lists for icosphere_1k",
          "edge_key, PreparedMesh::edge_keys",
          "the key in 128-bit integers; keys converted to double and back for every corner pair near 2^21",
          "error: |core key - 128-bit key| in ulps of the key as a double; mismatches: wrong keys, keys of corners "
          "below 2^21 not exact as doubles, prepared keys not matching their triangles or not ascending. "
          "Decision order: two nearby keys' order vs the 128-bit order.",
          &runs::run_mesh_edge_key,
          &runs::replay_mesh_edge_key,
      },
  };
  return list;
}

const Calculation* find_calculation(std::string_view id) {
  for (const Calculation& c : calculations())
    if (c.id == id) return &c;
  return nullptr;
}

}  // namespace distgrid::audit
