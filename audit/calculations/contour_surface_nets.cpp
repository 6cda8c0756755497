// contour.surface_nets: the vertices of the surface-nets mesh, one per cell
// whose corners change sign, in float and double bricks.
//
// Implementation under test: contour() with the surface-nets mesher. For every
// cell near the surface the audit decides from the stored values' signs whether
// it needs a vertex and matches the core's vertices to those cells (exact). A
// subset of vertices drawn per stratum is then compared, in high precision, with
//   arithmetic  the mean of the edge crossings from the same stored values;
//   storage     the same mean from exact node values clamp(f(i h), +-band h);
//   method      |f| at the exact-value vertex, for parts whose f is a distance.
// Shared machinery: contour_audit.hpp.
#include "contour_audit.hpp"

namespace distgrid::audit::runs {

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

}  // namespace

std::vector<CalculationResult> run_contour_surface_nets(RunContext& context) {
  return contour_audit::run(kSpec, context);
}

std::vector<ReplayValue> replay_contour_surface_nets(RunContext& context, const ReplayRequest& request) {
  return contour_audit::replay(kSpec, context, request);
}

}  // namespace distgrid::audit::runs
