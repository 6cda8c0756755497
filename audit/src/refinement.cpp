#include "distgrid/audit/refinement.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numbers>
#include <optional>
#include <string>

#include "distgrid/audit/claims.hpp"
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/audit/parallel.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/audit/run.hpp"
#include "distgrid/bake.hpp"

namespace distgrid::audit {

using nlohmann::json;

OrderFit fit_order(std::span<const double> h, std::span<const double> error) {
  OrderFit fit;
  if (h.size() != error.size() || h.size() < 2) {
    fit.null_reason = "fewer than two points";
    return fit;
  }
  std::vector<double> x, y;
  for (std::size_t n = 0; n < h.size(); ++n) {
    if (!(h[n] > 0) || !std::isfinite(h[n]) || !std::isfinite(error[n])) {
      fit.null_reason = "a non-positive or non-finite h or a non-finite error";
      return fit;
    }
    if (error[n] == 0) {
      fit.null_reason = "an error of exactly zero has no logarithm";
      return fit;
    }
    x.push_back(std::log(h[n]));
    y.push_back(std::log(std::fabs(error[n])));
  }
  const double count = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (std::size_t n = 0; n < x.size(); ++n) {
    mx += x[n];
    my += y[n];
  }
  mx /= count;
  my /= count;
  double sxx = 0, sxy = 0;
  for (std::size_t n = 0; n < x.size(); ++n) {
    sxx += (x[n] - mx) * (x[n] - mx);
    sxy += (x[n] - mx) * (y[n] - my);
  }
  if (!(sxx > 0)) {
    fit.null_reason = "every h is the same";
    return fit;
  }
  const double slope = sxy / sxx, intercept = my - slope * mx;
  double residual = 0;
  for (std::size_t n = 0; n < x.size(); ++n) residual = std::max(residual, std::fabs(y[n] - (intercept + slope * x[n])));
  fit.order = slope;
  fit.coefficient = std::exp(intercept);
  fit.max_log_residual = residual;
  return fit;
}

std::vector<double> default_refinement_series(double h, bool quick) {
  if (quick) return {4 * h, 2 * h, h};
  return {2 * h, h, h / 2};
}

namespace {

constexpr std::string_view kRefinementId = "refinement";
/// Sample points per part and h (a quick run: kQuickSamples).
constexpr std::size_t kSamples = 4000, kQuickSamples = 500;
/// A part is baked at an h of the series only while its grid there would hold at
/// most this many bricks (extrapolated from the run's h as the surface's area
/// over h^2): a bound on the series' cost, about 16 MB of float bricks.
constexpr double kMostRefinementBricks = 8192;
/// The volume's order of convergence counts as asymptotic when the orders
/// observed between successive h agree within this (the features are wide
/// enough in voxels at every h of the series).
constexpr double kAsymptoticOrderSpread = 0.5;

/// The shape under any translations and rotations.
const json& unplaced(const json& spec) {
  const json* s = &spec;
  while (s->value("type", "") == "translate" || s->value("type", "") == "rotate") s = &(*s)["shape"];
  return *s;
}

std::string surface_of(const json& spec) {
  if (spec.is_null()) return "polyhedral";  // a mesh part
  const std::string type = unplaced(spec).value("type", "");
  if (type == "sphere" || type == "torus") return "smooth curved";
  if (type == "box" && !unplaced(spec).contains("round")) return "flat faces and sharp edges";
  return "mixed";
}

/// h^2/12 * integral of mean curvature over the surface / V, where the spec's shape
/// is one the formula knows: a sphere, a torus, a (translated, rotated) sharp box.
std::optional<double> predicted_coefficient(const json& spec) {
  if (spec.is_null()) return std::nullopt;
  const json* s = &unplaced(spec);
  const std::string type = s->value("type", "");
  if (type == "sphere") {
    const double r = (*s)["radius"].get<double>();
    return 1 / (4 * r * r);  // integral H dA = 4 pi r, V = 4/3 pi r^3
  }
  if (type == "torus") {
    const double r = (*s)["minor_radius"].get<double>();
    return 1 / (12 * r * r);  // integral H dA = 2 pi^2 R, V = 2 pi^2 R r^2
  }
  if (type == "box" && !s->contains("round")) {
    const double a = (*s)["size"][0].get<double>(), b = (*s)["size"][1].get<double>(), c = (*s)["size"][2].get<double>();
    // Twelve right-angled edges: outer minus inner parallel area grows by (2 pi + 8)(a + b + c) t.
    return (2 * std::numbers::pi + 8) * (a + b + c) / (48 * a * b * c);
  }
  return std::nullopt;
}

/// The run's own grid at the run's h; otherwise a fresh bake kept in `own`.
template <class S>
const Grid<S>& grid_at(RunContext& context, PartSubject& subject, double h, std::optional<Grid<S>>& own) {
  if (h == context.settings().h) return subject.grid<S>(Placement::origin);
  own.emplace(subject.bake_at<S>(h));
  return *own;
}

/// Volume, signs against double and memory of `grid` (storage S) beside the
/// double grid of the same part and h; the samples are added by measure_point.
template <class S>
StorageShare compare_with_double(const Grid<S>& grid, const Grid<double>& grid_double, double volume_reference) {
  StorageShare out;
  out.storage = storage_of<S>();
  out.volume = grid.volume();
  out.volume_storage_relative = std::fabs(out.volume - grid_double.volume()) / volume_reference;
  // Signs at the nodes both grids store (the plans agree unless a density map
  // read in the storage moves the surface).
  const SignComparison signs = compare_signs(grid, grid_double);
  out.nodes_compared = signs.nodes_compared;
  out.sign_flips = signs.sign_flips;
  out.memory_bytes = grid.memory_bytes();
  out.memory_per_brick =
      static_cast<double>(out.memory_bytes) / static_cast<double>(std::max<std::size_t>(1, grid.stored_brick_count()));
  return out;
}

RefinementPoint measure_point(RunContext& context, PartSubject& subject, double h, std::size_t h_index, bool quick) {
  const auto started = std::chrono::steady_clock::now();
  const RunSettings& s = context.settings();
  const DefaultPart& part = subject.part();
  const double volume = subject.volume_reference().volume;
  std::optional<Grid<double>> own_double;
  const Grid<double>& grid_double = grid_at<double>(context, subject, h, own_double);
  const reference::ExactShape& shape = subject.shape(Placement::origin);

  RefinementPoint p;
  p.h = h;
  p.stored_bricks = grid_double.stored_brick_count();
  p.volume_double = grid_double.volume();
  p.volume_method_relative = (p.volume_double - volume) / volume;
  const auto& keys = grid_double.stored_keys();
  p.memory_double_bytes = grid_double.memory_bytes();
  p.memory_double_per_brick =
      static_cast<double>(p.memory_double_bytes) / static_cast<double>(std::max<std::size_t>(1, keys.size()));

  // Points uniform in the stored bricks of the double grid: the method error of
  // the double grid there, and each storage's difference from it.
  p.samples = keys.empty() ? 0 : quick ? kQuickSamples : kSamples;
  std::vector<std::array<double, 3>> points(p.samples);
  std::vector<double> from_double(p.samples), method(p.samples);
  const double band_width = s.band * h;
  const std::string generator = part.name + "/" + std::to_string(h_index);
  parallel_for(p.samples, context.threads(), context.progress(), [&](std::size_t n) {
    InputRng rng(s.seed, kRefinementId, generator, n);
    const auto slot = static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(keys.size()) - 1));
    const BrickCoord b = brick_of(keys[slot]);
    const double x = (static_cast<double>(b.bx * 8) + rng.uniform(0, 7)) * h;
    const double y = (static_cast<double>(b.by * 8) + rng.uniform(0, 7)) * h;
    const double z = (static_cast<double>(b.bz * 8) + rng.uniform(0, 7)) * h;
    points[n] = {x, y, z};
    const double truth = std::clamp(shape.approximate(x, y, z), -band_width, band_width);
    from_double[n] = grid_double.sample(x, y, z);
    method[n] = std::fabs(from_double[n] - truth) / h;
  });
  for (double m : method) p.sample_method_h = std::max(p.sample_method_h, m);

  for (Storage storage : s.storages) {
    if (storage == Storage::float64) continue;
    with_storage(storage, [&]<class S>() {
      std::optional<Grid<S>> own;
      const Grid<S>& grid = grid_at<S>(context, subject, h, own);
      StorageShare share = compare_with_double(grid, grid_double, volume);
      std::vector<double> difference(p.samples);
      parallel_for(p.samples, context.threads(), context.progress(), [&](std::size_t n) {
        difference[n] = std::fabs(grid.sample(points[n][0], points[n][1], points[n][2]) - from_double[n]) / h;
      });
      for (double d : difference) share.sample_storage_h = std::max(share.sample_storage_h, d);
      p.shares.push_back(share);
    });
  }
  p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return p;
}

json fit_json(const OrderFit& fit) {
  json out = {{"order", fit.order ? finite_or_null(*fit.order) : json(nullptr)},
              {"coefficient", fit.coefficient ? finite_or_null(*fit.coefficient) : json(nullptr)},
              {"max_log_residual", fit.max_log_residual ? finite_or_null(*fit.max_log_residual) : json(nullptr)}};
  if (!fit.order) out["null_reason"] = fit.null_reason;
  return out;
}

}  // namespace

Refinement run_refinement(RunContext& context, const std::vector<double>& h_series, bool quick) {
  const auto started = std::chrono::steady_clock::now();
  const RunSettings& s = context.settings();
  Refinement r;
  r.h = h_series;
  r.ran = true;
  for (std::size_t n = 0; n < context.part_count(); ++n) {
    PartSubject& subject = context.part(n);
    const DefaultPart& part = subject.part();
    const VolumeReference& truth = subject.volume_reference();
    RefinementPart rp;
    rp.part = part.name;
    rp.analytic_volume = truth.volume;
    rp.analytic_exact = !truth.estimated && part.volume_exact;
    rp.analytic_uncertainty = truth.uncertainty / truth.volume;
    rp.reference_estimated = truth.estimated;
    rp.volume_source = truth.source;
    const double bricks_at_h = static_cast<double>(subject.grid<double>(Placement::origin).stored_brick_count());
    context.progress().begin("refinement " + part.name, h_series.size());
    std::vector<double> hs, errors;
    for (std::size_t k = 0; k < h_series.size(); ++k) {
      const double expected_bricks = bricks_at_h * (s.h / h_series[k]) * (s.h / h_series[k]);
      if (h_series[k] != s.h && expected_bricks > kMostRefinementBricks) {
        r.skipped.push_back({part.name, h_series[k],
                             "its grid at this h would hold about " + evidence_number(expected_bricks) +
                                 " bricks, more than the series' limit of " + evidence_number(kMostRefinementBricks)});
        continue;
      }
      rp.points.push_back(measure_point(context, subject, h_series[k], k, quick));
      hs.push_back(h_series[k]);
      errors.push_back(rp.points.back().volume_method_relative);
    }
    context.progress().end();
    rp.fit = fit_order(hs, errors);
    // Asymptotic when the orders between successive h agree (and there are at least three h).
    std::vector<double> orders;
    for (std::size_t k = 1; k < hs.size(); ++k)
      if (errors[k] != 0 && errors[k - 1] != 0)
        orders.push_back(std::log(std::fabs(errors[k - 1] / errors[k])) / std::log(hs[k - 1] / hs[k]));
    rp.asymptotic = orders.size() >= 2 && std::all_of(orders.begin(), orders.end(), [&](double o) {
                      return std::fabs(o - orders.front()) <= kAsymptoticOrderSpread;
                    });
    rp.predicted_coefficient = predicted_coefficient(part.spec);
    rp.surface = surface_of(part.spec);
    if (!rp.predicted_coefficient)
      rp.predicted_null_reason = part.spec.is_null()
                                     ? "a mesh part: no closed form for the rule's bias at its edges and corners"
                                     : "no closed form for this shape's mean curvature integral (holes cut by max, "
                                       "rounded edges)";
    r.parts.push_back(std::move(rp));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return r;
}

json refinement_json(const Refinement& r) {
  json parts = json::array();
  for (const RefinementPart& p : r.parts) {
    json errors = json::array(), points = json::array();
    for (double h : r.h) {  // aligned with "h"; null where the point was skipped
      json e = nullptr;
      for (const RefinementPoint& q : p.points)
        if (q.h == h) e = finite_or_null(q.volume_method_relative);
      errors.push_back(e);
    }
    for (const RefinementPoint& q : p.points) {
      json point = {{"h", q.h},
                    {"h_hex", hex_float(q.h)},
                    {"stored_bricks", q.stored_bricks},
                    {"volume_double", finite_or_null(q.volume_double)},
                    {"volume_method_relative", finite_or_null(q.volume_method_relative)},
                    {"samples", q.samples},
                    {"sample_method_h_max", finite_or_null(q.sample_method_h)},
                    {"memory_bytes_per_brick", {{"double", finite_or_null(q.memory_double_per_brick)}}},
                    {"seconds", finite_or_null(q.seconds)}};
      // Float's figures under their own names (the float-vs-double verdict reads
      // them), every storage's under "storages".
      if (const StorageShare* f = q.share(Storage::float32)) {
        point["volume_float"] = finite_or_null(f->volume);
        point["volume_storage_relative_float"] = finite_or_null(f->volume_storage_relative);
        point["sample_storage_h_max_float"] = finite_or_null(f->sample_storage_h);
        point["nodes_compared"] = f->nodes_compared;
        point["sign_flips"] = f->sign_flips;
        point["memory_bytes_per_brick"]["float"] = finite_or_null(f->memory_per_brick);
      }
      json storages = json::object();
      for (const StorageShare& share : q.shares)
        storages[std::string(storage_name(share.storage))] = {
            {"volume", finite_or_null(share.volume)},
            {"volume_storage_relative", finite_or_null(share.volume_storage_relative)},
            {"sample_storage_h_max", finite_or_null(share.sample_storage_h)},
            {"nodes_compared", share.nodes_compared},
            {"sign_flips", share.sign_flips},
            {"memory_bytes", share.memory_bytes},
            {"memory_bytes_per_brick", finite_or_null(share.memory_per_brick)}};
      point["storages"] = storages;
      points.push_back(point);
    }
    json entry = {{"part", p.part},
                  {"analytic_volume", finite_or_null(p.analytic_volume)},
                  {"analytic_exact", p.analytic_exact},
                  {"volume_estimated", p.reference_estimated},
                  {"volume_source", p.volume_source},
                  {"analytic_relative_uncertainty", finite_or_null(p.analytic_uncertainty)},
                  {"volume_relative_error", errors},
                  {"order", p.fit.order ? finite_or_null(*p.fit.order) : json(nullptr)},
                  {"coefficient", p.fit.coefficient ? finite_or_null(*p.fit.coefficient) : json(nullptr)},
                  {"fit", fit_json(p.fit)},
                  {"asymptotic", p.asymptotic},
                  {"surface", p.surface},
                  {"predicted_coefficient",
                   p.predicted_coefficient ? finite_or_null(*p.predicted_coefficient) : json(nullptr)},
                  {"points", points}};
    if (!p.predicted_coefficient) entry["predicted_null_reason"] = p.predicted_null_reason;
    parts.push_back(entry);
  }
  json skipped = json::array();
  for (const Refinement::Skipped& k : r.skipped)
    skipped.push_back({{"part", k.part}, {"h", k.h > 0 ? json(k.h) : json(nullptr)}, {"why", k.why}});
  json hs = json::array();
  for (double h : r.h) hs.push_back(h);
  return {{"h", hs},
          {"what",
           "each grid part baked at every h in double bricks and in every other storage of the run (under "
           "points[].storages: each one's volume, sample and sign differences from double, and memory); "
           "volume_relative_error = (V_double - V) / V, "
           "the method error against the part's volume (analytic, given, polyhedral, or estimated: volume_estimated; "
           "double bricks and the 64-bit sum add about 1e-15); order and coefficient fit |error| = "
           "coefficient * h^order by least squares on log-log; predicted_coefficient is the mean-curvature bias "
           "h^2/12 * (integral of H dA) / V of the volume rule"},
          {"parts", parts},
          {"skipped", skipped},
          {"seconds", finite_or_null(r.seconds)}};
}

}  // namespace distgrid::audit
