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
    rows.push_back({{"id", id},
                    {"quantity", f->value("title", id)},
                    {"part", "all"},
                    {"h", h},
                    {"unit", unit},
                    {"float", side(*fs, *fm)},
                    {"double", side(*ds, *dm)}});
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
          rows.push_back({{"id", id},
                          {"quantity", f->value("title", id)},
                          {"part", part},
                          {"h", h},
                          {"unit", u},
                          {"float", side(std::fabs(a["storage"].get<double>()), std::fabs(a["method"].get<double>()))},
                          {"double", side(std::fabs(b["storage"].get<double>()), std::fabs(b["method"].get<double>()))}});
        }
      }
    }
  }
  return rows;
}

namespace {

/// Contour meshes of the float and double grids of one part: counts, and where the
/// two have the same triangles (same corners, same order) the largest vertex move.
json contour_difference(const Grid<float>& f, const Grid<double>& d, Mesher mesher) {
  ContourOptions options;
  options.mesher = mesher;
  const ContourResult a = contour(f, options), b = contour(d, options);
  json out = {{"mesher", mesher_name(mesher)},
              {"vertices", {{"float", a.mesh.positions.size()}, {"double", b.mesh.positions.size()}}},
              {"triangles", {{"float", a.mesh.triangles.size()}, {"double", b.mesh.triangles.size()}}}};
  const bool same_topology = a.mesh.triangles == b.mesh.triangles && a.mesh.positions.size() == b.mesh.positions.size();
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

}  // namespace

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
    std::size_t nodes = 0, flips = 0, only_one = 0;
    for (std::size_t slot = 0; slot < d.stored_keys().size(); ++slot) {
      const float* fv = f.find_brick(d.stored_keys()[slot]);
      if (!fv) {
        ++only_one;
        continue;
      }
      const double* dv = d.brick_values(slot);
      for (int k = 0; k < kBrickNodes; ++k) {
        ++nodes;
        flips += (fv[k] < 0) != (dv[k] < 0);
      }
    }
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

  // The verdict, per part and h of the refinement series.
  json cells = json::array();
  double worst_sample_ratio = 0, worst_volume_ratio = 0;
  std::string worst_sample_at, worst_volume_at;
  bool float_enough = true;
  for (const RefinementPart& p : refinement.parts)
    for (const RefinementPoint& q : p.points) {
      // storage / method; a method error of exactly zero leaves only storage == 0 negligible.
      const auto share = [](double storage, double method) {
        return method > 0 ? storage / method : storage == 0 ? 0.0 : std::numeric_limits<double>::infinity();
      };
      const double sample_ratio = share(q.sample_storage_h, q.sample_method_h);
      const double volume_ratio = share(q.volume_storage_relative, std::fabs(q.volume_method_relative));
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
                       {"sample", {{"storage_h_float", finite_or_null(q.sample_storage_h)},
                                   {"method_h", finite_or_null(q.sample_method_h)},
                                   {"ratio", finite_or_null(sample_ratio)}}},
                       {"volume", {{"storage_relative_float", finite_or_null(q.volume_storage_relative)},
                                   {"method_relative", finite_or_null(std::fabs(q.volume_method_relative))},
                                   {"ratio", finite_or_null(volume_ratio)}}},
                       {"sign_flips", q.sign_flips},
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
  return {{"rows", comparison_rows(entries, s.h)},
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
