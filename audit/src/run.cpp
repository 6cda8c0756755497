#include "distgrid/audit/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <system_error>
#include <thread>
#include <tuple>
#include <utility>

#include "distgrid/audit/calculation.hpp"
#include "distgrid/audit/claim_gate.hpp"
#include "distgrid/audit/claims.hpp"
#include "distgrid/audit/comparison.hpp"
#include "distgrid/audit/confidence.hpp"
#include "distgrid/audit/gate.hpp"
#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/properties.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/bake.hpp"
#include "distgrid/error.hpp"
#include "distgrid/field_json.hpp"
#include "distgrid/mesh_bake.hpp"
#include "distgrid/mesh_io.hpp"

namespace distgrid::audit {

struct PartSubject::Baked {
  nlohmann::json spec;                 // a formula part's spec at this placement
  std::optional<PreparedMesh> mesh;    // a mesh part's mesh at this placement, prepared for the bake
  std::optional<Field<float>> field_float;
  std::optional<Field<double>> field_double;
  std::tuple<std::optional<Grid<float>>, std::optional<Grid<double>>, std::optional<Grid<Half>>,
             std::optional<Grid<Q16>>, std::optional<Grid<Q8>>>
      grids;
  std::unique_ptr<reference::ExactShape> shape;
};

namespace {

template <class S>
std::optional<Field<S>>& field_slot(auto& baked) {
  if constexpr (sizeof(S) == 4) return baked.field_float;
  else return baked.field_double;
}

template <class S>
std::optional<Grid<S>>& grid_slot(auto& baked) {
  return std::get<std::optional<Grid<S>>>(baked.grids);
}

/// Whether f of this spec is the Euclidean signed distance itself (so |f(v)| is
/// how far v lies from the surface): primitives with exact distances, moved,
/// turned or offset. CSG and lattices give bounds only.
bool is_euclidean_distance(const nlohmann::json& spec) {
  const std::string type = spec.value("type", "");
  if (type == "sphere" || type == "torus" || type == "box") return true;
  if (type == "translate" || type == "rotate" || type == "offset") return is_euclidean_distance(spec.at("shape"));
  return false;
}

/// The mesh's corners per triangle, moved by `offset` (as the far copy's bake sees them).
std::vector<reference::TriangleCorners> triangle_corners(const TriangleMesh& mesh, const std::array<double, 3>& offset) {
  std::vector<reference::TriangleCorners> out;
  out.reserve(mesh.triangles.size());
  for (const auto& t : mesh.triangles) {
    reference::TriangleCorners corners;
    for (std::size_t c = 0; c < 3; ++c)
      for (std::size_t a = 0; a < 3; ++a) corners[c][a] = mesh.positions[t[c]][a] + offset[a];
    out.push_back(corners);
  }
  return out;
}

/// How far beyond the band a mesh part's exact distance stays exact: the
/// gradient's difference steps and the draws at the band's edge reach h/8 beyond it.
constexpr double kMeshReachBeyondBandVoxels = 2;

}  // namespace

PartSubject::PartSubject(const DefaultPart& part, double h, double band, unsigned threads)
    : part_(&part), h_(h), band_(band), threads_(threads) {
  baked_[0] = std::make_unique<Baked>();
  baked_[0]->spec = part.spec;
  baked_[1] = std::make_unique<Baked>();
  const std::array<double, 3> by = far_offset();
  baked_[1]->spec = {{"type", "translate"}, {"by", {by[0], by[1], by[2]}}, {"shape", part.spec}};
}

PartSubject::PartSubject(const MeshSubject& mesh, double h, double band, unsigned threads)
    : part_(nullptr), mesh_(&mesh), h_(h), band_(band), threads_(threads) {
  mesh_info_ = std::make_unique<DefaultPart>();
  mesh_info_->name = mesh.part.name;
  mesh_info_->description = mesh.part.description;
  mesh_info_->spec = nullptr;
  mesh_info_->volume = mesh.part.volume;
  mesh_info_->volume_exact = true;
  mesh_info_->volume_source = "the mesh's polyhedral volume, exact";
  part_ = mesh_info_.get();
  baked_[0] = std::make_unique<Baked>();
  baked_[1] = std::make_unique<Baked>();
}

PartSubject::~PartSubject() = default;
PartSubject::PartSubject(PartSubject&&) noexcept = default;

std::array<double, 3> PartSubject::far_offset() const noexcept {
  return {kFarOffsetVoxels[0] * h_, kFarOffsetVoxels[1] * h_, kFarOffsetVoxels[2] * h_};
}

const nlohmann::json& PartSubject::spec(Placement where) const noexcept {
  return baked_[static_cast<int>(where)]->spec;
}

template <class S>
const Field<S>& PartSubject::field(Placement where) {
  if (mesh_) throw std::logic_error("PartSubject::field: " + part_->name + " is a mesh part");
  Baked& b = *baked_[static_cast<int>(where)];
  auto& slot = field_slot<S>(b);
  if (!slot) slot.emplace(compile_field<S>(b.spec));
  return *slot;
}

template <class S>
Grid<S> PartSubject::bake_in(Placement where, double h) {
  if (!mesh_) {
    BakeSettings settings;
    settings.h = h;
    settings.band = band_;
    settings.threads = threads_;
    return bake<S>(field<FieldScalarOf<S>>(where), settings);
  }
  Baked& b = *baked_[static_cast<int>(where)];
  if (!b.mesh) {
    TriangleMesh moved = mesh_->part.mesh;
    if (where == Placement::far) {
      const std::array<double, 3> by = far_offset();
      for (auto& p : moved.positions)
        for (std::size_t a = 0; a < 3; ++a) p[a] += by[a];
    }
    b.mesh = RunContext::prepare(*mesh_, moved);
  }
  MeshBakeSettings settings;
  settings.h = h;
  settings.band = band_;
  settings.threads = threads_;
  return bake_mesh<S>(*b.mesh, settings);
}

template <class S>
const Grid<S>& PartSubject::grid(Placement where) {
  auto& slot = grid_slot<S>(*baked_[static_cast<int>(where)]);
  if (!slot) slot.emplace(bake_in<S>(where, h_));
  return *slot;
}

template <class S>
Grid<S> PartSubject::bake_at(double h) {
  return bake_in<S>(Placement::origin, h);
}

const reference::ExactShape& PartSubject::shape(Placement where) {
  Baked& b = *baked_[static_cast<int>(where)];
  if (!b.shape) {
    if (mesh_)
      b.shape = std::make_unique<reference::MeshShape>(
          triangle_corners(mesh_->part.mesh, where == Placement::far ? far_offset() : std::array<double, 3>{0, 0, 0}),
          (band_ + kMeshReachBeyondBandVoxels) * h_);
    else
      b.shape = std::make_unique<reference::FormulaShape<double>>(field<double>(where), is_euclidean_distance(b.spec));
  }
  return *b.shape;
}

template <class S>
Box PartSubject::draw_box(Placement where) {
  const Box bounds = shape(where).bounds();
  if (bounds.finite() && !bounds.empty()) {
    Box box = bounds;
    for (std::size_t a = 0; a < 3; ++a) {
      box.lo[a] -= (band_ + 1) * h_;
      box.hi[a] += (band_ + 1) * h_;
    }
    return box;
  }
  if (auto world = grid<S>(where).world_box()) return *world;
  throw Error(ErrorCode::nobox, "part " + part_->name + " has no finite box and no stored bricks to draw points in");
}

namespace {

VolumeEstimate estimate_volume(const Field<double>& field, double h, double band, unsigned threads) {
  VolumeEstimate out;
  for (std::size_t n = 0; n < 3; ++n) {
    out.h[n] = std::ldexp(h, -static_cast<int>(n));
    BakeSettings bake_settings;
    bake_settings.h = out.h[n];
    bake_settings.band = band;
    bake_settings.threads = threads;
    out.volumes[n] = bake(field, bake_settings).volume();
  }
  const double d1 = out.volumes[0] - out.volumes[1], d2 = out.volumes[1] - out.volumes[2];
  if (d1 != 0 && d2 != 0 && (d1 > 0) == (d2 > 0) && std::fabs(d2) < std::fabs(d1)) {
    const double p = std::log2(d1 / d2);
    out.order = p;
    out.estimate = out.volumes[2] - d2 / (std::exp2(p) - 1);
    const double with_order_2 = out.volumes[2] - d2 / 3;
    out.uncertainty =
        std::fmax(std::fabs(out.estimate - with_order_2), std::fabs(d2) / ((std::exp2(p) - 1) * std::exp2(p)));
  } else {
    out.estimate = out.volumes[2];
    out.uncertainty = std::fmax(std::fabs(d1), std::fabs(d2));
  }
  return out;
}

}  // namespace

nlohmann::json volume_estimate_json(const VolumeEstimate& e) {
  return {{"method", "Richardson extrapolation of the core's double volumes at h, h/2, h/4"},
          {"h", {e.h[0], e.h[1], e.h[2]}},
          {"volumes", {finite_or_null(e.volumes[0]), finite_or_null(e.volumes[1]), finite_or_null(e.volumes[2])}},
          {"order", e.order ? finite_or_null(*e.order) : nlohmann::json(nullptr)},
          {"order_null_reason", e.order ? nlohmann::json(nullptr)
                                        : nlohmann::json("the series does not converge monotonically: the estimate "
                                                         "is the volume at h/4, its uncertainty the larger step")},
          {"estimate", finite_or_null(e.estimate)},
          {"uncertainty", finite_or_null(e.uncertainty)},
          {"relative_uncertainty", finite_or_null(e.uncertainty / std::fabs(e.estimate))}};
}

const VolumeReference& PartSubject::volume_reference() {
  if (volume_) return *volume_;
  VolumeReference r;
  if (std::isfinite(part_->volume) && part_->volume > 0) {
    r.volume = part_->volume;
    r.uncertainty = part_->volume_uncertainty;
    r.source = part_->volume_source;
  } else {
    r.estimate = estimate_volume(field<double>(Placement::origin), h_, band_, threads_);
    r.volume = r.estimate->estimate;
    r.uncertainty = r.estimate->uncertainty;
    r.estimated = true;
    r.source = "estimated by Richardson extrapolation of the core's volumes at h, h/2 and h/4 (method_estimate)";
  }
  volume_ = std::move(r);
  return *volume_;
}

template const Field<float>& PartSubject::field<float>(Placement);
template const Field<double>& PartSubject::field<double>(Placement);
#define DISTGRID_AUDIT_PART_STORAGE(S)                               \
  template const Grid<S>& PartSubject::grid<S>(Placement);           \
  template Grid<S> PartSubject::bake_at<S>(double);                  \
  template Box PartSubject::draw_box<S>(Placement);
DISTGRID_AUDIT_PART_STORAGE(float)
DISTGRID_AUDIT_PART_STORAGE(double)
DISTGRID_AUDIT_PART_STORAGE(Half)
DISTGRID_AUDIT_PART_STORAGE(Q16)
DISTGRID_AUDIT_PART_STORAGE(Q8)
#undef DISTGRID_AUDIT_PART_STORAGE

RunContext::RunContext(const RunSettings& settings, Progress& progress)
    : settings_(settings),
      progress_(progress),
      threads_(settings.threads > 0 ? settings.threads : std::max(1u, std::thread::hardware_concurrency())) {
  for (const std::string& name : settings.parts)
    parts_.emplace_back(default_part(name), settings.h, settings.band, threads_);
  for (const SpecPart& spec : settings.spec_parts) {
    auto part = std::make_unique<DefaultPart>();
    part->name = spec.name;
    part->description = "a user's formula part, from " + spec.file;
    part->spec = spec.spec;
    part->volume_source = "a user's part: no analytic volume";
    for (const auto& [name, volume] : settings.reference_volumes)
      if (name == spec.name) {
        part->volume = volume;
        part->volume_source = "given with --reference-volume (not checked by the audit)";
      }
    parts_.emplace_back(*part, settings.h, settings.band, threads_);
    spec_parts_.push_back(std::move(part));
  }
  if (settings.parts.empty() && settings.spec_parts.empty())
    for (const DefaultPart& p : default_parts()) parts_.emplace_back(p, settings.h, settings.band, threads_);
  formula_parts_ = parts_.size();
  load_mesh_parts();
  for (const MeshSubject& mesh : mesh_parts_) {
    const std::size_t triangles = mesh.part.mesh.triangles.size();
    if (mesh.source == "built-in" && settings.mesh_parts.empty() && triangles > kExactReferenceTriangles) {
      meshes_without_grids_.push_back(
          {mesh.part.name,
           "a built-in stress mesh of " + std::to_string(triangles) + " triangles for the mesh calculations: by "
           "default the grid calculations audit the built-in meshes of at most " +
               std::to_string(kExactReferenceTriangles) + " triangles; name it with --part to audit its grids",
           {}});
      continue;
    }
    parts_.emplace_back(mesh, settings.h, settings.band, threads_);
  }
}

bool RunContext::wants(Storage s) const noexcept {
  return std::find(settings_.storages.begin(), settings_.storages.end(), s) != settings_.storages.end();
}

InputRange RunContext::shard_inputs(std::size_t count) const noexcept {
  const std::size_t index = settings_.shard.index, shards = settings_.shard.count;
  return {count * index / shards, count * (index + 1) / shards};
}

PartSubject* RunContext::find_part(std::string_view name) {
  for (PartSubject& p : parts_)
    if (p.part().name == name) return &p;
  return nullptr;
}

namespace {

/// "79 boundary edges, 2 intersecting triangle pairs": what keeps a mesh from being solid.
std::string describe_defects(const MeshReport& r) {
  std::string text;
  const auto add = [&](std::size_t count, const char* what) {
    if (count == 0) return;
    text += (text.empty() ? "" : ", ") + std::to_string(count) + " " + what;
  };
  add(r.boundary_edges, "boundary edges");
  add(r.nonmanifold_edges, "non-manifold edges");
  add(r.inconsistent_edges, "inconsistently oriented edges");
  add(r.intersecting_pairs, "intersecting triangle pairs");
  add(r.misnested_shells, "misnested shells");
  return text;
}

/// Built-in mesh part names a run uses (see RunSettings::mesh_parts).
std::vector<std::string> builtin_mesh_names(const RunSettings& s) {
  if (!s.mesh_parts.empty()) return s.mesh_parts;
  if (!s.mesh_files.empty()) return {};
  return mesh_part_names();
}

}  // namespace

void RunContext::load_mesh_parts() {
  std::vector<MeshSubject> loaded;
  for (const std::string& name : builtin_mesh_names(settings_)) loaded.push_back({distgrid::mesh_part(name), "built-in", {}});
  for (const std::string& file : settings_.mesh_files) {
    MeshSubject subject;
    subject.part.name = std::filesystem::path(file).stem().string();
    subject.part.description = "a user's mesh, from " + file;
    subject.part.mesh = read_mesh(file);
    subject.part.volume = polyhedral_volume(subject.part.mesh);
    subject.source = file;
    // openmesh (or selfintersect, badmesh) naming the file unless --allow-open.
    const PreparedMesh prepared = prepare_mesh(subject.part.mesh, file, settings_.allow_open);
    if (!prepared.report.solid())
      subject.sign_untrusted = "accepted with --allow-open: " + describe_defects(prepared.report) +
                               ", so inside and outside are not defined";
    loaded.push_back(std::move(subject));
  }
  mesh_parts_ = std::move(loaded);
}

std::vector<std::string> RunContext::mesh_part_names() const {
  std::vector<std::string> names = builtin_mesh_names(settings_);
  for (const std::string& file : settings_.mesh_files) names.push_back(std::filesystem::path(file).stem().string());
  return names;
}

std::vector<const MeshSubject*> RunContext::mesh_parts_up_to(std::size_t max_triangles) {
  std::vector<const MeshSubject*> parts;
  for (const MeshSubject& m : mesh_parts_) {
    if (m.part.mesh.triangles.size() <= max_triangles) parts.push_back(&m);
    else
      skip_part(m.part.name, std::to_string(m.part.mesh.triangles.size()) + " triangles, more than the " +
                                 std::to_string(max_triangles) + " its exact reference can visit per input");
  }
  return parts;
}

const MeshSubject& RunContext::mesh_part_named(std::string_view name) const {
  for (const MeshSubject& m : mesh_parts_)
    if (m.part.name == name) return m;
  throw Error(ErrorCode::badarg, "replay: the run has no mesh part named \"" + std::string(name) + "\"");
}

PreparedMesh RunContext::prepare(const MeshSubject& mesh) { return prepare(mesh, mesh.part.mesh); }

PreparedMesh RunContext::prepare(const MeshSubject& mesh, const TriangleMesh& as) {
  return prepare_mesh(as, mesh.source == "built-in" ? mesh.part.name : mesh.source, !mesh.sign_untrusted.empty());
}

void RunContext::skip_part(std::string part, std::string reason, std::string generator) {
  for (const SkippedPart& s : skipped_)
    if (s.part == part && s.generator == generator) return;
  skipped_.push_back({std::move(part), std::move(reason), std::move(generator)});
}

void RunContext::mark_untrusted(const MeshSubject& mesh) {
  if (mesh.sign_untrusted.empty()) return;
  for (const SkippedPart& s : untrusted_)
    if (s.part == mesh.part.name) return;
  untrusted_.push_back({mesh.part.name, mesh.sign_untrusted, {}});
}

std::vector<SkippedPart> RunContext::take_skipped_parts() { return std::exchange(skipped_, {}); }
std::vector<SkippedPart> RunContext::take_untrusted_parts() { return std::exchange(untrusted_, {}); }

void check_settings(const RunSettings& s) {
  if (!std::isfinite(s.h) || !(s.h > 0)) throw Error(ErrorCode::badarg, "--h must be finite and > 0");
  for (double h : s.h_series)
    if (!std::isfinite(h) || !(h > 0)) throw Error(ErrorCode::badarg, "--h: every value must be finite and > 0");
  if (!s.h_series.empty() && s.h_series.front() != s.h)
    throw Error(ErrorCode::badarg, "--h: the series must start with the primary h");
  if (!std::isfinite(s.band) || !(s.band >= 1)) throw Error(ErrorCode::badarg, "--band must be finite and >= 1");
  if (s.seed >= (std::uint64_t{1} << 53)) throw Error(ErrorCode::badarg, "--seed must be below 2^53");
  if (s.inputs == 0) throw Error(ErrorCode::badarg, "--inputs must be at least 1");
  if (s.storages.empty()) throw Error(ErrorCode::badarg, "no storage selected");
  if (s.shard.count == 0 || s.shard.index >= s.shard.count)
    throw Error(ErrorCode::badarg, "--shard I/N needs N >= 1 and 0 <= I < N");
  for (const std::string& id : s.calculations)
    if (!find_calculation(id)) throw Error(ErrorCode::badarg, "unknown calculation \"" + id + "\"");
  for (const std::string& name : s.parts) (void)default_part(name);  // throws badarg naming the known parts
  const std::vector<std::string> meshes = mesh_part_names();
  for (const std::string& name : s.mesh_parts)
    if (std::find(meshes.begin(), meshes.end(), name) == meshes.end())
      throw Error(ErrorCode::badarg, "unknown mesh part \"" + name + "\"");
  std::vector<std::string> names;
  for (const SpecPart& p : s.spec_parts) names.push_back(p.name);
  for (const std::string& name : s.parts) names.push_back(name);
  std::sort(names.begin(), names.end());
  if (auto twin = std::adjacent_find(names.begin(), names.end()); twin != names.end())
    throw Error(ErrorCode::badarg, "two formula parts are named \"" + *twin + "\"");
  for (const auto& given : s.reference_volumes) {
    const std::string& name = given.first;
    const double volume = given.second;
    if (std::none_of(s.spec_parts.begin(), s.spec_parts.end(), [&](const SpecPart& p) { return p.name == name; }))
      throw Error(ErrorCode::badarg, "--reference-volume " + name + ": the run has no spec part named \"" + name +
                                         "\" (built-in parts and meshes have their own volumes)");
    if (!std::isfinite(volume) || !(volume > 0))
      throw Error(ErrorCode::badarg, "--reference-volume " + name + ": the volume must be finite and > 0");
  }
  std::vector<std::string> mesh_names = builtin_mesh_names(s);
  for (const std::string& file : s.mesh_files) mesh_names.push_back(std::filesystem::path(file).stem().string());
  std::sort(mesh_names.begin(), mesh_names.end());
  if (auto twin = std::adjacent_find(mesh_names.begin(), mesh_names.end()); twin != mesh_names.end())
    throw Error(ErrorCode::badarg, "two mesh parts are named \"" + *twin + "\" (a part is named after its file's stem)");
}

namespace {

nlohmann::json reference_volumes_json(const RunSettings& s) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, volume] : s.reference_volumes) out[name] = volume;
  return out;
}

nlohmann::json settings_json(const RunSettings& s, const RunContext& context) {
  nlohmann::json storages = nlohmann::json::array(), parts = nlohmann::json::array(),
                 spec_parts = nlohmann::json::array(), h_series = nlohmann::json::array();
  for (Storage st : s.storages) storages.push_back(storage_name(st));
  for (std::size_t n = 0; n < context.formula_part_count(); ++n) {
    const std::string& name = context.part(n).part().name;
    bool is_spec = false;
    for (const SpecPart& p : s.spec_parts) is_spec = is_spec || p.name == name;
    if (!is_spec) parts.push_back(name);
  }
  for (const SpecPart& p : s.spec_parts) spec_parts.push_back({{"name", p.name}, {"file", p.file}, {"spec", p.spec}});
  for (double h : s.refinement_h()) h_series.push_back(h);
  const auto far = kFarOffsetVoxels;
  return {{"storage", storages},
          {"parts", parts},
          {"spec_parts", spec_parts},
          {"mesh_parts", builtin_mesh_names(s)},
          {"mesh_files", s.mesh_files},
          {"allow_open", s.allow_open},
          {"reference_volumes", reference_volumes_json(s)},
          {"h", s.h},
          {"h_hex", hex_float(s.h)},
          {"h_series", h_series},
          {"band", s.band},
          {"seed", s.seed},
          {"inputs_per_generator_and_part", s.inputs},
          {"quick", s.quick},
          {"threads", context.threads()},
          {"far_offset_voxels", {far[0], far[1], far[2]}},
          {"reference",
           {{"type", "Boost.Multiprecision mpfr_float_backend<40> (MPFR)"}, {"bits", kReferenceBits}}},
          {"units",
           {{"h", "absolute error / h"},
            {"ulps",
             "absolute error / ulp of the reference as a double (the gap to the next larger double); "
             "for distances the reference's magnitude is raised to band*h first, so results near zero "
             "count in ulps of band*h; volumes have no floor"},
            {"bits", "log2(1 + ulps): bits of a double's 53 spoiled by the error"},
            {"relative", "absolute error / |reference|"},
            {"p99", "nearest rank: the ceil(0.99 n)-th smallest value"}}},
          {"measured_class_rule",
           "from the error's max in ulps: exact when 0 (and no mismatch); 64-bit up to 1024 ulps (10 "
           "bits); 32-bit in part above (a float step costs about 2^28 ulps on a value, above 2^13 on a "
           "volume sum); inexact when a calculation declared exact gave a wrong answer"}};
}

/// The box of a mesh's corners, moved by `offset` and widened by `margin`.
Box mesh_box(const TriangleMesh& mesh, const std::array<double, 3>& offset, double margin) {
  Box box;
  const double inf = std::numeric_limits<double>::infinity();
  box.lo = {inf, inf, inf};
  box.hi = {-inf, -inf, -inf};
  for (const auto& p : mesh.positions)
    for (std::size_t a = 0; a < 3; ++a) {
      box.lo[a] = std::min(box.lo[a], p[a] + offset[a] - margin);
      box.hi[a] = std::max(box.hi[a], p[a] + offset[a] + margin);
    }
  return box;
}

/// The measured data budget models name (gate.hpp's model_names): the largest
/// |x|/h of the grid parts' inputs at the origin and in the far copy (each
/// part's box padded by the band), and whether h is a power of two.
void put_model_settings(nlohmann::json& section, const RunSettings& s, RunContext& context) {
  double reach = 0, far = 0;
  for (std::size_t n = 0; n < context.part_count(); ++n)
    for (Placement where : {Placement::origin, Placement::far}) {
      PartSubject& part = context.part(n);
      const Box box = part.is_formula() ? part.field<double>(where).bounds_within(s.band * s.h)
                                        : mesh_box(part.mesh()->part.mesh, where == Placement::far ? part.far_offset()
                                                                                                 : std::array<double, 3>{},
                                                   s.band * s.h);
      double& largest = where == Placement::origin ? reach : far;
      for (std::size_t a = 0; a < 3; ++a)
        for (double x : {box.lo[a], box.hi[a]})
          if (std::isfinite(x)) largest = std::max(largest, std::fabs(x) / s.h);
    }
  int exponent = 0;
  section["reach_voxels"] = reach;
  section["largest_abs_x_over_h"] = std::max(reach, far);
  section["h_power_of_two"] = std::frexp(s.h, &exponent) == 0.5;
}

/// Why a calculation on compiled formulas lists a mesh part as skipped.
constexpr const char* kMeshHasNoFormula =
    "a mesh part has no formula: this calculation audits compiled formulas; the grids baked from the mesh "
    "are audited by the grid, contour and export calculations";

nlohmann::json skipped_parts_json(const std::vector<SkippedPart>& parts) {
  nlohmann::json out = nlohmann::json::array();
  for (const SkippedPart& p : parts) {
    out.push_back({{"part", p.part}, {"reason", p.reason}});
    if (!p.generator.empty()) out.back()["generator"] = p.generator;
  }
  return out;
}

bool selected(const RunSettings& s, std::string_view id) {
  return s.calculations.empty() || std::find(s.calculations.begin(), s.calculations.end(), id) != s.calculations.end();
}

}  // namespace

RunSettings settings_from_report(const nlohmann::json& section) {
  RunSettings s;
  try {
    s.storages.clear();
    for (const nlohmann::json& name : section.at("storage")) {
      const std::optional<Storage> st = parse_storage(name.get<std::string>());
      if (!st) throw Error(ErrorCode::badfile, "/settings/storage: unknown storage " + name.dump());
      s.storages.push_back(*st);
    }
    s.parts = section.at("parts").get<std::vector<std::string>>();
    for (const nlohmann::json& p : section.at("spec_parts"))
      s.spec_parts.push_back({p.at("name").get<std::string>(), p.at("file").get<std::string>(), p.at("spec")});
    s.mesh_parts = section.at("mesh_parts").get<std::vector<std::string>>();
    s.mesh_files = section.at("mesh_files").get<std::vector<std::string>>();
    s.allow_open = section.value("allow_open", false);
    if (section.contains("reference_volumes"))
      for (const auto& [name, volume] : section.at("reference_volumes").items())
        s.reference_volumes.emplace_back(name, volume.get<double>());
    s.h = section.at("h").get<double>();
    s.h_series = section.at("h_series").get<std::vector<double>>();
    s.band = section.at("band").get<double>();
    s.seed = section.at("seed").get<std::uint64_t>();
    s.inputs = section.at("inputs_per_generator_and_part").get<std::size_t>();
    s.quick = section.at("quick").get<bool>();
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorCode::badfile, std::string("/settings of the report is malformed: ") + e.what());
  }
  return s;
}

nlohmann::json run_audit(const RunSettings& settings, Progress& progress) {
  check_settings(settings);
  const std::vector<Budget> budgets = load_budgets(settings.budgets_path);
  const nlohmann::json ctest_listing =
      settings.properties_path.empty() ? nlohmann::json() : read_ctest_listing(settings.properties_path);
  const auto started = std::chrono::steady_clock::now();
  RunContext context(settings, progress);
  nlohmann::json settings_section = settings_json(settings, context);
  put_model_settings(settings_section, settings, context);

  nlohmann::json entries = nlohmann::json::array();
  nlohmann::json counts = nlohmann::json::object();
  const std::vector<Calculation>& registry = calculations();
  for (std::size_t position = 0; position < registry.size(); ++position) {
    const Calculation& calculation = registry[position];
    if (!selected(settings, calculation.id)) continue;
    const auto calculation_started = std::chrono::steady_clock::now();
    const std::vector<CalculationResult> results = calculation.run(context);
    std::vector<SkippedPart> skipped = context.take_skipped_parts();
    if (calculation.parts_taken == PartsTaken::formula)
      for (const std::string& name : context.mesh_part_names()) context.skip_part(name, kMeshHasNoFormula);
    if (calculation.parts_taken == PartsTaken::grid)
      for (const SkippedPart& mesh : context.meshes_without_grids()) context.skip_part(mesh.part, mesh.reason);
    for (SkippedPart& s : context.take_skipped_parts()) skipped.push_back(std::move(s));
    const std::vector<SkippedPart> untrusted = context.take_untrusted_parts();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - calculation_started).count();
    std::size_t evaluations = 0;
    for (const CalculationResult& result : results)
      for (const StratumCount& s : result.strata) evaluations += s.count;
    for (const CalculationResult& result : results) {
      nlohmann::json entry = calculation_json(calculation, result, settings.source_dir);
      entry["parts_skipped"] = skipped_parts_json(skipped);
      if (!untrusted.empty()) entry["sign_untrusted"] = skipped_parts_json(untrusted);
      entry["properties"] = property_coverage(ctest_listing, calculation.id);
      const std::vector<GateCheck> checks = check_entry(entry, budgets, settings_section);
      entry["gate"] = gate_json(checks);
      // The inputs within each budget that gates at these settings, at its value here.
      std::vector<Budget> limits;
      for (const GateCheck& c : checks)
        if (c.limit && c.status != CheckStatus::informational) {
          limits.push_back(c.budget);
          limits.back().max = *c.limit;
          limits.back().model.clear();
        }
      std::vector<std::string> generators;
      for (const StratumCount& s : result.strata) generators.push_back(s.name);
      entry["confidence"] = confidence_json(tally_within_budgets(calculation.id, result, limits), generators);
      put_timing(entry, seconds, evaluations);
      if (settings.shard.count > 1) entry["shard_data"] = shard_data_json(result);
      entries.push_back(std::move(entry));
    }
    if (!results.empty()) {
      nlohmann::json& c = counts[std::string(calculation.id)];
      for (const StratumCount& s : results.front().strata) c[s.name] = s.count;
    }
  }
  // Claims, the refinement series and the storage comparison. The comparison
  // needs float, double and every calculation (half, q16 and q8 join it); a claim runs when one
  // of its calculations is selected. None of them depends on the calculation
  // entries except the comparison's rows, so in a split run shard 0 computes
  // them whole (its comparison rows cover its own entries; merge recomputes
  // them from every entry) and the other shards leave them out.
  const bool quick = settings.quick || settings.inputs < kQuickInputsBelow;
  const bool first_shard = settings.shard.index == 0;
  const bool compare = first_shard && context.wants(Storage::float32) && context.wants(Storage::float64) &&
                       settings.calculations.empty();
  bool any_claim = false, claim_needs_refinement = false;
  for (const Claim& claim : claims()) {
    const bool selected = first_shard && claim_selected(claim, settings.calculations);
    any_claim = any_claim || selected;
    claim_needs_refinement = claim_needs_refinement || (selected && claim.needs_refinement);
  }
  Refinement refinement;
  if (compare || claim_needs_refinement)
    refinement = run_refinement(
        context, settings.h_series.size() > 1 ? settings.h_series : default_refinement_series(settings.h, quick),
        quick);
  nlohmann::json claims_section;
  bool claims_pass = true;
  if (any_claim) {
    ClaimContext claim_context{context, refinement, quick};
    claims_section = run_claims(claim_context);
    const nlohmann::json partial = {{"claims", claims_section}};
    claims_pass = check_claims(partial, load_claim_gates(settings.budgets_path)).empty();
  }

  nlohmann::json comparison_section;
  if (compare) comparison_section = comparison_json(context, entries, refinement, settings_section);

  settings_section["inputs"] = counts;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  // The budgets file relative to the repository when it lies inside it, so a
  // report names no machine path for the checked-in gates.
  std::string budgets_name = settings.budgets_path;
  {
    std::error_code ec;
    const auto relative = std::filesystem::relative(settings.budgets_path, settings.source_dir, ec);
    if (!ec && !relative.empty() && relative.native().rfind("..", 0) != 0) budgets_name = relative.generic_string();
  }
  // A split calculation's shard entry holds part of its inputs, and a part's
  // p99 or mean may exceed the whole run's: merge gates the joined entry, so a
  // shard's status leaves it out.
  nlohmann::json gated = nlohmann::json::array();
  for (const nlohmann::json& entry : entries)
    if (!entry.contains("shard_data")) gated.push_back(entry);
  nlohmann::json report = {{"schema", kReportSchema},
                           {"tool", tool_json()},
                           {"build", build_json()},
                           {"settings", settings_section},
                           {"calculations", entries},
                           {"findings", findings_json(entries)},
                           {"gate", {{"budgets", budgets_name}, {"status", claims_pass ? gate_status(gated) : "fail"}}},
                           {"run_seconds", seconds}};
  if (any_claim) report["claims"] = claims_section;
  if (refinement.ran) report["refinement"] = refinement_json(refinement);
  if (compare) report["comparison"] = comparison_section;
  if (settings.shard.count > 1) report["shard"] = {{"index", settings.shard.index}, {"count", settings.shard.count}};
  put_sections_missing(report);
  check_all_finite(report);
  return report;
}

}  // namespace distgrid::audit
