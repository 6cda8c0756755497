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
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/audit/progress.hpp"
#include "distgrid/audit/reference/exact_values.hpp"
#include "distgrid/audit/storage.hpp"
#include "distgrid/default_parts.hpp"
#include "distgrid/field.hpp"
#include "distgrid/grid.hpp"
#include "distgrid/mesh_parts.hpp"

namespace distgrid {
struct PreparedMesh;  // mesh_prepare.hpp
}  // namespace distgrid

namespace distgrid::audit {

inline constexpr std::uint64_t kDefaultSeed = 20261201;
/// Inputs per generator and part in a default run: all default parts and both
/// storages take about 25 s in Release on two idle cores (and about 200 MB).
inline constexpr std::size_t kDefaultInputs = 10000;
/// A run with fewer inputs per generator and part than this is quick: the claims
/// draw fewer inputs and the refinement series stops at h = 1/64.
inline constexpr std::size_t kQuickInputsBelow = 1000;

/// Inputs per generator and part in a quick run (--quick): the first tenth of a
/// default run's inputs, so the default budgets hold for it.
inline constexpr std::size_t kQuickInputs = 1000;

/// A user's own formula part (--spec FILE): the spec is kept in the report, so
/// replay rebuilds the part without the file.
struct SpecPart {
  std::string name;  ///< the file's stem
  std::string file;  ///< as given on the command line
  nlohmann::json spec;
};

/// Which share of a run this is (--shard I/N). Every calculation runs in every
/// shard on the shard's contiguous share of each generator's indices
/// (RunContext::shard_inputs). Shard 0 also runs the claims, the refinement
/// series and the comparison.
struct Shard {
  unsigned index = 0;
  unsigned count = 1;
};

struct RunSettings {
  std::vector<Storage> storages{Storage::float32, Storage::float64};
  /// Default part names; empty: all of them (none when spec_parts are given).
  std::vector<std::string> parts;
  std::vector<SpecPart> spec_parts;
  /// Built-in mesh part names (mesh_part_names()); empty: all of them, unless
  /// mesh_files are given.
  std::vector<std::string> mesh_parts;
  /// A user's mesh files (--mesh FILE), read in RunContext.
  std::vector<std::string> mesh_files;
  /// --allow-open: accept a user's mesh that is open, non-manifold or
  /// inconsistently oriented (else Error(openmesh) naming the file); every
  /// result that depends on its sign is then marked untrusted.
  bool allow_open = false;
  /// --reference-volume NAME=V: a spec part's known volume, the reference of its
  /// method error (else estimated by Richardson extrapolation, grid.volume).
  std::vector<std::pair<std::string, double>> reference_volumes;
  std::vector<std::string> calculations;  ///< registry ids; empty: all of them
  /// The primary voxel size: every calculation bakes at h.
  double h = 1.0 / 64;
  /// A refinement series (--h H1,H2,...), h_series.front() == h; a single h
  /// when empty. Calculations that fit orders of convergence use it.
  std::vector<double> h_series;
  double band = 3;
  std::uint64_t seed = kDefaultSeed;  ///< below 2^53, so the report's JSON number is exact
  std::size_t inputs = kDefaultInputs;
  bool quick = false;        ///< a quick run (inputs = kQuickInputs unless given)
  Shard shard;
  unsigned threads = 0;      ///< 0: every hardware thread; results do not depend on it
  std::string source_dir;    ///< repository root, to find the line ranges of sources
  std::string budgets_path;  ///< gates.json the report's gate statuses come from
  /// `ctest --show-only=json-v1` output naming the property tests (labels
  /// `property` and `calc:<id>`); empty: coverage not known.
  std::string properties_path;

  /// h_series, or {h} when it is empty.
  std::vector<double> refinement_h() const { return h_series.empty() ? std::vector<double>{h} : h_series; }
};

/// A mesh part of the run: a built-in mesh or a user's file (`source` says which).
struct MeshSubject {
  MeshPart part;        ///< name, description, mesh, polyhedral volume
  std::string source;   ///< "built-in" or the file as given
  /// Empty for a closed, consistently oriented mesh; otherwise why its inside and
  /// outside (every sign, every parity) cannot be trusted (only with --allow-open).
  std::string sign_untrusted;
};

/// A part a calculation did not audit, or one of its input generators it did
/// not draw for the part, and why (a report entry's parts_skipped).
struct SkippedPart {
  std::string part;
  std::string reason;
  std::string generator;  ///< empty: the whole part
};

/// The most triangles a mesh part may have for the calculations whose exact
/// reference visits every triangle per input (mesh.node_distance, mesh.normals,
/// mesh.edge_key's prepared keys): icosphere_1k (1280) and torus_mesh (6144) of
/// the built-in meshes.
inline constexpr std::size_t kExactReferenceTriangles = 10000;

/// Where a part is baked: as given, or translated far from the origin.
enum class Placement { origin, far };

/// Translation of the far copy in voxels per axis: about 5e5 voxels (|x|/h up
/// to ~5.2e5 with the part), near the edge of the key range (node indices
/// -524288..524287), with fractions of a voxel so the part meets the lattice
/// differently than at the origin.
inline constexpr std::array<double, 3> kFarOffsetVoxels{500000.375, -500000.625, 499999.125};

/// The volume of a formula part with no analytic or given one, estimated by
/// Richardson extrapolation of the core's double volumes at h, h/2 and h/4:
/// with d1 = V(h) - V(h/2) and d2 = V(h/2) - V(h/4) of one sign and |d2| < |d1|,
/// the observed order p = log2(d1 / d2) and V* = V(h/4) - d2 / (2^p - 1); its
/// uncertainty is the larger of the spread to the extrapolation with the rule's
/// order 2 and the next term's size d2 / ((2^p - 1) 2^p). A series that does not
/// converge monotonically gives V(h/4) with max(|d1|, |d2|).
struct VolumeEstimate {
  std::array<double, 3> h{}, volumes{};
  std::optional<double> order;
  double estimate = 0, uncertainty = 0;
};
/// The estimate as the report gives it (method_estimate).
nlohmann::json volume_estimate_json(const VolumeEstimate& estimate);

/// The volume a part's volumes are compared with: analytic, best known, given
/// (--reference-volume), the polyhedral volume of a mesh, or estimated.
struct VolumeReference {
  double volume = 0;
  double uncertainty = 0;     ///< absolute; 0 when exact
  bool estimated = false;     ///< by Richardson extrapolation (then `estimate` holds how)
  std::string source;         ///< where the number comes from
  std::optional<VolumeEstimate> estimate;
};

/// A part the grid-level calculations audit: a formula part (a default part or
/// a user's spec) or a mesh part (built-in or a user's file), baked on first use
/// for each placement and storage, with the exact shape its references read.
class PartSubject {
 public:
  /// A formula part; `part` must outlive the subject.
  PartSubject(const DefaultPart& part, double h, double band, unsigned threads);
  /// A mesh part; `mesh` must outlive the subject.
  PartSubject(const MeshSubject& mesh, double h, double band, unsigned threads);
  ~PartSubject();
  PartSubject(PartSubject&&) noexcept;

  /// Name, description and volume; a mesh part's spec is null and its volume
  /// the exact polyhedral volume.
  const DefaultPart& part() const noexcept { return *part_; }
  bool is_formula() const noexcept { return mesh_ == nullptr; }
  /// The mesh part, or nullptr for a formula part.
  const MeshSubject* mesh() const noexcept { return mesh_; }
  /// The world offset of the far copy: kFarOffsetVoxels * h.
  std::array<double, 3> far_offset() const noexcept;

  /// The formula of a formula part at `where` (the far copy's moved by far_offset());
  /// null for a mesh part.
  const nlohmann::json& spec(Placement where) const noexcept;
  /// The compiled formula of a formula part; throws std::logic_error for a mesh part.
  template <class S>
  const Field<S>& field(Placement where);
  template <class S>
  const Grid<S>& grid(Placement where);
  /// A fresh bake of the part at the origin at another voxel size (the run's band).
  template <class S>
  Grid<S> bake_at(double h);
  /// What the grid at `where` approximates, in high precision (the references'
  /// exact node values): the formula, or the exact distance to the mesh
  /// (exact up to (band + 2) h from it).
  const reference::ExactShape& shape(Placement where);
  /// The box inputs are drawn in: the shape's bounds widened by (band + 1) h, or
  /// the grid's world box for a formula without a finite box. Error(nobox) with neither.
  template <class S>
  Box draw_box(Placement where);
  /// What the part's volumes are compared with; a formula part with no known
  /// volume is estimated (bakes at h/2 and h/4), once.
  const VolumeReference& volume_reference();

 private:
  struct Baked;
  template <class S>
  Grid<S> bake_in(Placement where, double h);
  const DefaultPart* part_;
  const MeshSubject* mesh_ = nullptr;
  std::unique_ptr<DefaultPart> mesh_info_;  // part_ of a mesh part
  double h_, band_;
  unsigned threads_;
  std::unique_ptr<Baked> baked_[2];  // by Placement
  std::optional<VolumeReference> volume_;
};

/// Input indices [first, last) of one generator.
struct InputRange {
  std::size_t first = 0, last = 0;
  std::size_t size() const noexcept { return last - first; }
};

/// What calculations see of a run.
class RunContext {
 public:
  RunContext(const RunSettings& settings, Progress& progress);

  const RunSettings& settings() const noexcept { return settings_; }
  Progress& progress() noexcept { return progress_; }
  unsigned threads() const noexcept { return threads_; }
  bool wants(Storage s) const noexcept;
  /// This shard's share of a generator's `count` inputs: shard I of N draws
  /// [count I / N, count (I + 1) / N), so the shards in index order draw the
  /// single run's inputs in its order. [0, count) in an unsplit run.
  InputRange shard_inputs(std::size_t count) const noexcept;

  /// The grid parts, in run order: the formula parts (default parts, then the
  /// user's spec parts), then the mesh parts (as mesh_part(n)), each baked into
  /// grids by the grid-level calculations.
  std::size_t part_count() const noexcept { return parts_.size(); }
  PartSubject& part(std::size_t n) { return parts_[n]; }
  const PartSubject& part(std::size_t n) const { return parts_[n]; }
  /// The grid part with this name; nullptr when the run has none.
  PartSubject* find_part(std::string_view name);
  /// The formula parts among the grid parts (the first ones).
  std::size_t formula_part_count() const noexcept { return formula_parts_; }
  /// Mesh parts that are not grid parts, with why: the built-in meshes above
  /// kExactReferenceTriangles when the run names no mesh (stress meshes for the
  /// mesh calculations). A user's mesh and a named built-in one are always grid parts.
  const std::vector<SkippedPart>& meshes_without_grids() const noexcept { return meshes_without_grids_; }

  /// Mesh parts: the user's files when given (plus named built-in meshes),
  /// else the built-in meshes; built or read when the run starts.
  std::size_t mesh_part_count() const noexcept { return mesh_parts_.size(); }
  /// The mesh parts' names in run order.
  std::vector<std::string> mesh_part_names() const;
  const MeshSubject& mesh_part(std::size_t n) const { return mesh_parts_.at(n); }
  /// The mesh parts with at most `max_triangles` triangles, in run order: those a
  /// calculation whose reference visits every triangle per input can afford.
  /// Lists every larger mesh part as skipped by the calculation running (skip_part).
  std::vector<const MeshSubject*> mesh_parts_up_to(std::size_t max_triangles);
  /// The mesh part of this name; Error(badarg) when the run has none (replay).
  const MeshSubject& mesh_part_named(std::string_view name) const;
  /// prepare_mesh of a mesh part, allowing an open mesh only where the run does.
  static PreparedMesh prepare(const MeshSubject& mesh);
  /// The same for the part's mesh as moved (`as`: its far copy).
  static PreparedMesh prepare(const MeshSubject& mesh, const TriangleMesh& as);

  /// Records that the calculation running does not audit `part` (or only not
  /// its `generator`), and why; once per part and generator.
  void skip_part(std::string part, std::string reason, std::string generator = {});
  /// Records that a result of the calculation running depends on the sign of a
  /// mesh part whose sign cannot be trusted (MeshSubject::sign_untrusted); once per part.
  void mark_untrusted(const MeshSubject& mesh);
  /// What skip_part and mark_untrusted recorded since the last call, and clears it.
  std::vector<SkippedPart> take_skipped_parts();
  std::vector<SkippedPart> take_untrusted_parts();

 private:
  void load_mesh_parts();

  const RunSettings& settings_;
  Progress& progress_;
  unsigned threads_;
  std::vector<std::unique_ptr<DefaultPart>> spec_parts_;  // stable addresses for PartSubject
  std::vector<MeshSubject> mesh_parts_;                   // filled once, before parts_
  std::vector<PartSubject> parts_;
  std::size_t formula_parts_ = 0;
  std::vector<SkippedPart> meshes_without_grids_;
  std::vector<SkippedPart> skipped_, untrusted_;
};

/// Throws distgrid::Error(badarg) naming the problem for settings no run accepts.
void check_settings(const RunSettings& settings);

/// The settings section of a report, parsed back into RunSettings (for replay):
/// storages, parts, spec parts, mesh parts and files, h series, band, seed,
/// inputs. Throws distgrid::Error(badfile) when the section is malformed.
RunSettings settings_from_report(const nlohmann::json& settings_section);

/// Runs the selected calculations and returns the report (schema
/// distgrid-audit-report/1), gate statuses filled in from settings.budgets_path.
/// Throws distgrid::Error for bad settings (badarg) or unreadable budgets (badfile).
nlohmann::json run_audit(const RunSettings& settings, Progress& progress);

}  // namespace distgrid::audit
