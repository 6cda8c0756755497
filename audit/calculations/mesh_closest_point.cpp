#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "calculations.hpp"
#include "distgrid/audit/parallel.hpp"
#include "distgrid/audit/reference/mesh.hpp"
#include "distgrid/closest_point.hpp"
#include "mesh_support.hpp"

namespace distgrid::audit::calcs {

namespace {
std::vector<CalculationResult> run(RunContext& context);
std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request);
}  // namespace

Calculation mesh_closest_point() {
  return {
      .id = "mesh.closest_point",
      .title = "Closest point on a triangle and its feature",
      .declared = PrecisionClass::bits64,
      .sources = {{"core/include/distgrid/closest_point.hpp", "closest_point_on_triangle",
                   "the fallbacks where edge ca's or bc's denominator is not positive: an exactly zero-length edge "
                   "ca or bc never gets there (corner a, corner b or edge ab decides first, as worked out for "
                   "c = a and c = b), so only a squared length that underflows to 0 (coordinates near 1e-154) or "
                   "NaN takes them; likewise n.n >= 1e300 needs coordinates beyond about 1e75. All three call "
                   "closest_on_boundary, which zero_area measures"},
                  {"core/include/distgrid/closest_point.hpp", "closest_on_boundary"},
                  {"core/include/distgrid/closest_point.hpp", "closest_on_segment",
                   "a zero squared length with a positive `along` needs a segment so short that its squared "
                   "length underflows while along does not (along = se . sp is 0 when se is), or NaN: the test's "
                   "second outcome guards those only"}},
      .formula = "Voronoi regions tested in the order corner a, corner b, edge ab, corner c, edge ca, edge bc, face "
                 "from d1..d6 (dot products of ab, ac with ap, bp, cp) and va, vb, vc; an edge point by lerp(s, e, "
                 "t); the face point by projection on n = ab x ac",
      .inputs = "per Voronoi region (7) a point built inside it; points 2^-10 .. 2^-60 of the triangle's size from a "
                "region boundary; slivers and needles down to 2^-50; triangles 2^20 .. 2^30 from the origin; triangles "
                "of exactly zero area (collinear or coincident corners); the triangles of each of the run's mesh "
                "parts, with a point in a random region of each",
      .implementation = "closest_point_on_triangle",
      .reference = "the exact closest point in rationals (projection on the plane, else the nearest clamped edge; "
                   "for a zero-area triangle the nearest of its edges), its feature and the distance to its "
                   "Voronoi region's boundary",
      .errors = "error: |core point - exact point| in ulps of the largest coordinate. Decision region: core feature "
                "vs exact feature, margin in ulps of the largest coordinate; a zero-area triangle's feature is reported, not "
                "decided (its edges overlap, so the exact answer is a tie). No stored values: no arithmetic / "
                "storage / method split.",
      .run = &run,
      .replay = &replay,
      .parts_taken = PartsTaken::mesh,
  };
}

namespace {

using mesh_support::Point;
using reference::Feature;
constexpr std::string_view kId = "mesh.closest_point";

enum class Stratum { region, near_boundary, within_rounding, sliver, extreme_sliver, needle, far, zero_area, part_triangles };

struct StratumSpec {
  Stratum kind;
  Feature aim;  ///< the region a `region` or `near_boundary` input is built in
  const char* name;
  const char* description;
};

constexpr StratumSpec kStrata[] = {
    {Stratum::region, Feature::face, "region_face", "a point above or below the triangle's interior"},
    {Stratum::region, Feature::edge_ab, "region_edge_ab", "a point off edge ab, outside the triangle"},
    {Stratum::region, Feature::edge_bc, "region_edge_bc", "a point off edge bc, outside the triangle"},
    {Stratum::region, Feature::edge_ca, "region_edge_ca", "a point off edge ca, outside the triangle"},
    {Stratum::region, Feature::corner_a, "region_corner_a", "a point in corner a's cone of outward normals"},
    {Stratum::region, Feature::corner_b, "region_corner_b", "a point in corner b's cone of outward normals"},
    {Stratum::region, Feature::corner_c, "region_corner_c", "a point in corner c's cone of outward normals"},
    {Stratum::near_boundary, Feature::face, "near_boundary",
     "a point built in a random region with one coordinate of its construction 2^-k of the triangle's size, k in "
     "10..40, so it lies that close to a region boundary (margins down to a few thousand ulps)"},
    {Stratum::within_rounding, Feature::face, "within_rounding",
     "as near_boundary with k in 41..60: margins of a few ulps down to well below one, where no double "
     "computation can decide; counted in the details (within_rounding), not in the region decision"},
    {Stratum::sliver, Feature::face, "sliver",
     "a sliver (corner c at 2^-k, k in 10..24, off the line ab, between or beyond a and b) and a point anywhere "
     "near it"},
    {Stratum::extreme_sliver, Feature::face, "extreme_sliver",
     "as sliver with k in 25..50: the 64-bit normal ab x ac loses up to all its digits; counted in the details "
     "(extreme_sliver), not in the region decision or the error statistics"},
    {Stratum::needle, Feature::face, "needle", "a needle (edge ab of length 2^-k, k in 20..50) and a point near it"},
    {Stratum::far, Feature::face, "far",
     "a triangle of size 2^-6 .. 1 translated to |x| of 2^20 .. 2^30 (|x|/h up to 1e9 at h = 1/64), a point near it"},
    {Stratum::zero_area, Feature::face, "zero_area",
     "a triangle of exactly zero area, corners a, a + s d, a + t d with s, t whole in -3..3 and coordinates on a "
     "2^-20 or 2^-40 lattice (collinear, or two or three corners coincident: the core's fallback to the nearest "
     "edge; on the finer lattice the dot products round), and a point near the line; its closest point is gated, "
     "its feature reported in the details (zero_area)"},
    {Stratum::part_triangles, Feature::face, "part_triangles",
     "per mesh part of the run: a random triangle of the mesh as given (zero-area ones counted and skipped: the "
     "zero_area stratum measures those) and a point built "
     "in a random one of its Voronoi regions, within the triangle's size of it"},
};

struct Input {
  Point p{}, a{}, b{}, c{};
};

Point add(const Point& u, const Point& v) { return {u[0] + v[0], u[1] + v[1], u[2] + v[2]}; }
Point sub(const Point& u, const Point& v) { return {u[0] - v[0], u[1] - v[1], u[2] - v[2]}; }
Point scale(const Point& u, double s) { return {u[0] * s, u[1] * s, u[2] * s}; }
Point cross(const Point& u, const Point& v) {
  return {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
}
Point unit(const Point& u) { return scale(u, 1 / std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2])); }
Point random_point(InputRng& rng, double lo, double hi) { return {rng.uniform(lo, hi), rng.uniform(lo, hi), rng.uniform(lo, hi)}; }

/// A well-shaped random triangle in [-1, 1]^3: every angle above about 15 degrees.
void draw_triangle(InputRng& rng, Input& in) {
  for (int tries = 0; tries < 100; ++tries) {
    in.a = random_point(rng, -1, 1);
    in.b = random_point(rng, -1, 1);
    in.c = random_point(rng, -1, 1);
    const Point n = cross(sub(in.b, in.a), sub(in.c, in.a));
    const double area2 = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    double longest = 0;
    for (const auto& [s, e] : {std::pair{in.a, in.b}, {in.b, in.c}, {in.c, in.a}}) {
      const Point d = sub(e, s);
      longest = std::fmax(longest, d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    }
    if (longest > 0.05 && area2 > 0.5 * longest) return;  // height over the longest side > 1/2 of it
  }
}

/// A point in the Voronoi region of `aim`, built from the triangle's frame with
/// offsets up to `size` along its normals; one construction coefficient is
/// `small` times the triangle's size when small > 0.
Point point_in_region(InputRng& rng, const Input& in, Feature aim, double small, double size = 1) {
  const Point normal = scale(unit(cross(sub(in.b, in.a), sub(in.c, in.a))), size);
  // Outward normals of the three edges, in the plane.
  const Point out_ab = scale(unit(cross(sub(in.b, in.a), normal)), size),
              out_bc = scale(unit(cross(sub(in.c, in.b), normal)), size),
              out_ca = scale(unit(cross(sub(in.a, in.c), normal)), size);
  const std::int64_t which = small > 0 ? rng.integer(0, 2) : -1;  // the coefficient made small
  const auto coefficient = [&](std::int64_t slot, double lo, double hi) { return which == slot ? small : rng.uniform(lo, hi); };
  const double height = (rng.integer(0, 1) == 0 ? -1 : 1) * coefficient(2, 0, 1);
  switch (aim) {
    case Feature::face: {
      double u = coefficient(0, 0, 1), v = coefficient(1, 0, 1);
      if (u + v > 1) {
        u = 1 - u;
        v = 1 - v;
      }
      const Point q = add(in.a, add(scale(sub(in.b, in.a), u), scale(sub(in.c, in.a), v)));
      return add(q, scale(normal, height));
    }
    case Feature::edge_ab:
    case Feature::edge_bc:
    case Feature::edge_ca: {
      const Point& s = aim == Feature::edge_ab ? in.a : (aim == Feature::edge_bc ? in.b : in.c);
      const Point& e = aim == Feature::edge_ab ? in.b : (aim == Feature::edge_bc ? in.c : in.a);
      const Point& out = aim == Feature::edge_ab ? out_ab : (aim == Feature::edge_bc ? out_bc : out_ca);
      const double t = which == 0 ? (rng.integer(0, 1) == 0 ? small : 1 - small) : rng.uniform(0, 1);
      const Point q = add(s, scale(sub(e, s), t));
      return add(q, add(scale(out, coefficient(1, 0, 1)), scale(normal, height)));
    }
    case Feature::corner_a:
    case Feature::corner_b:
    case Feature::corner_c: {
      // Corner a's region is spanned by the outward normals of its two edges.
      const Point& corner = aim == Feature::corner_a ? in.a : (aim == Feature::corner_b ? in.b : in.c);
      const Point& first = aim == Feature::corner_a ? out_ca : (aim == Feature::corner_b ? out_ab : out_bc);
      const Point& second = aim == Feature::corner_a ? out_ab : (aim == Feature::corner_b ? out_bc : out_ca);
      return add(corner, add(add(scale(first, coefficient(0, 0, 1)), scale(second, coefficient(1, 0, 1))),
                             scale(normal, height)));
    }
  }
  return in.a;
}

/// The part_triangles input: a random triangle of a mesh part and a point in a
/// random one of its regions, offsets scaled by the triangle's longest side.
Input part_input(const MeshSubject& mesh, const StratumSpec& stratum, std::uint64_t seed, std::uint64_t index) {
  InputRng rng(seed, kId, std::string(stratum.name) + "/" + mesh.part.name, index);
  const TriangleMesh& part = mesh.part.mesh;
  const auto& t = part.triangles[static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(part.triangles.size()) - 1))];
  Input in;
  in.a = part.positions[t[0]];
  in.b = part.positions[t[1]];
  in.c = part.positions[t[2]];
  double longest = 0;
  for (const auto& [s, e] : {std::pair{in.a, in.b}, {in.b, in.c}, {in.c, in.a}}) {
    const Point d = sub(e, s);
    longest = std::fmax(longest, std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
  }
  const auto aim = static_cast<Feature>(rng.integer(0, 6));
  const Point n = cross(sub(in.b, in.a), sub(in.c, in.a));
  // A zero-area triangle has no frame: its input is the first corner, skipped as zero area.
  in.p = n[0] == 0 && n[1] == 0 && n[2] == 0 ? in.a : point_in_region(rng, in, aim, 0, longest);
  return in;
}

/// Input generator: the index-th triangle and point of a stratum.
Input generate_input(const StratumSpec& stratum, std::uint64_t seed, std::uint64_t index) {
  InputRng rng(seed, kId, stratum.name, index);
  Input in;
  switch (stratum.kind) {
    case Stratum::part_triangles:  // drawn by part_input
      break;
    case Stratum::region:
      draw_triangle(rng, in);
      in.p = point_in_region(rng, in, stratum.aim, 0);
      break;
    case Stratum::near_boundary:
    case Stratum::within_rounding: {
      draw_triangle(rng, in);
      const auto aim = static_cast<Feature>(rng.integer(0, 6));
      const bool near = stratum.kind == Stratum::near_boundary;
      const double small = std::ldexp(1.0, -static_cast<int>(near ? rng.integer(10, 40) : rng.integer(41, 60)));
      in.p = point_in_region(rng, in, aim, small);
      break;
    }
    case Stratum::sliver:
    case Stratum::extreme_sliver: {
      in.a = random_point(rng, -1, 1);
      in.b = random_point(rng, -1, 1);
      const Point off = unit(cross(sub(in.b, in.a), random_point(rng, -1, 1)));
      const bool extreme = stratum.kind == Stratum::extreme_sliver;
      const double t = rng.uniform(-0.5, 1.5);
      const double lift = std::ldexp(1.0, -static_cast<int>(extreme ? rng.integer(25, 50) : rng.integer(10, 24)));
      in.c = add(add(in.a, scale(sub(in.b, in.a), t)), scale(off, lift));
      in.p = add(in.a, random_point(rng, -1.5, 1.5));
      break;
    }
    case Stratum::needle: {
      in.a = random_point(rng, -1, 1);
      in.b = add(in.a, scale(unit(random_point(rng, -1, 1)), std::ldexp(1.0, -static_cast<int>(rng.integer(20, 50)))));
      in.c = random_point(rng, -1, 1);
      in.p = add(in.a, scale(random_point(rng, -1, 1), rng.integer(0, 1) == 0 ? 1e-6 : 1));
      break;
    }
    case Stratum::zero_area: {
      // Corners on one line with coordinates k 2^-m, |k| <= 2^m, m = 20 or 40: every
      // corner and edge vector below is exact, and so is the cross product (its two
      // products per component are equal exactly, so they round alike): the area is
      // exactly zero in doubles too. At m = 40 the dot products round, so the core's
      // region tests can disagree with each other, as they do on a real mesh.
      const int bits = rng.integer(0, 1) == 0 ? 20 : 40;
      const auto lattice_point = [&] {
        Point q;
        for (double& x : q) {
          const std::int64_t k = rng.integer(-(std::int64_t{1} << bits), std::int64_t{1} << bits);
          x = std::ldexp(static_cast<double>(k), -bits);
        }
        return q;
      };
      in.a = lattice_point();
      const Point d = lattice_point();
      in.b = add(in.a, scale(d, static_cast<double>(rng.integer(-3, 3))));
      in.c = add(in.a, scale(d, static_cast<double>(rng.integer(-3, 3))));
      const double off = rng.integer(0, 1) == 0 ? 1e-3 : 1;
      in.p = add(add(in.a, scale(d, rng.uniform(-4, 4))), scale(random_point(rng, -1, 1), off));
      break;
    }
    case Stratum::far: {
      draw_triangle(rng, in);
      const double size = std::ldexp(1.0, -static_cast<int>(rng.integer(0, 6)));
      const Point offset = scale(random_point(rng, -1, 1), std::ldexp(1.0, static_cast<int>(rng.integer(20, 30))));
      in.p = point_in_region(rng, in, static_cast<Feature>(rng.integer(0, 6)), 0);
      for (Point* q : {&in.a, &in.b, &in.c, &in.p}) *q = add(offset, scale(*q, size));
      break;
    }
  }
  return in;
}

struct Outcome {
  Input in;
  bool zero_area = false;  ///< exactly zero area: no region to decide (the core falls back to the edges)
  ErrorValue error;
  std::string core_feature, exact_feature;
  double margin_ulps = 0;
};

/// The implementation under test.
ClosestPoint implementation(const Input& in) { return closest_point_on_triangle(in.p, in.a, in.b, in.c); }

Outcome measure(const Input& in) {
  Outcome out;
  out.in = in;
  const ClosestPoint core = implementation(in);
  out.core_feature = feature_name(core.feature);
  // Exact zero area is decided in rationals, not from the rounded cross product.
  const reference::RationalPoint ra = reference::to_rational(in.a), rb = reference::to_rational(in.b),
                                 rc = reference::to_rational(in.c);
  const reference::RationalPoint ab{rb[0] - ra[0], rb[1] - ra[1], rb[2] - ra[2]}, ac{rc[0] - ra[0], rc[1] - ra[1], rc[2] - ra[2]};
  out.zero_area = ab[1] * ac[2] == ab[2] * ac[1] && ab[2] * ac[0] == ab[0] * ac[2] && ab[0] * ac[1] == ab[1] * ac[0];
  double coordinate_scale = 0;
  for (const Point* q : {&in.p, &in.a, &in.b, &in.c})
    for (double x : *q) coordinate_scale = std::fmax(coordinate_scale, std::fabs(x));
  const reference::ExactClosestPoint exact = reference::exact_closest_point(in.p, in.a, in.b, in.c);
  out.exact_feature = reference::feature_text(exact.feature);
  const reference::HighPoint& exact_point = exact.point;
  HighPrecision squared(0), largest(-1);
  for (std::size_t axis = 0; axis < 3; ++axis) {
    const HighPrecision d = HighPrecision(core.point[axis]) - exact_point[axis];
    squared += d * d;
    if (abs(d) > largest) {
      largest = abs(d);
      out.error.result = core.point[axis];
      out.error.reference = to_double(exact_point[axis]);
    }
  }
  out.error.abs = to_double(sqrt(squared));
  out.error.ulps = error_in_ulps(out.error.abs, coordinate_scale, 0);
  out.margin_ulps = to_double(exact.margin) / ulp_of(coordinate_scale);
  return out;
}

InputRecord record_of(const Input& in, std::uint64_t seed, const char* generator, std::uint64_t index,
                      const std::string& part) {
  return InputRecord{seed,
                     generator,
                     index,
                     part,
                     {{"p", mesh_support::point_text(in.p)},
                      {"a", mesh_support::point_text(in.a)},
                      {"b", mesh_support::point_text(in.b)},
                      {"c", mesh_support::point_text(in.c)}}};
}


std::vector<CalculationResult> run(RunContext& context) {
  const RunSettings& settings = context.settings();
  CalculationResult result;
  result.error = ErrorStats(false, false);
  DecisionStats region("region",
                       "the feature the closest point lies on (face, edge_ab/bc/ca, corner_a/b/c) vs the exact "
                       "feature in rationals (ties: corner before edge before face, the core's documented rule); "
                       "margin: distance from the point to the nearest plane bounding the exact feature's Voronoi "
                       "region, in ulps of the largest coordinate of the point and the corners");
  nlohmann::json table = nlohmann::json::array();
  // Inputs reported but not gated: below the rounding of the region tests, and extreme slivers.
  struct Probe {
    std::size_t count = 0, wrong = 0;
    double largest_wrong_margin = 0, largest_error_ulps = 0;
    nlohmann::json examples = nlohmann::json::array();
  };
  Probe within_rounding, extreme_sliver, zero_area_features;
  // A probe's count, its wrong features and its worst examples (a wrong feature, or an error above 1e6 ulps).
  const auto note = [](Probe& probe, const Outcome& o, const InputRecord& r, const char* generator, std::size_t n) {
    ++probe.count;
    probe.largest_error_ulps = std::fmax(probe.largest_error_ulps, o.error.ulps);
    if (o.core_feature != o.exact_feature) {
      ++probe.wrong;
      probe.largest_wrong_margin = std::fmax(probe.largest_wrong_margin, o.margin_ulps);
    }
    if ((o.core_feature != o.exact_feature || o.error.ulps > 1e6) && probe.examples.size() < ErrorStats::kWorstKept) {
      nlohmann::json input = nlohmann::json::object();
      for (const auto& [name, value] : r.values) input[name] = value;
      probe.examples.push_back({{"generator", generator},
                                {"index", n},
                                {"input", input},
                                {"core", o.core_feature},
                                {"exact", o.exact_feature},
                                {"margin_ulps", finite_or_null(o.margin_ulps)},
                                {"error_ulps", finite_or_null(o.error.ulps)}});
    }
  };
  std::vector<std::pair<const StratumSpec*, const MeshSubject*>> units;
  for (const StratumSpec& stratum : kStrata) {
    if (stratum.kind != Stratum::part_triangles) units.emplace_back(&stratum, nullptr);
    else
      for (std::size_t m = 0; m < context.mesh_part_count(); ++m) units.emplace_back(&stratum, &context.mesh_part(m));
  }
  std::size_t part_inputs = 0, part_zero_area = 0;
  for (const auto& unit : units) {
    const StratumSpec& stratum = *unit.first;
    const MeshSubject* const mesh = unit.second;  // a name of its own: lambdas capture it (clang 14)
    const std::string part = mesh ? mesh->part.name : std::string();
    const std::size_t count = settings.inputs;
    const InputRange range = context.shard_inputs(count);
    std::vector<Outcome> outcomes(range.size());
    context.progress().begin(std::string(kId) + " " + stratum.name + (mesh ? " " + part : std::string()), range.size());
    parallel_for(range.size(), context.threads(), context.progress(), [&](std::size_t k) {
      outcomes[k] = measure(mesh ? part_input(*mesh, stratum, settings.seed, range.first + k)
                                 : generate_input(stratum, settings.seed, range.first + k));
    });
    context.progress().end();
    result.begin_unit(count);
    region.begin_unit();  // not in result.decisions yet
    std::size_t zero_area = 0, wrong = 0;
    double most_ulps = 0, least_margin = -1;
    nlohmann::json exact_features = nlohmann::json::object();
    for (std::size_t k = 0; k < range.size(); ++k) {
      const std::size_t n = range.first + k;
      const Outcome& o = outcomes[k];
      if (o.zero_area && stratum.kind != Stratum::zero_area) {
        ++zero_area;
        continue;
      }
      auto record = [&] { return record_of(o.in, settings.seed, stratum.name, n, part); };
      if (stratum.kind == Stratum::zero_area) {
        result.error.add(o.error, record);
        note(zero_area_features, o, record(), stratum.name, n);
      } else if (stratum.kind == Stratum::within_rounding || stratum.kind == Stratum::extreme_sliver) {
        note(stratum.kind == Stratum::within_rounding ? within_rounding : extreme_sliver, o, record(), stratum.name, n);
      } else {
        result.error.add(o.error, record);
        region.add(o.core_feature, o.exact_feature, o.margin_ulps, record);
      }
      most_ulps = std::fmax(most_ulps, o.error.ulps);
      // A zero-area triangle has no regions: its tie (margin 0) is in details.zero_area, not here.
      if (stratum.kind != Stratum::zero_area) {
        wrong += o.core_feature != o.exact_feature ? 1u : 0u;
        least_margin = least_margin < 0 ? o.margin_ulps : std::fmin(least_margin, o.margin_ulps);
      }
      exact_features[o.exact_feature] = exact_features.value(o.exact_feature, 0) + 1;
    }
    if (mesh) {
      part_inputs += range.size();
      part_zero_area += zero_area;
    } else {
      result.strata.push_back({stratum.name, stratum.description, range.size(), zero_area});
    }
    table.push_back({{"generator", stratum.name},
                     {"part", mesh ? nlohmann::json(part) : nlohmann::json(nullptr)},
                     {"count", range.size()},
                     {"zero_area_skipped", zero_area},
                     {"exact_features", exact_features},
                     {"max_error_ulps", finite_or_null(most_ulps)},
                     {"misclassified", wrong},
                     {"min_margin_ulps", least_margin < 0 ? nlohmann::json(nullptr) : finite_or_null(least_margin)}});
  }
  for (const StratumSpec& stratum : kStrata)
    if (stratum.kind == Stratum::part_triangles)
      result.strata.push_back({stratum.name, stratum.description, part_inputs, part_zero_area});
  result.decisions.push_back(std::move(region));
  result.details = {
      {"by_generator", table},
      {"within_rounding",
       {{"count", within_rounding.count},
        {"misclassified", within_rounding.wrong},
        {"largest_misclassified_margin_ulps", finite_or_null(within_rounding.largest_wrong_margin)},
        {"max_error_ulps", finite_or_null(within_rounding.largest_error_ulps)},
        {"examples", within_rounding.examples},
        {"means", "points closer to a region boundary than the 64-bit tests can resolve: the core may pick the "
                  "neighbouring feature (its closest point is then within the point error of the exact one); "
                  "reported, not gated"}}},
      {"extreme_sliver",
       {{"count", extreme_sliver.count},
        {"misclassified", extreme_sliver.wrong},
        {"largest_misclassified_margin_ulps", finite_or_null(extreme_sliver.largest_wrong_margin)},
        {"max_error_ulps", finite_or_null(extreme_sliver.largest_error_ulps)},
        {"examples", extreme_sliver.examples},
        {"finding", "slivers thinner than about 2^-24 of their size: the 64-bit region tests (products of dot "
                    "products) and the face case's normal ab x ac cancel, so the core can report a wrong feature "
                    "far from any region boundary, and in the face case a closest point off by up to about 1e-2 "
                    "of the triangle's size; reported, not gated, until the core handles such slivers"}}},
      {"zero_area",
       {{"count", zero_area_features.count},
        {"feature_differs", zero_area_features.wrong},
        {"max_error_ulps", finite_or_null(zero_area_features.largest_error_ulps)},
        {"examples", zero_area_features.examples},
        {"means", "triangles of exactly zero area (the zero_area generator): their closest point is gated with "
                  "the others (error), but their feature only reported: the edges of such a triangle overlap, so "
                  "the exact answer is a tie between edges that the core's double distances may break either way"}}},
      {"error_means", "|core closest point - exact closest point| (Euclidean, high precision), in ulps of the "
                      "largest coordinate of the point and the corners; result and reference show the axis that "
                      "differs most"},
      {"fallbacks_mean", "triangles of exactly zero area drawn by a generator other than zero_area (a sliver "
                         "or a mesh part's triangle): no region exists, so they are counted and skipped"}};
  return mesh_support::for_each_storage(result, settings);
}

std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request) {
  const StratumSpec& stratum = kStrata[mesh_support::stratum_index(kStrata, request.input.generator, kId)];
  const Outcome o = measure(stratum.kind == Stratum::part_triangles
                                ? part_input(context.mesh_part_named(request.input.part), stratum, request.input.seed,
                                             request.input.index)
                                : generate_input(stratum, request.input.seed, request.input.index));
  if (o.zero_area)
    return {{"error", hex_float(o.error.result), hex_float(o.error.reference)},
            {"region", o.core_feature, o.exact_feature + " (zero area: a tie between edges, not decided)"}};
  return {{"error", hex_float(o.error.result), hex_float(o.error.reference)}, {"region", o.core_feature, o.exact_feature}};
}

}  // namespace

}  // namespace distgrid::audit::calcs
