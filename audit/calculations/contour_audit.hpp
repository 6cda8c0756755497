#pragma once
// What contour.surface_nets and contour.marching_cubes share: the exact list of
// sign-changing cells or edges from the stored values, the match of the core's
// vertices to them, the per-vertex errors against reference vertices in high
// precision, the mesh's topology and the report tables. Each calculation's
// file only names its mesher and its strata.
//
// A "site" is what owns a vertex: a cell (surface nets) or a grid edge from a
// node along an axis (marching cubes). Sites near the surface are enumerated
// from the stored values over every cell brick next to a stored or inside brick;
// a site "crosses" when its corners (ends) differ in sign (value < 0 inside),
// which from stored doubles is an exact decision.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "distgrid/audit/calculation.hpp"
#include "distgrid/audit/run.hpp"
#include "distgrid/contour.hpp"

namespace distgrid::audit::calcs::contour_audit {

using Node = std::array<std::int64_t, 3>;

/// A cell (axis < 0, node its lowest corner) or the grid edge from node along axis.
struct Site {
  Node node{};
  int axis = -1;
  bool operator==(const Site&) const = default;
};

/// Sites a core vertex at p may belong to; empty for a marching-cubes vertex
/// that lies on no grid line (which marching cubes never makes).
std::vector<Site> sites_near(const std::array<double, 3>& p, double h, Mesher mesher);

/// Classes a site belongs to; each non-uniform stratum draws from one.
enum SiteClass : unsigned {
  kNearNode = 1,        ///< a corner within h/64 of zero: a crossing near a node
  kBrickBorder = 2,     ///< the cell or edge spans two bricks (ownership between bricks)
  kIllConditioned = 4,  ///< a crossing edge whose end values differ by less than h/4
  kAmbiguousFace = 8,   ///< a face with inside corners on one diagonal only (checkerboard)
};

struct Stratum {
  const char* name;
  const char* description;
  unsigned site_class;  ///< 0: uniform over all crossing sites
  Placement where = Placement::origin;
};

/// The whole calculation for one mesher over the run's parts and storages.
struct Spec {
  std::string_view id;
  Mesher mesher;
  const Stratum* strata;
  std::size_t stratum_count;
};

/// What both contour calculations compare (their descriptors' `errors`).
inline constexpr std::string_view kErrors = "error: the core vertex vs the high-precision vertex from exact node "
                                            "values (arithmetic + storage), as the Euclidean distance in h and in "
                                            "ulps of the largest coordinate (raised to h). Arithmetic: core vs the "
                                            "high-precision vertex from the same stored values. Storage: high "
                                            "precision from stored vs from exact node values (same crossing edges; a "
                                            "site whose exact values change sign differently is counted, not "
                                            "measured). Method: the exact-value vertex's distance from the surface: |f| "
                                            "for a mesh part and a formula that is a Euclidean distance, else an "
                                            "upper bound (method_estimated). Decision: a vertex for every crossing site and none "
                                            "elsewhere, exact. Normal: |core unit normal - reference unit normal| "
                                            "(about the angle in radians), the reference blending the central "
                                            "differences of the same stored values in high precision; not compared "
                                            "where that blend is below 1e-6 of its terms' magnitudes.";

/// Every stratum of the calculation over the run's parts, one result per storage.
std::vector<CalculationResult> run(const Spec& spec, RunContext& context);
/// Recomputes one recorded vertex (a stratum draw) or one site decision.
std::vector<ReplayValue> replay(const Spec& spec, RunContext& context, const ReplayRequest& request);

}  // namespace distgrid::audit::calcs::contour_audit
