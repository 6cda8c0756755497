#include "contour_audit.hpp"

namespace distgrid::audit::calcs {

namespace {
std::vector<CalculationResult> run(RunContext& context);
std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request);
}  // namespace

Calculation contour_surface_nets() {
  return {
      .id = "contour.surface_nets",
      .title = "Surface-nets contour vertices",
      .declared = PrecisionClass::bits32_in_part,
      .sources = {{"core/src/contour/surface_nets.cpp", "BrickMesher<S>::surface_nets_brick",
                   "the lines under `split` belong to ContourOptions::manifold, which this calculation does not "
                   "audit (see the implementation): reachable through the library, not measured here"},
                  {"core/src/contour/surface_nets.hpp", "flush"},
                  {"core/src/contour/surface_nets.hpp", "locate_lane_vertices"},
                  {"core/src/contour/surface_nets.hpp", "finish_lane_vertices"},
                  {"core/src/contour/surface_nets.hpp", "lane_units_or_zero"},
                  {"core/src/contour/contour.cpp", "contour"},
                  {"core/src/contour/brick_mesher.cpp", "BrickMesher<S>::find_signs"},
                  {"core/src/contour/surface_nets.hpp", "add_edge_quad"}},
      .formula = "a cell whose corners differ in sign (value < 0 inside) gets one vertex at the mean of its crossing "
                 "edges' points, t = d_lo / (d_lo - d_hi) from each edge's lower corner, at world (i + local) * h; in "
                 "double",
      .inputs = "per part and storage, every cell near the surface for the decision; then vertices of sign-changing "
                "cells drawn uniformly from: all such cells; those with a corner within h/64 of zero; those spanning "
                "two bricks; those with an ill-conditioned crossing edge; those with a checkerboard face; the part's "
                "copy ~5e5 h from the origin. Each draw from (seed, generator, index); a tenth of --inputs per "
                "generator and part.",
      .implementation = "contour with Mesher::surface_nets (brick-wise), default options. Not audited: the "
                        "library's ContourOptions::manifold mode, whose split cells get one vertex per piece of "
                        "their surface (add_piece_vertex), for which this calculation has no reference",
      .reference = "cells and their signs from the stored values read through the audit's own key map; the mean of "
                   "the crossing points in high precision from those values and from exact node values clamp(f(i h), "
                   "+-band h); the part's distance at the vertex (formula in high precision, or the exact distance to a "
                   "mesh part's triangles; an upper bound where the formula is no distance); edge counts and volume of the mesh "
                   "computed here; per sign-changing grid edge, the shorter diagonal of the quad of its four cells' "
                   "vertices (squared lengths in long double), which the mesh's two triangles must share",
      .errors = contour_audit::kErrors,
      .run = &run,
      .replay = &replay,
      .parts_taken = PartsTaken::grid,
  };
}

namespace {

constexpr contour_audit::Stratum kStrata[] = {
    {"uniform", "a cell drawn uniformly from the cells whose corners change sign", 0},
    {"near_node", "a sign-changing cell with a corner within h/64 of zero: crossings close to a node",
     contour_audit::kNearNode},
    {"brick_border", "a sign-changing cell spanning two bricks (local index 7 on some axis)",
     contour_audit::kBrickBorder},
    {"ill_conditioned", "a sign-changing cell with a crossing edge whose end values differ by less than h/4",
     contour_audit::kIllConditioned},
    {"ambiguous_face", "a sign-changing cell with a checkerboard face (inside corners on one diagonal)",
     contour_audit::kAmbiguousFace},
    {"far", "a sign-changing cell of the part's copy moved ~5e5 h from the origin (|x|/h ~ 5e5): positions "
     "where (i + t) * h rounds at a large i", 0, Placement::far},
};

const contour_audit::Spec kSpec{"contour.surface_nets", Mesher::surface_nets, kStrata, std::size(kStrata)};


std::vector<CalculationResult> run(RunContext& context) {
  return contour_audit::run(kSpec, context);
}

std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request) {
  return contour_audit::replay(kSpec, context, request);
}

}  // namespace

}  // namespace distgrid::audit::calcs
