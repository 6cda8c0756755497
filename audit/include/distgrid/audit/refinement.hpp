#pragma once
// The h-refinement series: each part baked at a list of voxel sizes in double
// bricks and in every other storage of the run. It gives the volume's method
// error at each h (for the second-order claim and its fitted order) and, per part
// and h, each storage's error next to the method error (for the comparison's
// verdicts).
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/audit/reference/stored_nodes.hpp"
#include "distgrid/audit/storage.hpp"
#include "distgrid/grid.hpp"

namespace distgrid::audit {

class RunContext;

/// error ~ coefficient * h^order, by least squares on (log h, log |error|).
struct OrderFit {
  std::optional<double> order, coefficient;
  /// Largest |log|error| - fitted log|error||, natural log: how straight the line is.
  std::optional<double> max_log_residual;
  std::string null_reason;  ///< why order is null (fewer than two points, a zero error, equal h)
};

/// Precondition: h and error have equal sizes. Non-positive h, non-finite
/// values and zero errors make the fit null with a reason.
OrderFit fit_order(std::span<const double> h, std::span<const double> error);

/// Nodes stored by both grids of one part and h, and those whose values differ
/// in sign (< 0 inside), each read with the audit's own reference_decode.
struct SignComparison {
  std::size_t nodes_compared = 0, sign_flips = 0;
};
template <class S>
SignComparison compare_signs(const Grid<S>& grid, const Grid<double>& grid_double) {
  SignComparison out;
  const auto& keys = grid_double.stored_keys();
  for (std::size_t slot = 0; slot < keys.size(); ++slot) {
    const auto other = grid.find_slot(keys[slot]);
    if (!other) continue;
    const double* d = grid_double.brick_values(slot);
    for (std::size_t n = 0; n < static_cast<std::size_t>(kBrickNodes); ++n) {
      ++out.nodes_compared;
      if ((reference::stored_node_value(grid, *other, n) < 0) != (d[n] < 0)) ++out.sign_flips;
    }
  }
  return out;
}

/// What bricks of one storage other than double change at one part and h,
/// against the double grid of the same part and h.
struct StorageShare {
  Storage storage = Storage::float32;
  double volume = 0;
  /// |V_storage - V_double| / V_reference: what the storage adds to the volume.
  double volume_storage_relative = 0;
  /// max over the sample points of |storage grid sample - double grid sample| / h.
  double sample_storage_h = 0;
  std::size_t nodes_compared = 0;  ///< nodes stored by both grids
  std::size_t sign_flips = 0;      ///< nodes whose values differ in sign (< 0) from double's
  std::size_t memory_bytes = 0;    ///< Grid::memory_bytes
  double memory_per_brick = 0;     ///< memory_bytes per stored brick
};

/// One part at one h.
struct RefinementPoint {
  double h = 0;
  std::size_t stored_bricks = 0;        ///< double grid
  double volume_double = 0;
  /// (V_double - V_analytic) / V_analytic, signed: the method error (double bricks
  /// cost about 1e-15 of it, arithmetic included; measured by grid.volume).
  double volume_method_relative = 0;
  std::size_t samples = 0;
  /// max over sample points of |double grid sample - clamp(f(p), +-band h)| / h.
  double sample_method_h = 0;
  /// Every storage of the run but double, in the run's order.
  std::vector<StorageShare> shares;
  std::size_t memory_double_bytes = 0;
  double memory_double_per_brick = 0;
  double seconds = 0;              ///< wall time for this point (not compared between runs)
  /// The share of `storage`, or nullptr when the run does not have it.
  const StorageShare* share(Storage storage) const noexcept {
    for (const StorageShare& s : shares)
      if (s.storage == storage) return &s;
    return nullptr;
  }
};

struct RefinementPart {
  std::string part;
  double analytic_volume = 0;       ///< the volume compared with (VolumeReference)
  bool analytic_exact = false;
  double analytic_uncertainty = 0;  ///< relative
  /// The volume is an estimate (Richardson extrapolation of the core's own
  /// volumes), so the fitted order restates the observed one.
  bool reference_estimated = false;
  std::string volume_source;
  std::vector<RefinementPoint> points;  ///< by ascending index into the series (largest h first)
  OrderFit fit;                         ///< of |volume_method_relative| against h
  /// Whether the orders observed between successive h agree: false where the
  /// part's features are only a few voxels wide at these h, so the fit does not
  /// show the method's asymptotic order.
  bool asymptotic = true;
  /// Leading coefficient expected from the mean-curvature bias h^2/12 * integral of
  /// H dA / V (edges counted by their dihedral angle), where the part's shape gives it.
  std::optional<double> predicted_coefficient;
  /// "smooth curved" (sphere, torus), "flat faces and sharp edges" (a box),
  /// "mixed" (flat, curved, rounded and cut features), from the part's formula,
  /// or "polyhedral" (a mesh part).
  std::string surface;
  std::string predicted_null_reason;
};

struct Refinement {
  std::vector<double> h;
  std::vector<RefinementPart> parts;
  /// Parts (h = 0: at every h) or single points of the run left out, with why.
  struct Skipped {
    std::string part;
    double h = 0;
    std::string why;
  };
  std::vector<Skipped> skipped;
  double seconds = 0;
  bool ran = false;
};

/// The series around the run's h: 2h, h, h/2; a quick run 4h, 2h, h (no finer
/// than the run's h).
std::vector<double> default_refinement_series(double h, bool quick);

/// Bakes each of the run's grid parts (formula and mesh parts) at every h of the
/// series in double and in every other storage of the run, and compares its
/// volumes with the part's volume reference (PartSubject::volume_reference). The run's own grids are reused at
/// the run's h; an h where a part's grid would be too large is skipped, with why.
/// Sample points are drawn from (seed, "refinement", part, index).
Refinement run_refinement(RunContext& context, const std::vector<double>& h_series, bool quick);

/// The report's "refinement" section.
nlohmann::json refinement_json(const Refinement& refinement);

}  // namespace distgrid::audit
