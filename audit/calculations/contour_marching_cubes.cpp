// contour.marching_cubes: the vertices of the marching-cubes mesh, one per grid
// edge whose ends change sign, in float and double bricks.
//
// Implementation under test: contour() with the marching-cubes mesher. For every
// grid edge near the surface the audit decides from the stored values' signs
// whether it needs a vertex and matches the core's vertices to those edges
// (exact). A subset of vertices drawn per stratum is then compared, in high
// precision, with
//   arithmetic  the edge's crossing t = d0 / (d0 - d1) from the same stored values;
//   storage     the same crossing from exact node values clamp(f(i h), +-band h);
//   method      |f| at the exact-value vertex, for parts whose f is a distance.
// Loop-centre vertices (fans of cells whose loops need one) lie on no edge; they
// are counted, not audited. Shared machinery: contour_audit.hpp.
#include "contour_audit.hpp"

namespace distgrid::audit::runs {

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

}  // namespace

std::vector<CalculationResult> run_contour_marching_cubes(RunContext& context) {
  return contour_audit::run(kSpec, context);
}

std::vector<ReplayValue> replay_contour_marching_cubes(RunContext& context, const ReplayRequest& request) {
  return contour_audit::replay(kSpec, context, request);
}

}  // namespace distgrid::audit::runs
