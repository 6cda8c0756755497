#include "contour_audit.hpp"

namespace distgrid::audit::calcs {

namespace {
std::vector<CalculationResult> run(RunContext& context);
std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request);
}  // namespace

Calculation contour_marching_cubes() {
  return {
      .id = "contour.marching_cubes",
      .title = "Marching-cubes contour vertices",
      .declared = PrecisionClass::bits32_in_part,
      .sources = {{"core/src/contour/marching_cubes.cpp", "BrickMesher<S>::marching_cubes_brick"},
                  {"core/src/contour/marching_cubes.hpp", "add_edge_vertex"},
                  {"core/src/contour/marching_cubes.hpp", "add_cell_triangles"},
                  {"core/src/contour/brick_mesher.cpp", "BrickMesher<S>::find_signs"},
                  {"core/src/contour/contour.cpp", "contour"}},
      .formula = "a grid edge whose ends differ in sign (value < 0 inside) gets one vertex at t = d0 / (d0 - d1) from "
                 "its lower node, at world (i + t e_axis) * h; in double",
      .inputs = "per part and storage, every grid edge near the surface for the decision; then vertices of "
                "sign-changing edges drawn uniformly from: all such edges; those with an end within h/64 of zero; "
                "those joining two bricks; those whose end values differ by less than h/4; the part's copy ~5e5 h "
                "from the origin. Each draw from (seed, generator, index); a tenth of --inputs per generator and "
                "part.",
      .implementation = "contour with Mesher::marching_cubes (brick-wise)",
      .reference = "edges and their signs from the stored values read through the audit's own key map; the crossing "
                   "in high precision from those values and from exact node values clamp(f(i h), +-band h); the "
                   "part's distance at the vertex (formula in high precision, or the exact distance to a mesh part's "
                   "triangles; an upper bound where the formula is no distance); edge counts and volume of the mesh computed here",
      .errors = contour_audit::kErrors,
      .run = &run,
      .replay = &replay,
      .parts_taken = PartsTaken::grid,
  };
}

namespace {

constexpr contour_audit::Stratum kStrata[] = {
    {"uniform", "an edge drawn uniformly from the grid edges whose ends change sign", 0},
    {"near_node", "a sign-changing edge with an end within h/64 of zero: t near 0 or 1", contour_audit::kNearNode},
    {"brick_border", "a sign-changing edge from local index 7 along its axis: it joins two bricks",
     contour_audit::kBrickBorder},
    {"ill_conditioned", "a sign-changing edge whose end values differ by less than h/4",
     contour_audit::kIllConditioned},
    {"far", "a sign-changing edge of the part's copy moved ~5e5 h from the origin (|x|/h ~ 5e5): positions "
     "where (i + t) * h rounds at a large i", 0, Placement::far},
};

const contour_audit::Spec kSpec{"contour.marching_cubes", Mesher::marching_cubes, kStrata, std::size(kStrata)};


std::vector<CalculationResult> run(RunContext& context) {
  return contour_audit::run(kSpec, context);
}

std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request) {
  return contour_audit::replay(kSpec, context, request);
}

}  // namespace

}  // namespace distgrid::audit::calcs
