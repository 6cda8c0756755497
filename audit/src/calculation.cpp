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
          "bake.plan",
          "Bricks to compute",
          PrecisionClass::bits64,
          {{"core/src/plan.cpp", "plan_brick_range"},
           {"core/src/field_json.cpp", "Field<S>::classify"},
           {"core/src/field_json.cpp", "lipschitz_test"},
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
           {"core/src/field_json.cpp", "Field<S>::eval_batch"}},
          "the formula's tree evaluated in double: primitives' exact distances, min / max for CSG, offsets and "
          "shells, transforms of the point, the gyroid wall",
          "per formula (the default parts and two of the audit's own: a shell of scaled CSG, a uniform gyroid in a "
          "rotated torus): uniform in the box, near the surface (|f| < h), on nodes in the band, and the formula "
          "translated ~5e5 h from the origin",
          "Field<S>::eval<double> and Field<S>::eval_batch",
          "Field<S>::eval<HighPrecision>: the same formula and data in MPFR (the formula is its own definition)",
          "error: eval<double> vs high precision, in h and in ulps of the reference with its magnitude raised to "
          "band h; mismatches: inputs where eval_batch's bits differ from eval<double>'s. No stored values or "
          "method: no split.",
          &runs::run_field_eval,
          &runs::replay_field_eval,
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
