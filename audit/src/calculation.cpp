#include "distgrid/audit/calculation.hpp"

#include <cerrno>
#include <cstdlib>

#include "../calculations/calculations.hpp"
#include "distgrid/error.hpp"

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

void CalculationResult::begin_unit(std::uint64_t run_inputs) noexcept {
  error.begin_unit(run_inputs);
  for (std::optional<ErrorStats>* stats : {&arithmetic, &storage_error, &method})
    if (*stats) (*stats)->begin_unit(run_inputs);
  for (DecisionStats& d : decisions) d.begin_unit();
}

// What the two contour calculations compare (contour_audit.hpp measures both alike).
constexpr std::string_view kContourErrors =
    "error: the core vertex vs the high-precision vertex from exact node values (arithmetic + storage), as "
    "the Euclidean distance in h and in ulps of the largest coordinate (raised to h). Arithmetic: core vs the "
    "high-precision vertex from the same stored values. Storage: high precision from stored vs from exact "
    "node values (same crossing edges; a site whose exact values change sign differently is counted, not "
    "measured). Method: |f| at the exact-value vertex, for parts whose f is a Euclidean distance. Decision: "
    "a vertex for every crossing site and none elsewhere, exact.";

// The one list. Each entry is registered here and nowhere else.
const std::vector<Calculation>& calculations() {
  static const std::vector<Calculation> list{
      {
          "bake.plan",
          "Bricks to compute",
          PrecisionClass::bits64,
          {{"core/src/plan.cpp", "plan_brick_range"},
           {"core/src/field.cpp", "Field<S>::classify"},
           {"core/src/field.cpp", "lipschitz_test"},
           {"core/src/plan.cpp", "plan_bricks"}},
          "brick range = floor(x / h / 8) for the box's limits x (grown by band h), in double; a brick is computed "
          "unless the ball of radius 3.5 sqrt(3) h around its centre ((b * 8 + 3.5) h per axis) is classified wholly "
          "outside (f >= band h) or wholly inside (f <= -band h) from f at the centre and Lipschitz bounds",
          "box limits on brick faces, one ulp either side, anywhere in the key range, uniform, and at voxel sizes "
          "that are not powers of two; every brick of each default part's range (origin and far copy) that the plan "
          "does not compute; balls around the bricks of points in the band and just beyond it, at the origin and far",
          "plan_brick_range, Field<S>::classify, plan_bricks",
          "brick ranges and node indices in exact rationals (GMP); node values f(i h) and witness values in the ball "
          "in high precision (MPFR), Field<S>'s formula with its data as stored",
          "decisions only (see decisions[].what): brick_range, range_covers_nodes, skipped_bricks and ball, each "
          "against its exact answer with the margin to the boundary. error: brick_range's index error, in ulps of "
          "the exact index as a double; no arithmetic / storage / method split (nothing is read back).",
          &runs::run_bake_plan,
          &runs::replay_bake_plan,
      },
      {
          "bake.node_values",
          "Node values of a brick",
          PrecisionClass::bits32_in_part,
          {{"core/src/bake.cpp", "bake_brick"}, {"core/include/distgrid/brick_key.hpp", "brick_node_positions"}},
          "value = clamp(f(i h, j h, k h), -band h, band h), f in double at the node positions (b * 8 + n) * h, "
          "stored as S",
          "per part: nodes with |f| < h, nodes in the band, nodes within h/8 of the clamp at +-band h, and band nodes "
          "of the part's copy translated ~5e5 h from the origin",
          "bake (bake_brick) through the run's grids, read with the audit's own key map",
          "clamp(f(i h), +-band h) in high precision at exact positions: Field<double> for the error, Field<S> (the "
          "formula with its data as stored) for the arithmetic",
          "error: stored value vs high precision (Field<double>), in h and in ulps of band h. arithmetic: the core's "
          "double before storage vs high precision of the same formula; storage: stored vs that double. No method "
          "error: a node value is the formula's value (null).",
          &runs::run_bake_node_values,
          &runs::replay_bake_node_values,
      },
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
          &runs::replay_grid_key,
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
          &runs::replay_grid_sample,
      },
      {
          "grid.gradient",
          "Gradient at a point",
          PrecisionClass::bits32_in_part,
          {{"core/src/grid.cpp", "GridAccessor<S>::gradient"}, {"core/src/grid.cpp", "Grid<S>::gradient"}},
          "g = (sample(p + h/2) - sample(p - h/2)) / h per axis, in double, each sample trilinear from the stored "
          "values",
          "per part: band points; band points on nodes; half a voxel off a node on one axis; on a brick face; at the "
          "band's edge; the part's copy ~5e5 h from the origin; inputs / 4 per generator and part (each costs about "
          "26 high-precision formula evaluations). Each input is drawn from (seed, generator, index).",
          "Grid<S>::gradient",
          "the central difference in high precision with exact sample points p +- h/2 and the reference trilinear, "
          "from the stored values and from exact node values clamp(f(i h), +-band h); the true gradient of "
          "clamp(f, +-band h) by a high-precision central difference with step 2^-32 h",
          "error: the core's gradient vs high precision from exact node values, the worst component; in h (a "
          "gradient's error is the error of the two samples' difference in units of h) and in ulps of the "
          "component with its magnitude raised to 1. Method: exact node values vs the true gradient.",
          &runs::run_grid_gradient,
          &runs::replay_grid_gradient,
      },
      {
          "grid.world_box",
          "Box of the stored bricks",
          PrecisionClass::bits64,
          {{"core/src/grid.cpp", "Grid<S>::world_box"}, {"core/src/grid.cpp", "Grid<S>::extent"}},
          "lo = b * 8 * h, hi = (b * 8 + 7) * h per axis over the extreme stored and inside bricks, in double",
          "the run's baked parts (origin and far copy); grids of 1 to 4 random bricks, of bricks on the key range's "
          "edges, and of random bricks at voxel sizes that are not powers of two",
          "Grid<S>::world_box",
          "the extreme bricks of the decoded keys and the products 8 b h, (8 b + 7) h exact in high precision",
          "error: the worst of the six coordinates, in ulps of the exact coordinate and in h. Nothing is stored or "
          "discretised: no arithmetic / storage / method split.",
          &runs::run_grid_world_box,
          &runs::replay_grid_world_box,
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
          &runs::replay_grid_volume,
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
          "field.density_store",
          "Density map as stored",
          PrecisionClass::bits32_in_part,
          {{"core/src/field_json.cpp", "density"}},
          "each value of a density map is kept as S when the formula is compiled",
          "values uniform in [0, 1], exactly at and a quarter ulp beside float rounding ties, below float's normal "
          "range, just below 1, and decimal fractions k / 1000",
          "compile_field<S>, read back exactly at the cell centres of a probe map",
          "the given double value",
          "error: stored vs given, in ulps of the given value with its magnitude raised to 1 (the map's full "
          "scale). A stored value has no arithmetic or method to separate.",
          &runs::run_field_density_store,
          &runs::replay_field_density_store,
      },
      {
          "field.density_value",
          "Number that follows a density map",
          PrecisionClass::bits32_in_part,
          {{"core/include/distgrid/field_nodes.hpp", "density_value"},
           {"core/include/distgrid/field_nodes.hpp", "cell_coord"}},
          "v = v0 + (v1 - v0) * d, d trilinear between cell centres of the map's S values, the edge value held "
          "outside, in double",
          "points on the planes x, y, z = 0 (where the probe reads the number exactly): uniform over the map's "
          "box, on cell centres, on cell faces, and outside the box",
          "Field<S>::eval<double> of a probe formula whose value is -v/2 exactly",
          "the map's definition in high precision with the cell width unrounded, from the values as stored and "
          "from the given values",
          "error: the core's number vs high precision from the given values; arithmetic: vs high precision from "
          "the stored values; storage: stored vs given values through the interpolation. In h and in ulps of the "
          "reference with its magnitude raised to max(|v0|, |v1|). No method error (null).",
          &runs::run_field_density_value,
          &runs::replay_field_density_value,
      },
      {
          "field.eval",
          "The compiled formula",
          PrecisionClass::bits64,
          {{"core/include/distgrid/field_nodes.hpp", "Field<S>::eval_node"},
           {"core/src/field.cpp", "Field<S>::eval_batch"},
           {"core/src/field_json.cpp", "shape"},
           {"core/src/field_json.cpp", "rotation"},
           {"core/src/field_json.cpp", "gyroid"}},
          "the formula's tree evaluated in double: primitives' exact distances, min / max for CSG, offsets and "
          "shells, transforms of the point, the gyroid wall",
          "per formula (the default parts, and probe formulas with each node type at the root, once per option, at "
          "a tenth of the inputs): uniform in the box, near the surface (|f| < h), on nodes in the band, the formula "
          "translated ~5e5 h from the origin, and special points of the geometry (centres, axes, cap rims, box edges "
          "and corners, the torus's centre and circles, gyroid points with G = 0) and points 2^-k h from them",
          "Field<S>::eval<double> and Field<S>::eval_batch",
          "the geometric reference (reference/field_geometry.hpp), read from the spec and written from each node's "
          "definition in docs/field-spec.md in MPFR: nearest points of the shapes, inverse transforms of the point, "
          "the documented formulas of CSG, offsets, shells, gyroids and number fields; a membership test per node "
          "that does not go through the distance; the documented Lipschitz bound",
          "error: eval<double> vs the geometric reference, in h and in ulps of the reference with its magnitude "
          "raised to band h; arithmetic: vs Field<S>::eval<HighPrecision>, the same kernel in MPFR, at every "
          "fourth input (its rounding alone; a wrong formula leaves it unchanged). Decision sign: eval<double>'s sign vs the membership test, "
          "margin |f| in ulps of band h (inputs within 128 ulps in the details). Per node type in details.by_node; "
          "details.lipschitz: core's bound vs the documented one and the reference's steepest slope over it. "
          "mismatches: inputs where eval_batch's bits differ from eval<double>'s. No stored values or method.",
          &runs::run_field_eval,
          &runs::replay_field_eval,
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
      {
          "contour.surface_nets",
          "Surface-nets contour vertices",
          PrecisionClass::bits32_in_part,
          {{"core/src/contour/surface_nets.hpp", "add_piece_vertex"},
           {"core/src/contour/node_block.hpp", "cell_pattern"},
           {"core/src/contour/contour.cpp", "contour"}},
          "a cell whose corners differ in sign (value < 0 inside) gets one vertex at the mean of its crossing edges' "
          "points, t = d_lo / (d_lo - d_hi) from each edge's lower corner, at world (i + local) * h; in double",
          "per part and storage, every cell near the surface for the decision; then vertices of sign-changing cells "
          "drawn uniformly from: all such cells; those with a corner within h/64 of zero; those spanning two "
          "bricks; those with an ill-conditioned crossing edge; those with a checkerboard face; the part's copy "
          "~5e5 h from the origin. Each draw from (seed, generator, index); a tenth of --inputs per generator and part.",
          "contour with Mesher::surface_nets (brick-wise), default options",
          "cells and their signs from the stored values read through the audit's own key map; the mean of the "
          "crossing points in high precision from those values and from exact node values clamp(f(i h), +-band h); "
          "the part's formula in high precision at the vertex; edge counts and volume of the mesh computed here",
          kContourErrors,
          &runs::run_contour_surface_nets,
          &runs::replay_contour_surface_nets,
      },
      {
          "contour.marching_cubes",
          "Marching-cubes contour vertices",
          PrecisionClass::bits32_in_part,
          {{"core/src/contour/marching_cubes.hpp", "add_edge_vertex"},
           {"core/src/contour/contour.cpp", "contour"}},
          "a grid edge whose ends differ in sign (value < 0 inside) gets one vertex at t = d0 / (d0 - d1) from its "
          "lower node, at world (i + t e_axis) * h; in double",
          "per part and storage, every grid edge near the surface for the decision; then vertices of sign-changing "
          "edges drawn uniformly from: all such edges; those with an end within h/64 of zero; those joining two "
          "bricks; those whose end values differ by less than h/4; the part's copy ~5e5 h from the origin. Each "
          "draw from (seed, generator, index); a tenth of --inputs per generator and part.",
          "contour with Mesher::marching_cubes (brick-wise)",
          "edges and their signs from the stored values read through the audit's own key map; the crossing in high "
          "precision from those values and from exact node values clamp(f(i h), +-band h); the part's formula in "
          "high precision at the vertex; edge counts and volume of the mesh computed here",
          kContourErrors,
          &runs::run_contour_marching_cubes,
          &runs::replay_contour_marching_cubes,
      },
      {
          "export.stl",
          "Numbers written to STL",
          PrecisionClass::bits32_in_part,
          {{"core/src/mesh_write.cpp", "binary_stl"},
           {"core/src/mesh_write.cpp", "ascii_stl"},
           {"core/src/mesh_write.cpp", "append_f32_le"},
           {"core/src/mesh_write.cpp", "append_number"}},
          "binary STL: each corner coordinate rounded to the nearest float32 (little-endian); ASCII STL: printed "
          "with 17 significant digits",
          "per part and storage: the first --inputs triangles of the surface-nets mesh, at the origin and moved "
          "~5e5 h away; per run: --inputs random corners (exponents 2^-16 .. 2^25, signed zeros)",
          "write_mesh with MeshFormat::stl_binary and stl_ascii into a temporary directory",
          "the written bytes read back by the audit's own STL readers (float32 from the binary layout, strtod for "
          "text); the float nearest each double checked from its two neighbours",
          "error: |read corner - mesh corner| in h and in ulps of the mesh's coordinate (no floor). Binary STL is "
          "the 32-bit exchange step; ASCII STL must read back bit for bit. mismatches: ASCII numbers that do not "
          "read back exactly, and binary floats that are not the nearest float. Nothing stored or discretised: "
          "no arithmetic / storage / method split.",
          &runs::run_export_stl,
          &runs::replay_export_stl,
      },
      {
          "export.obj",
          "Numbers written to OBJ",
          PrecisionClass::exact,
          {{"core/src/mesh_write.cpp", "obj"}, {"core/src/mesh_write.cpp", "append_number"}},
          "each corner and normal coordinate printed with 17 significant digits, which reads back to the same double",
          "per part and storage: the first --inputs triangles of the surface-nets mesh (with normals), at the origin "
          "and moved ~5e5 h away; per run: --inputs random corners (exponents 2^-16 .. 2^25, signed zeros)",
          "write_mesh with MeshFormat::obj into a temporary directory",
          "the written text read back by the audit's own OBJ reader (strtod)",
          "error: |read corner - mesh corner| in h and in ulps of the mesh's coordinate. mismatches: corner or "
          "normal numbers that do not read back bit for bit, and faces that differ. No arithmetic / storage / "
          "method split.",
          &runs::run_export_obj,
          &runs::replay_export_obj,
      },
      {
          "export.ply",
          "Numbers written to PLY",
          PrecisionClass::exact,
          {{"core/src/mesh_write.cpp", "ply"},
           {"core/src/mesh_write.cpp", "append_f64_le"},
           {"core/src/mesh_write.cpp", "append_number"}},
          "ASCII PLY: 17 significant digits per number; binary little-endian PLY: float64 properties, the double's "
          "own bits",
          "per part and storage: the first --inputs triangles of the surface-nets mesh (with normals), at the origin "
          "and moved ~5e5 h away; per run: --inputs random corners (exponents 2^-16 .. 2^25, signed zeros)",
          "write_mesh with MeshFormat::ply_ascii and ply_binary into a temporary directory",
          "the written bytes read back by the audit's own PLY reader (header parsed, float64 from the binary "
          "layout, strtod for text)",
          "error: |read corner - mesh corner| in h and in ulps of the mesh's coordinate. mismatches: numbers that "
          "do not read back bit for bit, and faces that differ. No arithmetic / storage / method split.",
          &runs::run_export_ply,
          &runs::replay_export_ply,
      },
  };
  return list;
}

const std::string& replay_text(const ReplayRequest& request, std::string_view name) {
  for (const auto& [key, value] : request.input.values)
    if (key == name) return value;
  throw Error(ErrorCode::badarg, "the recorded input has no value \"" + std::string(name) + "\"");
}

double replay_double(const ReplayRequest& request, std::string_view name) {
  const std::string& text = replay_text(request, name);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE)
    throw Error(ErrorCode::badarg, "the recorded input \"" + std::string(name) + "\" is not a number: " + text);
  return v;
}

std::int64_t replay_integer(const ReplayRequest& request, std::string_view name) {
  const std::string& text = replay_text(request, name);
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE)
    throw Error(ErrorCode::badarg, "the recorded input \"" + std::string(name) + "\" is not a whole number: " + text);
  return v;
}

const Calculation* find_calculation(std::string_view id) {
  for (const Calculation& c : calculations())
    if (c.id == id) return &c;
  return nullptr;
}

}  // namespace distgrid::audit
