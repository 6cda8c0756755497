#pragma once
// One audit run: its settings, the parts it bakes (once per storage, shared by
// every calculation), and the function that runs the registry and builds the
// report.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/audit/progress.hpp"
#include "distgrid/audit/storage.hpp"
#include "distgrid/default_parts.hpp"
#include "distgrid/field.hpp"
#include "distgrid/grid.hpp"

namespace distgrid::audit {

inline constexpr std::uint64_t kDefaultSeed = 20261201;
/// Inputs per generator and part in a default run: all default parts and both
/// storages take about 25 s in Release on two idle cores (and about 200 MB).
inline constexpr std::size_t kDefaultInputs = 10000;
/// A run with fewer inputs per generator and part than this is quick: the claims
/// draw fewer inputs and the refinement series stops at h = 1/64.
inline constexpr std::size_t kQuickInputsBelow = 1000;

struct RunSettings {
  std::vector<Storage> storages{Storage::float32, Storage::float64};
  std::vector<std::string> parts;         ///< default part names; empty: all of them
  std::vector<std::string> calculations;  ///< registry ids; empty: all of them
  double h = 1.0 / 64;
  double band = 3;
  std::uint64_t seed = kDefaultSeed;  ///< below 2^53, so the report's JSON number is exact
  std::size_t inputs = kDefaultInputs;
  unsigned threads = 0;      ///< 0: every hardware thread; results do not depend on it
  std::string source_dir;    ///< repository root, to find the line ranges of sources
  std::string budgets_path;  ///< gates.json the report's gate statuses come from
};

/// Where a part is baked: as given, or translated far from the origin.
enum class Placement { origin, far };

/// Translation of the far copy in voxels per axis: about 5e5 voxels (|x|/h up
/// to ~5.2e5 with the part), near the edge of the key range (node indices
/// -524288..524287), with fractions of a voxel so the part meets the lattice
/// differently than at the origin.
inline constexpr std::array<double, 3> kFarOffsetVoxels{500000.375, -500000.625, 499999.125};

/// A default part, compiled and baked on first use for each placement and storage.
class PartSubject {
 public:
  PartSubject(const DefaultPart& part, double h, double band, unsigned threads);
  ~PartSubject();
  PartSubject(PartSubject&&) noexcept;

  const DefaultPart& part() const noexcept { return *part_; }
  /// The world offset of the far copy: kFarOffsetVoxels * h.
  std::array<double, 3> far_offset() const noexcept;

  template <class S>
  const Field<S>& field(Placement where);
  template <class S>
  const Grid<S>& grid(Placement where);

 private:
  struct Baked;
  const DefaultPart* part_;
  double h_, band_;
  unsigned threads_;
  std::unique_ptr<Baked> baked_[2];  // by Placement
};

/// What calculations see of a run.
class RunContext {
 public:
  RunContext(const RunSettings& settings, Progress& progress);

  const RunSettings& settings() const noexcept { return settings_; }
  Progress& progress() noexcept { return progress_; }
  unsigned threads() const noexcept { return threads_; }
  bool wants(Storage s) const noexcept;

  std::size_t part_count() const noexcept { return parts_.size(); }
  PartSubject& part(std::size_t n) { return parts_[n]; }
  const PartSubject& part(std::size_t n) const { return parts_[n]; }

 private:
  const RunSettings& settings_;
  Progress& progress_;
  unsigned threads_;
  std::vector<PartSubject> parts_;
};

/// Runs the selected calculations and returns the report (schema
/// distgrid-audit-report/1), gate statuses filled in from settings.budgets_path.
/// Throws distgrid::Error for bad settings (badarg) or unreadable budgets (badfile).
nlohmann::json run_audit(const RunSettings& settings, Progress& progress);

}  // namespace distgrid::audit
