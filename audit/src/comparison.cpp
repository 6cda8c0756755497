#include "distgrid/audit/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "distgrid/audit/claims.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/audit/run.hpp"
#include "distgrid/contour.hpp"

namespace distgrid::audit {

using nlohmann::json;

namespace {

/// The unit a calculation's separated errors are reported in: h, else relative, else ulps.
std::string unit_of(const json& stats) {
  if (stats.contains("h")) return "h";
  if (stats.contains("relative")) return "relative";
  return "ulps";
}

json side(double storage, double method) {
  json out = {{"storage_h", finite_or_null(storage)}, {"method_h", finite_or_null(method)}};
  if (method > 0 && std::isfinite(storage / method)) {
    out["ratio"] = storage / method;
  } else {
    out["ratio"] = nullptr;
    out["ratio_null_reason"] = "the method error is zero or not finite";
  }
  return out;
}

/// max of errors.<kind>.<unit>, or nullopt.
std::optional<double> separated_max(const json& entry, const char* kind, const std::string& unit) {
  const json::json_pointer pointer("/errors/" + std::string(kind) + "/" + unit + "/max");
  if (!entry.contains(pointer) || !entry[pointer].is_number()) return std::nullopt;
  return entry[pointer].get<double>();
}

/// The comparison's columns beside float and double, where the run has them.
constexpr const char* kNarrowColumns[] = {"half", "q16", "q8"};

/// A side from a details.by_part element's {storage, method} in one unit.
json part_side(const json& errors) {
  return side(std::fabs(errors["storage"].get<double>()), std::fabs(errors["method"].get<double>()));
}

const json* find_entry(const json& entries, const std::string& id, const char* storage) {
  for (const json& e : entries)
    if (e.value("id", "") == id && e.value("storage", "") == storage) return &e;
  return nullptr;
}

}  // namespace

json comparison_rows(const json& entries, double h) {
  json rows = json::array();
  std::vector<std::string> seen;
  for (const json& e : entries) {
    const std::string id = e.value("id", "");
    if (std::find(seen.begin(), seen.end(), id) != seen.end()) continue;
    seen.push_back(id);
    const json* f = find_entry(entries, id, "float");
    const json* d = find_entry(entries, id, "double");
    const json::json_pointer storage_stats("/errors/storage"), method_stats("/errors/method");
    if (!f || !d || !f->contains(storage_stats) || !f->contains(method_stats) || !(*f)[storage_stats].is_object() ||
        !(*f)[method_stats].is_object())
      continue;
    const std::string unit = unit_of((*f)[storage_stats]);
    const auto fs = separated_max(*f, "storage", unit), fm = separated_max(*f, "method", unit);
    const auto ds = separated_max(*d, "storage", unit), dm = separated_max(*d, "method", unit);
    if (!fs || !fm || !ds || !dm) continue;
    json row = {{"id", id},           {"quantity", f->value("title", id)}, {"part", "all"}, {"h", h},
                {"unit", unit},       {"float", side(*fs, *fm)},           {"double", side(*ds, *dm)}};
    for (const char* narrow : kNarrowColumns)
      if (const json* n = find_entry(entries, id, narrow)) {
        const auto ns = separated_max(*n, "storage", unit), nm = separated_max(*n, "method", unit);
        if (ns && nm) row[narrow] = side(*ns, *nm);
      }
    rows.push_back(row);
    // Per part, where the entry's details give the separated errors by part.
    const json::json_pointer by_part("/details/by_part");
    if (!f->contains(by_part) || !d->contains(by_part)) continue;
    for (const json& fp : (*f)[by_part]) {
      const std::string part = fp.value("part", "");
      for (const json& dp : (*d)[by_part]) {
        if (dp.value("part", "") != part) continue;
        for (const char* u : {"h", "relative"}) {
          if (!fp.contains(u) || !dp.contains(u) || !fp[u].is_object()) continue;
          const json &a = fp[u], &b = dp[u];
          if (!a.value("storage", json()).is_number() || !a.value("method", json()).is_number() ||
              !b.value("storage", json()).is_number() || !b.value("method", json()).is_number())
            continue;
          json part_row = {{"id", id},
                           {"quantity", f->value("title", id)},
                           {"part", part},
                           {"h", h},
                           {"unit", u},
                           {"float", part_side(a)},
                           {"double", part_side(b)}};
          for (const char* narrow : kNarrowColumns)
            if (const json* n = find_entry(entries, id, narrow); n && n->contains(by_part))
              for (const json& np : (*n)[by_part])
                if (np.value("part", "") == part && np.contains(u) && np[u].is_object() &&
                    np[u].value("storage", json()).is_number() && np[u].value("method", json()).is_number())
                  part_row[narrow] = part_side(np[u]);
          rows.push_back(part_row);
        }
      }
    }
  }
  return rows;
}

namespace {

/// The surface-nets quads whose two triangles (consecutive, as the mesher adds
/// them) hold the same four vertices in both meshes but are split along the
/// other diagonal; nullopt when some quad's vertices differ. Both meshes must
/// have as many triangles, an even number.
std::optional<std::size_t> quads_split_differently(const TriangleMesh& a, const TriangleMesh& b) {
  std::size_t split = 0;
  for (std::size_t t = 0; t + 1 < a.triangles.size(); t += 2) {
    const auto corners = [](const TriangleMesh& m, std::size_t first) {
      std::array<std::uint32_t, 6> c{};
      for (std::size_t k = 0; k < 3; ++k) {
        c[k] = m.triangles[first][k];
        c[k + 3] = m.triangles[first + 1][k];
      }
      std::sort(c.begin(), c.end());
      return std::vector<std::uint32_t>(c.begin(), std::unique(c.begin(), c.end()));
    };
    if (corners(a, t) != corners(b, t)) return std::nullopt;
    if (a.triangles[t] != b.triangles[t] || a.triangles[t + 1] != b.triangles[t + 1]) ++split;
  }
  return split;
}

/// Contour meshes of a grid in storage S and of the double grid of one part:
/// counts, whether the two have the same topology (the same triangles, or for
/// surface nets the same quads, some split along the other diagonal: counted)
/// and then the largest vertex move.
template <class S>
json contour_difference(const Grid<S>& other, const Grid<double>& d, Mesher mesher) {
  ContourOptions options;
  options.mesher = mesher;
  const ContourResult a = contour(other, options), b = contour(d, options);
  const std::string name(storage_name(storage_of<S>()));
  json out = {{"mesher", mesher_name(mesher)},
              {"vertices", {{name, a.mesh.positions.size()}, {"double", b.mesh.positions.size()}}},
              {"triangles", {{name, a.mesh.triangles.size()}, {"double", b.mesh.triangles.size()}}}};
  bool same_topology = a.mesh.triangles == b.mesh.triangles && a.mesh.positions.size() == b.mesh.positions.size();
  if (!same_topology && mesher == Mesher::surface_nets && a.mesh.positions.size() == b.mesh.positions.size() &&
      a.mesh.triangles.size() == b.mesh.triangles.size() && a.mesh.triangles.size() % 2 == 0)
    if (const auto split = quads_split_differently(a.mesh, b.mesh)) {
      same_topology = true;
      out["quads_split_differently"] = *split;
    }
  out["same_topology"] = same_topology;
  if (same_topology) {
    double worst = 0;
    std::size_t moved = 0;
    for (std::size_t n = 0; n < a.mesh.positions.size(); ++n) {
      double m = 0;
      for (std::size_t k = 0; k < 3; ++k) m = std::max(m, std::fabs(a.mesh.positions[n][k] - b.mesh.positions[n][k]));
      moved += m > 0;
      worst = std::max(worst, m);
    }
    out["vertices_moved"] = moved;
    out["max_vertex_difference_h"] = worst / d.h();
  } else {
    out["vertices_moved"] = nullptr;
    out["max_vertex_difference_h"] = nullptr;
    out["null_reason"] = "the meshes differ in triangles, so vertices are not matched one to one";
  }
  return out;
}

/// storage / method; a method error of exactly zero leaves only storage == 0 negligible.
double share_of_method(double storage, double method) {
  return method > 0 ? storage / method : storage == 0 ? 0.0 : std::numeric_limits<double>::infinity();
}

/// One narrow storage against double at the run's parts and h (contours, signs,
/// memory) and at the refinement series' parts and h (samples, volume, signs).
template <class S>
json storage_against_double(RunContext& context, const Refinement& refinement) {
  const Storage storage = storage_of<S>();
  json contours = json::array(), cells = json::array();
  std::size_t bytes = 0, bricks = 0, nodes = 0, flips = 0;
  for (std::size_t n = 0; n < context.part_count(); ++n) {
    PartSubject& subject = context.part(n);
    const Grid<S>& grid = subject.grid<S>(Placement::origin);
    const Grid<double>& d = subject.grid<double>(Placement::origin);
    bytes += grid.memory_bytes();
    bricks += grid.stored_brick_count();
    const SignComparison signs = compare_signs(grid, d);
    nodes += signs.nodes_compared;
    flips += signs.sign_flips;
    contours.push_back({{"part", subject.part().name},
                        {"surface_nets", contour_difference(grid, d, Mesher::surface_nets)},
                        {"marching_cubes", contour_difference(grid, d, Mesher::marching_cubes)}});
  }
  for (const RefinementPart& p : refinement.parts)
    for (const RefinementPoint& q : p.points) {
      const StorageShare* share = q.share(storage);
      if (!share) continue;
      cells.push_back(
          {{"part", p.part},
           {"h", q.h},
           {"sample",
            {{"storage_h", finite_or_null(share->sample_storage_h)},
             {"method_h", finite_or_null(q.sample_method_h)},
             {"ratio", finite_or_null(share_of_method(share->sample_storage_h, q.sample_method_h))}}},
           {"volume",
            {{"storage_relative", finite_or_null(share->volume_storage_relative)},
             {"method_relative", finite_or_null(std::fabs(q.volume_method_relative))},
             {"ratio", finite_or_null(share_of_method(share->volume_storage_relative, std::fabs(q.volume_method_relative)))}}},
           {"sign_flips", share->sign_flips},
           {"nodes_compared", share->nodes_compared},
           {"memory_bytes", share->memory_bytes}});
    }
  return {{"storage", storage_name(storage)},
          {"memory_bytes", bytes},
          {"memory_bytes_per_brick", static_cast<double>(bytes) / static_cast<double>(std::max<std::size_t>(1, bricks))},
          {"nodes_compared", nodes},
          {"sign_flips", flips},
          {"contours", contours},
          {"per_part_and_h", cells}};
}

/// One way a storage fails the rule: the worst case of one quantity.
struct Shortfall {
  std::string quantity;  ///< what is measured: "sample", "volume", "node signs", a row's quantity, ...
  std::string where;     ///< part and h of the worst case
  double measured = 0;   ///< its ratio to the method error, or a count
  double limit = 0;
  std::size_t cases = 0;  ///< how many parts and h fall short
};

void add_shortfall(std::vector<Shortfall>& out, const std::string& quantity, const std::string& where,
                   double measured, double limit) {
  for (Shortfall& s : out)
    if (s.quantity == quantity) {
      ++s.cases;
      if (!(measured <= s.measured)) {
        s.measured = measured;
        s.where = where;
      }
      return;
    }
  out.push_back({quantity, where, measured, limit, 1});
}

/// A ratio read from JSON: null (a ratio that could not be formed) counts as infinite.
double ratio_of(const json& side) {
  const json& r = side.value("ratio", json());
  return r.is_number() ? r.get<double>() : std::numeric_limits<double>::infinity();
}

}  // namespace

json storage_verdict(const json& storages, const json& rows, const json& scope) {
  const std::string limit_text = evidence_number(kNegligibleStorageShare);
  json per_storage = json::array();
  // Candidates by memory per brick, smallest first (ties by name).
  std::vector<const json*> by_memory;
  if (const auto it = storages.find("by_storage"); it != storages.end() && it->is_array())
    for (const json& s : *it) by_memory.push_back(&s);
  std::stable_sort(by_memory.begin(), by_memory.end(), [](const json* a, const json* b) {
    return a->value("memory_bytes_per_brick", 0.0) < b->value("memory_bytes_per_brick", 0.0);
  });
  std::size_t cells_seen = 0;
  std::string decision, ruled_out_text;
  for (const json* s : by_memory) {
    const std::string name = s->value("storage", "");
    std::vector<Shortfall> short_of;
    for (const json& c : s->value("per_part_and_h", json::array())) {
      ++cells_seen;
      const std::string where = c.value("part", "") + " at h = " + evidence_number(c.value("h", 0.0));
      const double sample = ratio_of(c.value("sample", json::object()));
      const double volume = ratio_of(c.value("volume", json::object()));
      if (!(sample <= kNegligibleStorageShare)) add_shortfall(short_of, "sample", where, sample, kNegligibleStorageShare);
      if (!(volume <= kNegligibleStorageShare)) add_shortfall(short_of, "volume", where, volume, kNegligibleStorageShare);
      const auto flips = c.value("sign_flips", std::size_t{0});
      if (flips > 0) add_shortfall(short_of, "node signs", where, static_cast<double>(flips), 0);
    }
    const double h = storages.value("h", 0.0);
    for (const json& c : s->value("contours", json::array()))
      for (const char* mesher : {"surface_nets", "marching_cubes"})
        if (!c.value(mesher, json::object()).value("same_topology", false))
          add_shortfall(short_of, std::string("contour topology (") + mesher + ")",
                        c.value("part", "") + " at h = " + evidence_number(h), 1, 0);
    for (const json& row : rows) {
      if (!row.contains(name) || row.value("unit", "") == "ulps") continue;
      const double ratio = ratio_of(row[name]);
      if (!(ratio <= kNegligibleStorageShare))
        add_shortfall(short_of, row.value("quantity", row.value("id", "")),
                      (row.value("part", "") == "all" ? std::string("all parts") : row.value("part", "")) +
                          " at h = " + evidence_number(row.value("h", 0.0)),
                      ratio,
                      kNegligibleStorageShare);
    }
    json ruled = json::array();
    std::string text;
    for (const Shortfall& f : short_of) {
      ruled.push_back({{"quantity", f.quantity},
                       {"worst_at", f.where},
                       {"measured", finite_or_null(f.measured)},
                       {"limit", f.limit},
                       {"cases", f.cases}});
      text += (text.empty() ? "" : "; ") + f.quantity + " " +
              (f.limit == 0 ? evidence_number(f.measured) + (f.quantity == "node signs" ? " flipped" : " changed")
                            : std::isfinite(f.measured) ? evidence_number(f.measured) + " of the method error"
                                                        : std::string("with no method error to weigh it against")) +
              " (" + f.where + (f.cases > 1 ? ", and " + std::to_string(f.cases - 1) + " more" : "") + ")";
    }
    const bool safe = short_of.empty();
    per_storage.push_back({{"storage", name},
                           {"memory_bytes_per_brick", s->value("memory_bytes_per_brick", 0.0)},
                           {"safe", safe},
                           {"ruled_out_by", ruled}});
    if (safe && decision.empty()) decision = name;
    if (!safe && decision.empty()) ruled_out_text += (ruled_out_text.empty() ? "" : " ") + name + ": " + text + ".";
  }
  std::string summary;
  if (cells_seen == 0) {
    decision = "no verdict";
    summary = "No part of the run was measured at any h of the refinement series in a storage other than double, so "
              "there is nothing to weigh: no verdict on the smallest storage for this run.";
  } else {
    if (decision.empty()) decision = "double";
    std::string parts_text, h_text;
    for (const json& p : scope.value("parts", json::array())) parts_text += (parts_text.empty() ? "" : ", ") + p.get<std::string>();
    for (const json& x : scope.value("h", json::array()))
      h_text += (h_text.empty() ? "" : ", ") + evidence_number(x.get<double>());
    summary = (decision == "double" ? std::string("No storage narrower than double is safe")
                                    : "The smallest safe storage is " + decision) +
              (ruled_out_text.empty() ? std::string(".") : ". Ruled out, smallest first: " + ruled_out_text) +
              (parts_text.empty() ? std::string()
                                  : " It holds for the parts " + parts_text + " at h = " + h_text + ", band " +
                                        evidence_number(scope.value("band", 0.0)) + ", and no further.");
  }
  return {{"decision", decision},
          {"summary", summary},
          {"rule", "the storage with the fewest bytes per brick for which, at every part and h of the refinement "
                   "series, the storage error is at most " + limit_text + " of the method error for samples (in h) "
                   "and the volume (relative) and no node's sign differs from double's, and at the run's h every "
                   "comparison row's storage error (h or relative) is at most " + limit_text + " of its method "
                   "error and both meshers' meshes have the double grid's topology (surface-nets quads may be split "
                   "along the other diagonal); double when none is"},
          {"per_storage", per_storage}};
}

json comparison_json(RunContext& context, const json& entries, const Refinement& refinement,
                     const json& settings_section) {
  const RunSettings& s = context.settings();
  json signs = json::array(), contours = json::array();
  std::size_t float_bytes = 0, double_bytes = 0, float_bricks = 0, double_bricks = 0, flips_total = 0;
  for (std::size_t n = 0; n < context.part_count(); ++n) {
    PartSubject& subject = context.part(n);
    const Grid<float>& f = subject.grid<float>(Placement::origin);
    const Grid<double>& d = subject.grid<double>(Placement::origin);
    float_bytes += f.memory_bytes();
    double_bytes += d.memory_bytes();
    float_bricks += f.stored_brick_count();
    double_bricks += d.stored_brick_count();
    const auto [nodes, flips] = compare_signs(f, d);
    std::size_t only_one = 0;
    for (std::int64_t key : d.stored_keys()) only_one += f.find_brick(key) == nullptr;
    for (std::int64_t key : f.stored_keys()) only_one += d.find_brick(key) == nullptr;
    flips_total += flips;
    signs.push_back({{"part", subject.part().name},
                     {"nodes_compared", nodes},
                     {"sign_flips", flips},
                     {"bricks_stored_by_one_storage_only", only_one}});
    contours.push_back({{"part", subject.part().name},
                        {"surface_nets", contour_difference(f, d, Mesher::surface_nets)},
                        {"marching_cubes", contour_difference(f, d, Mesher::marching_cubes)}});
  }

  // The float-vs-double verdict, per part and h of the refinement series.
  json cells = json::array();
  double worst_sample_ratio = 0, worst_volume_ratio = 0;
  std::string worst_sample_at, worst_volume_at;
  bool float_enough = true;
  for (const RefinementPart& p : refinement.parts)
    for (const RefinementPoint& q : p.points) {
      const StorageShare* f = q.share(Storage::float32);
      if (!f) continue;
      const double sample_ratio = share_of_method(f->sample_storage_h, q.sample_method_h);
      const double volume_ratio = share_of_method(f->volume_storage_relative, std::fabs(q.volume_method_relative));
      const bool enough = sample_ratio <= kNegligibleStorageShare && volume_ratio <= kNegligibleStorageShare;
      float_enough = float_enough && enough;
      const std::string at = p.part + " at h = " + evidence_number(q.h);
      if (sample_ratio > worst_sample_ratio) {
        worst_sample_ratio = sample_ratio;
        worst_sample_at = at;
      }
      if (volume_ratio > worst_volume_ratio) {
        worst_volume_ratio = volume_ratio;
        worst_volume_at = at;
      }
      cells.push_back({{"part", p.part},
                       {"h", q.h},
                       {"sample", {{"storage_h_float", finite_or_null(f->sample_storage_h)},
                                   {"method_h", finite_or_null(q.sample_method_h)},
                                   {"ratio", finite_or_null(sample_ratio)}}},
                       {"volume", {{"storage_relative_float", finite_or_null(f->volume_storage_relative)},
                                   {"method_relative", finite_or_null(std::fabs(q.volume_method_relative))},
                                   {"ratio", finite_or_null(volume_ratio)}}},
                       {"sign_flips", f->sign_flips},
                       {"float_storage_negligible", enough}});
    }
  const double float_per_brick = static_cast<double>(float_bytes) / static_cast<double>(std::max<std::size_t>(1, float_bricks));
  const double double_per_brick =
      static_cast<double>(double_bytes) / static_cast<double>(std::max<std::size_t>(1, double_bricks));
  const std::string resolution = "a stored value carries 24 bits: within 2^-24 * band * h = " +
                                 evidence_number(std::ldexp(s.band, -24)) + " h at band " + evidence_number(s.band);
  // What the verdict covers: the parts and h of its cells, the band, the inputs' |x|/h.
  json scope_parts = json::array(), scope_h = json::array();
  for (const RefinementPart& p : refinement.parts) {
    if (p.points.empty()) continue;
    scope_parts.push_back(p.part);
    for (const RefinementPoint& q : p.points)
      if (std::find(scope_h.begin(), scope_h.end(), json(q.h)) == scope_h.end()) scope_h.push_back(q.h);
  }
  std::sort(scope_h.begin(), scope_h.end(), [](const json& a, const json& b) { return a.get<double>() > b.get<double>(); });
  const double reach = settings_section.value("reach_voxels", 0.0);
  const double largest = settings_section.value("largest_abs_x_over_h", 0.0);
  std::string h_text;
  for (const json& h : scope_h) h_text += (h_text.empty() ? "" : ", ") + evidence_number(h.get<double>());
  std::string parts_text;
  for (const json& p : scope_parts) parts_text += (parts_text.empty() ? "" : ", ") + p.get<std::string>();
  const std::string scope_text =
      cells.empty() ? "" : " It holds for the parts " + parts_text + " at h = " + h_text + ", band " +
                               evidence_number(s.band) + ", inputs with |x|/h up to " + evidence_number(reach) +
                               " at the origin (" + evidence_number(largest) + " in the far copies), and no further.";
  const json scope = {{"parts", scope_parts},
                      {"h", scope_h},
                      {"band", s.band},
                      {"reach_voxels", reach},
                      {"largest_abs_x_over_h", largest}};
  std::string summary;
  std::string decision;
  if (cells.empty()) {
    decision = "no verdict";
    summary = "No part of the run was measured at any h of the refinement series (see refinement.skipped), so "
              "there is nothing to weigh float's storage error against: no verdict for this run.";
  } else if (float_enough) {
    decision = "keep float";
    summary = "Across " + std::to_string(cells.size()) + " parts and h, float's storage error is at most " +
              evidence_number(worst_sample_ratio) + " of the method error for a sample (" + worst_sample_at + ") and " +
              evidence_number(worst_volume_ratio) + " for the volume (" + worst_volume_at + "), below the " +
              evidence_number(kNegligibleStorageShare) + " that counts as negligible; " + std::to_string(flips_total) +
              " node signs flip at the run's h. Keep float bricks and state the grid's resolution next to h (" +
              resolution + "); double bricks would cost " + evidence_number(double_per_brick / float_per_brick) +
              " times the memory per brick for no visible gain." + scope_text;
  } else {
    decision = "move to double";
    summary = "Float's storage error reaches " + evidence_number(worst_sample_ratio) + " of the method error for a "
              "sample (" + worst_sample_at + ") and " + evidence_number(worst_volume_ratio) + " for the volume (" +
              worst_volume_at + "), above the " + evidence_number(kNegligibleStorageShare) +
              " that counts as negligible: at those h the 32-bit values, not the method, set what a reader sees." +
              scope_text;
  }
  // Every storage of the run but double, and the smallest that is safe.
  json by_storage = json::array();
  for (Storage storage : s.storages)
    if (storage != Storage::float64)
      by_storage.push_back(
          with_storage(storage, [&]<class S>() { return storage_against_double<S>(context, refinement); }));
  json storages = {{"h", s.h}, {"by_storage", by_storage}};
  json rows = comparison_rows(entries, s.h);
  storages["verdict"] = storage_verdict(storages, rows, scope);
  return {{"rows", rows},
           {"storages", storages},
           {"rows_note", "per calculation with both storages: storage_h and method_h are the separated errors' max in "
                         "the row's unit (h for distances, relative for volumes); ratio = storage / method"},
           {"signs", {{"by_part", signs}, {"sign_flips", flips_total}, {"h", s.h}}},
           {"contours", contours},
           {"memory_bytes_per_brick", {{"float", float_per_brick}, {"double", double_per_brick}}},
           {"verdict",
            {{"decision", decision},
             {"summary", summary},
             {"rule", "keep float when, for every part and h of the refinement series, float's storage error is at "
                      "most " + evidence_number(kNegligibleStorageShare) + " of the method error both for samples "
                      "(max over points, in h) and for the volume (relative)"},
             {"resolution", resolution},
             {"scope", scope},
             {"per_part_and_h", cells}}}};
}

}  // namespace distgrid::audit
