#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "calculations.hpp"
#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/audit/parallel.hpp"
#include "distgrid/audit/reference/brick_key.hpp"
#include "distgrid/audit/reference/brick_range.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/bake.hpp"
#include "distgrid/error.hpp"
#include "distgrid/field_json.hpp"
#include "distgrid/plan.hpp"
#include "part_inputs.hpp"

namespace distgrid::audit::calcs {

namespace {
std::vector<CalculationResult> run(RunContext& context);
std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request);
}  // namespace

Calculation bake_plan() {
  return {
      .id = "bake.plan",
      .title = "Bricks to compute",
      .declared = PrecisionClass::bits64,
      .sources = {{"core/src/plan.cpp", "plan_brick_range",
                   "the out-of-range outcomes of the key-range test are taken only by a part whose padded box "
                   "leaves the key range, which throws toolarge (the bake tests feed one) and has no plan to "
                   "compare"},
                  {"core/src/field.cpp", "Field<S>::classify",
                   "its first two tests return near, the answer that is always safe, for a negative or non-finite "
                   "radius or band, which the bake's settings check never lets through, and for a ball whose "
                   "coordinates overflow a double (only a voxel size near the top of the double range)"},
                  {"core/src/field.cpp", "lipschitz_test"},
                  {"core/src/plan.cpp", "plan_bricks",
                   "the nobox outcomes are taken only by a formula without a finite box, or one whose band has "
                   "none (a union with an empty unbounded piece), which throw (the bake tests feed both) and have "
                   "no plan to compare"}},
      .formula = "brick range = floor(x / h / 8) for the box's limits x (grown by band h), in double; a brick is "
                 "computed unless the ball of radius 3.5 sqrt(3) h around its centre ((b * 8 + 3.5) h per axis) is "
                 "classified wholly outside (f >= band h) or wholly inside (f <= -band h) from f at the centre and "
                 "Lipschitz bounds",
      .inputs = "box limits on brick faces, one ulp either side, anywhere in the key range, uniform, and at voxel "
                "sizes that are not powers of two; every brick of each grid part's range (origin and far copy) "
                "that the plan (or, for a mesh part, the mesh bake) does not compute, and of a plan of each "
                "formula part in a drawn region; the bricks between the pieces of an empty shape (each formula part "
                "intersected with its copy moved past its box, the pieces closer than 2 band h and farther) that "
                "its plan does not compute; balls around the bricks of points in the band and just beyond it, "
                "at the origin and far",
      .implementation = "plan_brick_range, Field<S>::classify, plan_bricks",
      .reference = "brick ranges and node indices in exact rationals (GMP); node values f(i h) and witness values in "
                   "the ball in high precision (MPFR), Field<S>'s formula with its data as stored; a mesh part's node "
                   "values from the exact signed distance to its triangles",
      .errors = "decisions only (see decisions[].what): brick_range, range_covers_nodes, skipped_bricks and ball, "
                "each against its exact answer with the margin to the boundary. error: brick_range's index error, in "
                "ulps of the exact index as a double; no arithmetic / storage / method split (nothing is read back).",
      .run = &run,
      .replay = &replay,
      .parts_taken = PartsTaken::grid,
  };
}

namespace {

constexpr std::string_view kId = "bake.plan";

// ---- brick range ------------------------------------------------------------------

enum class RangeKind { on_face, ulp_below, ulp_above, far, random, other_h };

struct RangeStratum {
  RangeKind kind;
  const char* name;
  const char* description;
};

constexpr RangeStratum kRangeStrata[] = {
    {RangeKind::on_face, "range_on_face",
     "box limits on brick faces 8 k h, |k| <= 256, boxes up to 64 bricks wide"},
    {RangeKind::ulp_below, "range_ulp_below", "box limits one ulp below a brick face 8 k h, |k| <= 256"},
    {RangeKind::ulp_above, "range_ulp_above", "box limits one ulp above a brick face 8 k h, |k| <= 256"},
    {RangeKind::far, "range_far",
     "box limits on, or one ulp either side of, brick faces anywhere in the key range (|x|/h up to 524280)"},
    {RangeKind::random, "range_random", "box limits uniform over the key range"},
    {RangeKind::other_h, "range_other_h",
     "h times a random factor in [1, 2) (not a power of two, so x / h rounds); limits on, or one ulp either "
     "side of, brick faces, |k| <= 4096"},
};

constexpr std::int64_t kLowestBrick = -65536, kHighestBrick = 65535;  // the key range (docs/conventions.md)
constexpr std::int64_t kWidestBox = 64;                                // bricks per axis in a drawn box

struct RangeInput {
  double h = 0;
  Box box;
};

/// The brick face 8 k h (variant 1), or the double one ulp below (0) or above (2) it.
double limit_near_face(std::int64_t k, double h, int variant) {
  const double face = static_cast<double>(8 * k) * h;
  if (variant == 0) return std::nextafter(face, -std::numeric_limits<double>::infinity());
  if (variant == 2) return std::nextafter(face, std::numeric_limits<double>::infinity());
  return face;
}

RangeInput generate_range(const RangeStratum& stratum, double h, std::uint64_t seed, std::uint64_t index) {
  InputRng rng(seed, kId, stratum.name, index);
  RangeInput in;
  in.h = h;
  if (stratum.kind == RangeKind::other_h) in.h = h * (1 + rng.unit());
  const std::int64_t reach = stratum.kind == RangeKind::far || stratum.kind == RangeKind::random ? 0
                             : stratum.kind == RangeKind::other_h                                ? 4096
                                                                                                 : 256;
  for (std::size_t a = 0; a < 3; ++a) {
    // One draw per statement: the order of draws must not depend on the compiler.
    const std::int64_t k = reach == 0 ? rng.integer(kLowestBrick + 1, kHighestBrick - kWidestBox - 1)
                                      : rng.integer(-reach, reach);
    const std::int64_t width = rng.integer(0, kWidestBox);
    switch (stratum.kind) {
      case RangeKind::on_face:
        in.box.lo[a] = limit_near_face(k, in.h, 1);
        in.box.hi[a] = limit_near_face(k + width, in.h, 1);
        break;
      case RangeKind::ulp_below:
        in.box.lo[a] = limit_near_face(k, in.h, 0);
        in.box.hi[a] = limit_near_face(k + width, in.h, 0);
        break;
      case RangeKind::ulp_above:
        in.box.lo[a] = limit_near_face(k, in.h, 2);
        in.box.hi[a] = limit_near_face(k + width, in.h, 2);
        break;
      case RangeKind::far:
      case RangeKind::other_h: {
        const auto lo_variant = static_cast<int>(rng.integer(0, 2));
        const auto hi_variant = static_cast<int>(rng.integer(0, 2));
        in.box.lo[a] = limit_near_face(k, in.h, lo_variant);
        in.box.hi[a] = limit_near_face(k + width, in.h, hi_variant);
        break;
      }
      case RangeKind::random: {
        const double u = rng.unit();
        const double v = rng.unit();
        in.box.lo[a] = (static_cast<double>(8 * k) + 8 * u) * in.h;
        in.box.hi[a] = in.box.lo[a] + static_cast<double>(8 * width) * v * in.h;
        break;
      }
    }
  }
  return in;
}

struct LimitOutcome {
  std::int64_t core = 0, exact = 0;
  double margin_ulps = 0;
  bool covers = true;  ///< the limit's range still holds its first / last node's brick
};

struct RangeOutcome {
  RangeInput input;
  std::array<LimitOutcome, 6> limits;  // lo x, y, z, hi x, y, z
};

RangeOutcome measure_range(const RangeInput& in) {
  RangeOutcome out;
  out.input = in;
  const std::array<std::int64_t, 6> core = plan_brick_range(in.box, in.h);
  for (std::size_t n = 0; n < 6; ++n) {
    const bool low = n < 3;
    const double x = low ? in.box.lo[n] : in.box.hi[n - 3];
    LimitOutcome& l = out.limits[n];
    l.core = core[n];
    l.exact = reference::exact_brick_floor(x, in.h);
    l.margin_ulps = reference::exact_distance_to_brick_face(x, in.h) / ulp_of(x);
    // The brick of the first node at or above lo (last at or below hi) must be in the range.
    const std::int64_t node = low ? reference::exact_node_at_or_above(x, in.h) : reference::exact_node_at_or_below(x, in.h);
    const std::int64_t brick = reference::brick_of_node_exact(node);
    l.covers = low ? core[n] <= brick : core[n] >= brick;
  }
  return out;
}

InputRecord range_record(std::uint64_t seed, const char* generator, std::uint64_t index, const RangeInput& in) {
  InputRecord rec{seed, generator, index, "", {}};
  static const char* const kNames[6] = {"lo_x", "lo_y", "lo_z", "hi_x", "hi_y", "hi_z"};
  for (std::size_t n = 0; n < 6; ++n) rec.values.emplace_back(kNames[n], hex_float(n < 3 ? in.box.lo[n] : in.box.hi[n - 3]));
  rec.values.emplace_back("h", hex_float(in.h));
  return rec;
}

ErrorValue index_error(const LimitOutcome& l) {
  ErrorValue e;
  e.result = static_cast<double>(l.core);
  e.reference = static_cast<double>(l.exact);
  e.abs = std::fabs(e.result - e.reference);
  e.ulps = error_in_ulps(e.abs, e.reference, 0);
  return e;
}

// ---- classification ---------------------------------------------------------------

/// Witness values nearer the band edge than this (relative to band h) are
/// evaluated again in high precision; the double formula errs far less.
constexpr double kRecheckRelative = 0x1p-20;

const char* class_name(BallClass c) {
  switch (c) {
    case BallClass::outside: return "outside";
    case BallClass::inside: return "inside";
    case BallClass::near: return "near";
  }
  return "near";
}

/// What the witnesses' values allow: "near" when one has |f| < band h,
/// otherwise the side they are all on ("outside": f >= band h, "inside":
/// f <= -band h, "mixed" when both occur). margin: the smallest distance of a
/// witness value beyond the band edge on the core's side, in ulps of band h.
struct WitnessVerdict {
  std::string exact;
  double margin_ulps = std::numeric_limits<double>::infinity();
};

/// The verdict on witness values `fast` (in double) at `points`, re-evaluated
/// by `exact(p)` in high precision where the double is near the band edge.
template <class Exact>
WitnessVerdict judge_values(const std::vector<Point>& points, const std::vector<double>& fast_values,
                            const Exact& exact_at, double band_width, BallClass core) {
  bool any_band = false, any_above = false, any_below = false;
  double margin = std::numeric_limits<double>::infinity();
  const double ulp = ulp_of(band_width);
  const HighPrecision width(band_width);
  for (std::size_t n = 0; n < points.size(); ++n) {
    const Point& p = points[n];
    const double fast = fast_values[n];
    double beyond_above = fast - band_width, beyond_below = -band_width - fast;
    if (std::fabs(std::fabs(fast) - band_width) < kRecheckRelative * band_width) {
      const HighPrecision exact = exact_at(p);
      beyond_above = to_double(exact - width);
      beyond_below = to_double(-width - exact);
      any_band = any_band || (exact < width && exact > -width);
      any_above = any_above || exact >= width;
      any_below = any_below || exact <= -width;
    } else {
      any_band = any_band || std::fabs(fast) < band_width;
      any_above = any_above || fast > band_width;
      any_below = any_below || fast < -band_width;
    }
    if (core == BallClass::outside) margin = std::min(margin, beyond_above / ulp);
    if (core == BallClass::inside) margin = std::min(margin, beyond_below / ulp);
  }
  WitnessVerdict v;
  v.exact = any_band || (any_above && any_below) ? "near" : any_below ? "inside" : "outside";
  v.margin_ulps = margin;
  return v;
}

template <class S>
WitnessVerdict judge_witnesses(const Field<S>& field, const std::vector<Point>& points, double band_width,
                               BallClass core) {
  // The double values by the bake's own batch path (bit for bit eval<double>).
  std::vector<double> x, y, z, values(points.size());
  for (const Point& p : points) {
    x.push_back(p[0]);
    y.push_back(p[1]);
    z.push_back(p[2]);
  }
  FieldScratch scratch;
  field.eval_batch(x, y, z, values, scratch);
  return judge_values(points, values, [&](const Point& p) {
    return field.template eval<HighPrecision>(HighPrecision(p[0]), HighPrecision(p[1]), HighPrecision(p[2]));
  }, band_width, core);
}


/// The 512 nodes of brick b, positions as exact products i h (the node is the input).
std::vector<Point> brick_nodes(const reference::BrickTriple& b, double h) {
  std::vector<Point> nodes;
  nodes.reserve(512);
  for (std::int64_t k = 0; k < 8; ++k)
    for (std::int64_t j = 0; j < 8; ++j)
      for (std::int64_t i = 0; i < 8; ++i)
        nodes.push_back({static_cast<double>(8 * b[0] + i) * h, static_cast<double>(8 * b[1] + j) * h,
                         static_cast<double>(8 * b[2] + k) * h});
  return nodes;
}

bool has_key(const std::vector<std::int64_t>& sorted, std::int64_t key) {
  return std::binary_search(sorted.begin(), sorted.end(), key);
}

/// Bricks of a plan's range the plan does not compute, split into those next
/// to (26-neighbourhood) a computed brick and the rest, each by ascending key.
struct SkippedBricks {
  std::vector<std::pair<std::int64_t, BallClass>> border, other;
};

SkippedBricks skipped_bricks_of(const Plan& plan) {
  SkippedBricks out;
  for (std::int64_t x = plan.lo[0]; x <= plan.hi[0]; ++x)
    for (std::int64_t y = plan.lo[1]; y <= plan.hi[1]; ++y)
      for (std::int64_t z = plan.lo[2]; z <= plan.hi[2]; ++z) {
        const auto key = static_cast<std::int64_t>(*reference::brick_key_exact({x, y, z}));
        if (has_key(plan.near_keys, key)) continue;
        bool border = false;
        for (std::int64_t n = 0; n < 27 && !border; ++n) {
          const reference::BrickTriple nb{x + n % 3 - 1, y + (n / 3) % 3 - 1, z + n / 9 - 1};
          const auto nkey = reference::brick_key_exact(nb);
          border = nkey && has_key(plan.near_keys, static_cast<std::int64_t>(*nkey));
        }
        const BallClass read = has_key(plan.inside_keys, key) ? BallClass::inside : BallClass::outside;
        (border ? out.border : out.other).emplace_back(key, read);
      }
  return out;
}

/// At most `count` of the list, evenly spaced, in order.
template <class T>
std::vector<T> evenly(const std::vector<T>& all, std::size_t count) {
  if (all.size() <= count) return all;
  std::vector<T> out;
  for (std::size_t n = 0; n < count; ++n) out.push_back(all[n * all.size() / count]);
  return out;
}

enum class BallKind { surface, band_edge, far };
struct BallStratum {
  BallKind kind;
  const char* name;
  const char* description;
  Placement where;
};
constexpr BallStratum kBallStrata[] = {
    {BallKind::surface, "ball_surface", "the ball around the centre of the brick of a point with |f| < band h",
     Placement::origin},
    {BallKind::band_edge, "ball_band_edge",
     "the ball around the centre of the brick of a point with band h <= |f| < band h + 7 sqrt(3) h: balls "
     "that just clear the band",
     Placement::origin},
    {BallKind::far, "ball_far", "as ball_surface and ball_band_edge alternately, on the part's far copy",
     Placement::far},
};

struct BallInput {
  Point centre{};
  double r = 0;
  bool fallback = false;
};

BallInput generate_ball(const BallStratum& stratum, const Field<double>& field, const Box& box, double h,
                        double band_width, std::uint64_t seed, std::uint64_t index) {
  InputRng rng(seed, kId, stratum.name, index);
  BallInput in;
  const double reach = band_width + 7 * 1.7320508075688772 * h;
  const bool edge = stratum.kind == BallKind::band_edge || (stratum.kind == BallKind::far && index % 2 == 1);
  const Point p = draw_where(rng, field, box, 2000, in.fallback, [&](double f) {
    return edge ? std::fabs(f) >= band_width && std::fabs(f) < reach : std::fabs(f) < band_width;
  });
  // Centre and radius as the plan computes them for a single brick.
  for (std::size_t a = 0; a < 3; ++a)
    in.centre[a] = (static_cast<double>(8 * static_cast<std::int64_t>(std::floor(p[a] / (8 * h)))) + 3.5) * h;
  in.r = 3.5 * 1.7320508075688772 * h;
  return in;
}

/// Witnesses of a ball: its centre, the 8 points at distance r along the cube
/// diagonals (a brick's corner nodes) and the 6 at distance r along the axes.
std::vector<Point> ball_witnesses(const BallInput& in) {
  std::vector<Point> w{in.centre};
  const double diagonal = in.r / 1.7320508075688772;
  for (int n = 0; n < 8; ++n)
    w.push_back({in.centre[0] + ((n & 1) ? diagonal : -diagonal), in.centre[1] + ((n & 2) ? diagonal : -diagonal),
                 in.centre[2] + ((n & 4) ? diagonal : -diagonal)});
  for (std::size_t a = 0; a < 3; ++a)
    for (double s : {-1.0, 1.0}) {
      Point p = in.centre;
      p[a] += s * in.r;
      w.push_back(p);
    }
  return w;
}

struct ClassOutcome {
  std::string core;
  WitnessVerdict verdict;
};

template <class S>
ClassOutcome measure_ball(const Field<S>& field, const BallInput& in, double band_width) {
  const BallClass core = field.classify(in.centre[0], in.centre[1], in.centre[2], in.r, band_width);
  ClassOutcome out{class_name(core), {}};
  if (core != BallClass::near) {
    out.verdict = judge_witnesses(field, ball_witnesses(in), band_width, core);
  } else {
    // Always allowed (the test is conservative); the margin is how far the
    // root Lipschitz bound f(c) -+ L r stands from deciding the ball.
    const double f = field.template eval<double>(in.centre[0], in.centre[1], in.centre[2]);
    const double reach = field.lipschitz() * in.r;
    out.verdict.exact = "near";
    out.verdict.margin_ulps = std::min(std::fabs(f - reach - band_width), std::fabs(f + reach + band_width)) /
                              ulp_of(band_width);
  }
  return out;
}

template <class S>
ClassOutcome measure_skipped(const Field<S>& field, std::int64_t key, BallClass read, double h, double band_width) {
  const reference::BrickTriple b = reference::brick_of_stored_key(key);
  return {class_name(read), judge_witnesses(field, brick_nodes(b, h), band_width, read)};
}

/// The same for a mesh part, whose values are the exact distances to its triangles.
ClassOutcome measure_skipped(const reference::ExactShape& shape, std::int64_t key, BallClass read, double h,
                             double band_width) {
  const reference::BrickTriple b = reference::brick_of_stored_key(key);
  std::vector<double> values(512);
  shape.approximate_brick(8 * b[0], 8 * b[1], 8 * b[2], h, values.data());
  return {class_name(read), judge_values(brick_nodes(b, h), values, [&](const Point& p) {
            return shape.exact(HighPrecision(p[0]), HighPrecision(p[1]), HighPrecision(p[2]));
          }, band_width, read)};
}

const char* const kDecisionNames[] = {"brick_range", "range_covers_nodes", "skipped_bricks", "ball"};

std::vector<DecisionStats> make_decisions() {
  return {
      DecisionStats("brick_range",
                    "each box limit's brick floor(x / h / 8) (core) against floor(x / (8 h)) in exact rationals, at "
                    "the run's h; margin: distance from x to the nearest brick face, in ulps of x"),
      DecisionStats("range_covers_nodes",
                    "at voxel sizes that are not powers of two (range_other_h): whether the core's range still "
                    "holds the brick of the box's first node (ceil(x / h)) and last node (floor(x / h)), exact; "
                    "margin as brick_range"),
      DecisionStats("skipped_bricks",
                    "each brick of the plan's range that the plan does not compute (for an empty shape, each brick "
                    "between its pieces): what the grid reads there "
                    "('outside' +band h, 'inside' -band h) against what its 512 exact node values (MPFR) allow; "
                    "margin: the smallest distance of a node value beyond that band edge, in ulps of band h"),
      DecisionStats("ball",
                    "Field<S>::classify on the ball of radius 3.5 sqrt(3) h around a brick centre against 15 "
                    "witness points (centre, corner nodes, axis points at radius r) in high precision; 'near' is "
                    "always allowed (conservative); margin: for outside / inside the smallest distance of a "
                    "witness beyond the band edge, for near the distance of f(c) -+ L r from the band edge, in "
                    "ulps of band h"),
  };
}

struct PartPlan {
  Plan plan;
  SkippedBricks skipped;
};

/// `region`: bake that box instead of the formula's own (BakeSettings::region);
/// `brick_bytes`: the storage's brick size for the memory check, as bake() sets it
/// (0: plan_bricks takes the field's own).
template <class S>
PartPlan plan_part(const Field<S>& field, const RunSettings& s, unsigned threads,
                   const std::optional<Box>& region = std::nullopt, std::uint64_t brick_bytes = 0) {
  BakeSettings bake;
  bake.h = s.h;
  bake.band = s.band;
  bake.threads = threads;
  bake.region = region;
  bake.brick_bytes = brick_bytes;
  PartPlan out{plan_bricks(field, bake), {}};
  out.skipped = skipped_bricks_of(out.plan);
  return out;
}

constexpr const char* kRegionGenerator = "skipped_in_region";

/// The region skipped_in_region bakes a formula part with: the part's own box
/// from its low corner to a fraction in [0.3, 0.8) of its size per axis, drawn
/// from (seed, placement), so the shape reaches beyond the region's far faces.
Box drawn_region(const Box& own, std::uint64_t seed, Placement where) {
  InputRng rng(seed, kId, kRegionGenerator, where == Placement::origin ? 0 : 1);
  Box region = own;
  for (std::size_t a = 0; a < 3; ++a) region.hi[a] = own.lo[a] + (own.hi[a] - own.lo[a]) * rng.uniform(0.3, 0.8);
  return region;
}

/// The skipped bricks skipped_in_region measures: those of the region plan's
/// range next to a computed brick, then the others, at most `count`.
std::vector<std::pair<std::int64_t, BallClass>> region_bricks(const PartPlan& pp, std::size_t count) {
  std::vector<std::pair<std::int64_t, BallClass>> all = pp.skipped.border;
  all.insert(all.end(), pp.skipped.other.begin(), pp.skipped.other.end());
  return evenly(all, count);
}

/// A mesh part's bricks as its bake chose them, in the shape of a plan: the
/// range of the mesh's box grown by band h (no node beyond it is within the
/// band), the stored bricks as computed and the inside ones as inside.
template <class S>
PartPlan mesh_part_plan(PartSubject& part, Placement where, const RunSettings& s) {
  const Grid<S>& grid = part.grid<S>(where);
  const reference::MeshDistance& distance = static_cast<const reference::MeshShape&>(part.shape(where)).distance();
  Box box;
  for (std::size_t a = 0; a < 3; ++a) {
    box.lo[a] = distance.lo()[a] - s.band * s.h;
    box.hi[a] = distance.hi()[a] + s.band * s.h;
  }
  PartPlan out;
  const std::array<std::int64_t, 6> range = plan_brick_range(box, s.h);
  out.plan.h = s.h;
  out.plan.band = s.band;
  out.plan.lo = {range[0], range[1], range[2]};
  out.plan.hi = {range[3], range[4], range[5]};
  out.plan.bricks_considered = (range[3] - range[0] + 1) * (range[4] - range[1] + 1) * (range[5] - range[2] + 1);
  out.plan.near_keys = grid.stored_keys();
  std::sort(out.plan.near_keys.begin(), out.plan.near_keys.end());
  out.plan.inside_keys = grid.inside_keys();
  std::sort(out.plan.inside_keys.begin(), out.plan.inside_keys.end());
  out.skipped = skipped_bricks_of(out.plan);
  return out;
}

/// Why bake.plan plans no region for a mesh part.
constexpr const char* kMeshRegionNotDrawn =
    "a region is a setting of the formula bake (BakeSettings::region); the mesh bake has none";

/// Why bake.plan draws no balls around a mesh part's bricks.
constexpr const char* kMeshBallsNotDrawn =
    "the ball test is Field::classify of the formula bake; a mesh bake keeps the bricks its triangles reach, whose "
    "skipped bricks skipped_border and skipped_other check";

// ---- empty shapes -------------------------------------------------------------------

/// A formula part intersected with its own copy moved along x past the part's
/// box by a drawn gap: the intersection is empty, and so is its box. Below
/// 2 band h the two pieces' bands meet where the part reaches its box's x faces
/// (a sphere, the bracket), and the nodes between them within the band must be
/// computed; above it no node lies within the band.
struct EmptyStratum {
  const char* name;
  double gap_lo, gap_hi;  ///< the gap is drawn in [gap_lo, gap_hi) band h
  const char* description;
};
constexpr EmptyStratum kEmptyStrata[] = {
    {"skipped_near_empty", 0.2, 1.6,
     "a formula part intersected with its copy moved along x by its box's width and a gap drawn in [0.2, 1.6) band h "
     "(origin and far copy): an empty shape with an empty box, whose band reaches between the pieces where the part "
     "reaches its box's x faces; the bricks between them (the gap, grown by band h and one brick, across the part's "
     "y and z extent) that the plan does not compute, least f at the brick centre first (a quarter of the limit)"},
    {"skipped_far_empty", 2.2, 3.0,
     "the same with a gap drawn in [2.2, 3) band h: no node lies within the band, the plan computes nothing; the "
     "bricks between the pieces, least f at the brick centre first (a quarter of the limit)"},
};

/// Why bake.plan builds no empty shape from a mesh part.
constexpr const char* kMeshEmptyNotDrawn =
    "an empty shape is an intersection of formulas; a mesh part has no formula to intersect";

struct EmptyShape {
  nlohmann::json spec;
  double moved_x = 0;  ///< the copy's move along x
  Box between;  ///< the gap between the pieces grown by band h, across the part's y and z extent
};

EmptyShape empty_shape(const EmptyStratum& stratum, const nlohmann::json& part_spec, const Box& own,
                       double band_width, std::uint64_t seed, Placement where) {
  InputRng rng(seed, kId, stratum.name, where == Placement::origin ? 0 : 1);
  const double gap = rng.uniform(stratum.gap_lo, stratum.gap_hi) * band_width;
  const double by = own.hi[0] - own.lo[0] + gap;
  EmptyShape out;
  out.moved_x = by;
  out.spec = {{"type", "intersection"},
              {"of", {part_spec, {{"type", "translate"}, {"by", {by, 0.0, 0.0}}, {"shape", part_spec}}}}};
  out.between = own;
  out.between.lo[0] = own.hi[0] - band_width;
  out.between.hi[0] = own.hi[0] + gap + band_width;
  for (std::size_t a = 1; a < 3; ++a) {
    out.between.lo[a] = own.lo[a] - band_width;
    out.between.hi[a] = own.hi[a] + band_width;
  }
  return out;
}

/// The bricks of `between` (and one more on each side) that the plan does not
/// compute, the least f (the formula in double) at the brick centre first: the
/// bricks whose nodes come closest to the band. At most `count`.
std::vector<std::pair<std::int64_t, BallClass>> bricks_between(const Field<double>& field, const Plan& plan,
                                                               const Box& between, double h, std::size_t count) {
  std::array<std::int64_t, 3> lo{}, hi{};
  for (std::size_t a = 0; a < 3; ++a) {
    lo[a] = static_cast<std::int64_t>(std::floor(between.lo[a] / (8 * h))) - 1;
    hi[a] = static_cast<std::int64_t>(std::floor(between.hi[a] / (8 * h))) + 1;
  }
  std::vector<std::tuple<double, std::int64_t, BallClass>> ranked;
  for (std::int64_t x = lo[0]; x <= hi[0]; ++x)
    for (std::int64_t y = lo[1]; y <= hi[1]; ++y)
      for (std::int64_t z = lo[2]; z <= hi[2]; ++z) {
        const auto key = reference::brick_key_exact({x, y, z});
        if (!key || has_key(plan.near_keys, static_cast<std::int64_t>(*key))) continue;
        const double f = field.eval((static_cast<double>(8 * x) + 3.5) * h, (static_cast<double>(8 * y) + 3.5) * h,
                                    (static_cast<double>(8 * z) + 3.5) * h);
        const auto k = static_cast<std::int64_t>(*key);
        ranked.emplace_back(f, k, has_key(plan.inside_keys, k) ? BallClass::inside : BallClass::outside);
      }
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::pair<std::int64_t, BallClass>> out;
  for (std::size_t n = 0; n < ranked.size() && n < count; ++n)
    out.emplace_back(std::get<1>(ranked[n]), std::get<2>(ranked[n]));
  return out;
}

/// One empty shape of a part at `where`, compiled in the storage's formula scalar
/// and planned, with the skipped bricks measured between its pieces.
template <class F>
struct PlannedEmptyShape {
  EmptyShape shape;
  Field<F> field;
  Plan plan;
  std::vector<std::pair<std::int64_t, BallClass>> bricks;
};

template <class F>
PlannedEmptyShape<F> plan_empty_shape(const EmptyStratum& stratum, PartSubject& part, Placement where,
                                      const RunSettings& s, std::uint64_t seed, unsigned threads) {
  const double band_width = s.band * s.h;
  EmptyShape shape = empty_shape(stratum, part.spec(where), part.field<double>(where).bounds(), band_width, seed, where);
  Field<F> field = compile_field<F>(shape.spec);
  const Plan plan = plan_part(field, s, threads).plan;
  std::vector<std::pair<std::int64_t, BallClass>> bricks;
  if constexpr (std::is_same_v<F, double>)
    bricks = bricks_between(field, plan, shape.between, s.h, s.inputs / 4);
  else
    bricks = bricks_between(compile_field<double>(shape.spec), plan, shape.between, s.h, s.inputs / 4);
  return {std::move(shape), std::move(field), plan, std::move(bricks)};
}

InputRecord brick_record(std::uint64_t seed, const char* generator, std::uint64_t index, const std::string& part,
                         Placement where, std::int64_t key) {
  const reference::BrickTriple b = reference::brick_of_stored_key(key);
  return {seed,
          generator,
          index,
          part,
          {{"placement", placement_name(where)},
           {"bx", std::to_string(b[0])},
           {"by", std::to_string(b[1])},
           {"bz", std::to_string(b[2])}}};
}

InputRecord ball_record(std::uint64_t seed, const char* generator, std::uint64_t index, const std::string& part,
                        const BallInput& in) {
  return {seed,
          generator,
          index,
          part,
          {{"cx", hex_float(in.centre[0])}, {"cy", hex_float(in.centre[1])}, {"cz", hex_float(in.centre[2])},
           {"r", hex_float(in.r)}}};
}

template <class S>
void run_classification(RunContext& context, PartSubject& part, CalculationResult& r, nlohmann::json& table,
                        nlohmann::json& region_table, nlohmann::json& empty_table) {
  const RunSettings& s = context.settings();
  const double band_width = s.band * s.h;
  const std::string& name = part.part().name;
  std::uint64_t misses = 0;
  if (part.mesh()) context.mark_untrusted(*part.mesh());
  for (Placement where : {Placement::origin, Placement::far}) {
    const PartPlan pp = part.is_formula() ? plan_part(part.field<FieldScalarOf<S>>(where), s, context.threads())
                                          : mesh_part_plan<S>(part, where, s);
    // Measures this shard's share of a list of skipped bricks (every shard plans
    // the whole part) for the skipped_bricks decision; `region`: the plan's,
    // recorded; `formula`: another than the part's (an empty shape's), whose
    // copy's move along x is recorded.
    const auto measure_bricks = [&](const char* generator, std::size_t stratum,
                                    const std::vector<std::pair<std::int64_t, BallClass>>& bricks,
                                    const std::optional<Box>& region,
                                    const Field<FieldScalarOf<S>>* formula = nullptr, double moved_x = 0) {
      const InputRange range = context.shard_inputs(bricks.size());
      std::vector<ClassOutcome> outcomes(range.size());
      context.progress().begin(std::string(kId) + " " + name + " " + generator, range.size());
      parallel_for(range.size(), context.threads(), context.progress(), [&](std::size_t k) {
        const std::size_t n = range.first + k;
        outcomes[k] = formula ? measure_skipped(*formula, bricks[n].first, bricks[n].second, s.h, band_width)
                      : part.is_formula()
                          ? measure_skipped(part.field<FieldScalarOf<S>>(where), bricks[n].first, bricks[n].second, s.h, band_width)
                          : measure_skipped(part.shape(where), bricks[n].first, bricks[n].second, s.h, band_width);
      });
      context.progress().end();
      r.begin_unit(bricks.size());
      for (std::size_t k = 0; k < range.size(); ++k) {
        const std::size_t n = range.first + k;
        misses += outcomes[k].core != outcomes[k].verdict.exact ? 1u : 0u;
        r.decisions[2].add(outcomes[k].core, outcomes[k].verdict.exact, outcomes[k].verdict.margin_ulps, [&] {
          InputRecord record = brick_record(s.seed, generator, n, name, where, bricks[n].first);
          for (std::size_t a = 0; region && a < 3; ++a) {
            record.values.emplace_back(std::string("region_lo_") + "xyz"[a], hex_float(region->lo[a]));
            record.values.emplace_back(std::string("region_hi_") + "xyz"[a], hex_float(region->hi[a]));
          }
          if (formula) record.values.emplace_back("copy_moved_x", hex_float(moved_x));
          return record;
        });
      }
      r.strata[std::size(kRangeStrata) + stratum].count += range.size();
    };
    measure_bricks("skipped_border", 0, evenly(pp.skipped.border, s.inputs), std::nullopt);
    measure_bricks("skipped_other", 1, evenly(pp.skipped.other, s.inputs), std::nullopt);
    if (part.is_formula()) {
      const Box region = drawn_region(part.field<FieldScalarOf<S>>(where).bounds(), s.seed, where);
      const PartPlan in_region =
          plan_part(part.field<FieldScalarOf<S>>(where), s, context.threads(), region, kMaxBrickBytes<S>);
      const auto bricks = region_bricks(in_region, s.inputs);
      measure_bricks(kRegionGenerator, 2, bricks, region);
      region_table.push_back({{"part", name},
                              {"placement", placement_name(where)},
                              {"region_lo", {region.lo[0], region.lo[1], region.lo[2]}},
                              {"region_hi", {region.hi[0], region.hi[1], region.hi[2]}},
                              {"bricks_in_range", in_region.plan.bricks_considered},
                              {"computed", in_region.plan.near_keys.size()},
                              {"inside", in_region.plan.inside_keys.size()},
                              {"skipped_measured", bricks.size()}});
    } else {
      context.skip_part(name, kMeshRegionNotDrawn, kRegionGenerator);
    }
    for (std::size_t e = 0; e < std::size(kEmptyStrata); ++e) {
      const EmptyStratum& stratum = kEmptyStrata[e];
      if (!part.is_formula()) {
        context.skip_part(name, kMeshEmptyNotDrawn, stratum.name);
        continue;
      }
      const auto empty = plan_empty_shape<FieldScalarOf<S>>(stratum, part, where, s, s.seed, context.threads());
      measure_bricks(stratum.name, 3 + e, empty.bricks, std::nullopt, &empty.field, empty.shape.moved_x);
      empty_table.push_back({{"part", name},
                             {"placement", placement_name(where)},
                             {"generator", stratum.name},
                             {"copy_moved_x", empty.shape.moved_x},
                             {"bricks_in_range", empty.plan.bricks_considered},
                             {"computed", empty.plan.near_keys.size()},
                             {"skipped_measured", empty.bricks.size()}});
    }
    table.push_back({{"part", name},
                     {"placement", placement_name(where)},
                     {"bricks_in_range", pp.plan.bricks_considered},
                     {"computed", pp.plan.near_keys.size()},
                     {"inside", pp.plan.inside_keys.size()},
                     {"skipped_next_to_computed", pp.skipped.border.size()},
                     {"skipped_elsewhere", pp.skipped.other.size()}});
  }
  for (std::size_t si = 0; si < std::size(kBallStrata); ++si) {
    const BallStratum& stratum = kBallStrata[si];
    if (!part.is_formula()) {
      context.skip_part(name, kMeshBallsNotDrawn, stratum.name);
      continue;
    }
    const Field<double>& draw_field = part.field<double>(stratum.where);
    const Field<FieldScalarOf<S>>& field = part.field<FieldScalarOf<S>>(stratum.where);
    const Box box = part.draw_box<S>(stratum.where);
    const InputRange range = context.shard_inputs(s.inputs);
    std::vector<BallInput> inputs(range.size());
    std::vector<ClassOutcome> outcomes(range.size());
    context.progress().begin(std::string(kId) + " " + name + " " + stratum.name, range.size());
    parallel_for(range.size(), context.threads(), context.progress(), [&](std::size_t k) {
      inputs[k] = generate_ball(stratum, draw_field, box, s.h, band_width, s.seed, range.first + k);
      outcomes[k] = measure_ball(field, inputs[k], band_width);
    });
    context.progress().end();
    StratumCount& count = r.strata[std::size(kRangeStrata) + 3 + std::size(kEmptyStrata) + si];
    r.begin_unit(s.inputs);
    for (std::size_t k = 0; k < range.size(); ++k) {
      misses += outcomes[k].core != outcomes[k].verdict.exact ? 1u : 0u;
      r.decisions[3].add(outcomes[k].core, outcomes[k].verdict.exact, outcomes[k].verdict.margin_ulps,
                         [&] { return ball_record(s.seed, stratum.name, range.first + k, name, inputs[k]); });
      count.fallbacks += inputs[k].fallback ? 1u : 0u;
    }
    count.count += range.size();
  }
  table.back()["misclassified_in_part"] = misses;
}

std::vector<StratumCount> all_strata() {
  std::vector<StratumCount> strata;
  for (const RangeStratum& st : kRangeStrata) strata.push_back({st.name, st.description, 0, 0});
  strata.push_back({"skipped_border",
                    "every brick of the plan's range (origin and far copy) that is not computed and touches a "
                    "computed brick (at most `inputs` per part and placement, evenly spaced by key)",
                    0, 0});
  strata.push_back({"skipped_other", "the other bricks of the range that are not computed (same limit)", 0, 0});
  strata.push_back({kRegionGenerator,
                    "a formula part planned as bake() plans a region (BakeSettings::region, the command line's "
                    "--bbox; the storage's brick size for the memory check): its own box cut at a drawn fraction in "
                    "[0.3, 0.8) of its size per axis, origin and far copy; the bricks of that plan's range it does "
                    "not compute, those next to a computed brick first (same limit)",
                    0, 0});
  for (const EmptyStratum& st : kEmptyStrata) strata.push_back({st.name, st.description, 0, 0});
  for (const BallStratum& st : kBallStrata) strata.push_back({st.name, st.description, 0, 0});
  return strata;
}


std::vector<CalculationResult> run(RunContext& context) {
  const RunSettings& s = context.settings();
  // The brick range does not depend on the storage or the part: measured once.
  // A shard measures its share (RunContext::shard_inputs) of each generator.
  const InputRange share = context.shard_inputs(s.inputs);
  std::vector<std::vector<RangeOutcome>> ranges;
  for (const RangeStratum& stratum : kRangeStrata) {
    std::vector<RangeOutcome> outcomes(share.size());
    context.progress().begin(std::string(kId) + " " + stratum.name, share.size());
    parallel_for(share.size(), context.threads(), context.progress(), [&](std::size_t k) {
      outcomes[k] = measure_range(generate_range(stratum, s.h, s.seed, share.first + k));
    });
    context.progress().end();
    ranges.push_back(std::move(outcomes));
  }

  std::vector<CalculationResult> out;
  for (Storage storage : s.storages) {
    CalculationResult r;
    r.storage = storage;
    r.strata = all_strata();
    r.decisions = make_decisions();
    std::uint64_t floor_differs_other_h = 0;
    for (std::size_t si = 0; si < std::size(kRangeStrata); ++si) {
      const RangeStratum& stratum = kRangeStrata[si];
      r.begin_unit(s.inputs);
      for (std::size_t k = 0; k < ranges[si].size(); ++k) {
        const std::size_t n = share.first + k;
        const RangeOutcome& o = ranges[si][k];
        const auto record = [&] { return range_record(s.seed, stratum.name, n, o.input); };
        for (const LimitOutcome& l : o.limits) {
          if (stratum.kind == RangeKind::other_h) {
            floor_differs_other_h += l.core != l.exact ? 1u : 0u;
            r.decisions[1].add(l.covers ? "covers" : "misses", "covers", l.margin_ulps, record);
          } else {
            r.decisions[0].add(std::to_string(l.core), std::to_string(l.exact), l.margin_ulps, record);
          }
        }
        if (stratum.kind != RangeKind::other_h) {
          const auto worst = std::max_element(o.limits.begin(), o.limits.end(), [](const auto& a, const auto& b) {
            return std::llabs(a.core - a.exact) < std::llabs(b.core - b.exact);
          });
          r.error.add(index_error(*worst), record);
        }
      }
      r.strata[si].count = ranges[si].size();
    }
    nlohmann::json table = nlohmann::json::array(), region_table = nlohmann::json::array(),
                   empty_table = nlohmann::json::array();
    for (std::size_t p = 0; p < context.part_count(); ++p) {
      with_storage(storage, [&]<class S>() { run_classification<S>(context, context.part(p), r, table, region_table, empty_table);
      });
    }
    r.details = {{"by_part_and_placement", table},
                 {"in_region", region_table},
                 {"empty_shapes", empty_table},
                 {"range_other_h_floor_differs", floor_differs_other_h},
                 {"range_other_h_note",
                  "at a voxel size that is not a power of two, x / h rounds, and floor(x / h / 8) differs from the "
                  "exact floor(x / (8 h)) where x / h rounds onto a multiple of 8; the range then starts or ends one "
                  "brick later, at a brick holding no node of the box, so range_covers_nodes is what must hold"}};
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request) {
  const RunSettings& s = context.settings();
  const InputRecord& in = request.input;
  const double band_width = s.band * s.h;
  for (const RangeStratum& stratum : kRangeStrata) {
    if (in.generator != stratum.name) continue;
    const RangeOutcome o = measure_range(generate_range(stratum, s.h, in.seed, in.index));
    // One value per box limit (lo x, y, z, hi x, y, z), as the decision counts them.
    std::vector<ReplayValue> values;
    const bool other_h = stratum.kind == RangeKind::other_h;
    for (const LimitOutcome& l : o.limits) {
      if (other_h) values.push_back({kDecisionNames[1], l.covers ? "covers" : "misses", "covers"});
      else values.push_back({kDecisionNames[0], std::to_string(l.core), std::to_string(l.exact)});
    }
    if (!other_h) {
      const auto worst = std::max_element(o.limits.begin(), o.limits.end(), [](const auto& a, const auto& b) {
        return std::llabs(a.core - a.exact) < std::llabs(b.core - b.exact);
      });
      const ErrorValue e = index_error(*worst);
      values.push_back({"error", hex_float(e.result), hex_float(e.reference)});
    }
    return values;
  }
  PartSubject& part = part_named(context, in.part);
  Placement where = Placement::origin;
  for (const auto& [key, value] : in.values)
    if (key == "placement") where = placement_named(value);
  for (const BallStratum& stratum : kBallStrata)
    if (in.generator == stratum.name) where = stratum.where;
  for (const EmptyStratum& stratum : kEmptyStrata) {
    if (in.generator != stratum.name) continue;
    if (!part.is_formula()) throw Error(ErrorCode::badarg, "replay: bake.plan builds no empty shape from mesh part " + in.part);
    return with_storage(request.storage, [&]<class S>() -> std::vector<ReplayValue> {
      const auto empty = plan_empty_shape<FieldScalarOf<S>>(stratum, part, where, s, in.seed, context.threads());
      if (in.index >= empty.bricks.size())
        throw Error(ErrorCode::badarg, "replay: no skipped brick " + std::to_string(in.index));
      const auto [key, read] = empty.bricks[in.index];
      const ClassOutcome o = measure_skipped(empty.field, key, read, s.h, band_width);
      return {{kDecisionNames[2], o.core, o.verdict.exact}};
    });
  }
  const auto skipped = [&]<class S>() -> std::vector<ReplayValue> {
    const bool in_region = in.generator == kRegionGenerator;
    if (in_region && !part.is_formula())
      throw Error(ErrorCode::badarg, "replay: bake.plan bakes no region of mesh part " + in.part);
    const PartPlan pp =
        !part.is_formula() ? mesh_part_plan<S>(part, where, s)
        : in_region ? plan_part(part.field<FieldScalarOf<S>>(where), s, context.threads(),
                                drawn_region(part.field<FieldScalarOf<S>>(where).bounds(), in.seed, where),
                                kMaxBrickBytes<S>)
                    : plan_part(part.field<FieldScalarOf<S>>(where), s, context.threads());
    const auto bricks = in_region ? region_bricks(pp, s.inputs)
                                  : evenly(in.generator == "skipped_border" ? pp.skipped.border : pp.skipped.other, s.inputs);
    if (in.index >= bricks.size()) throw Error(ErrorCode::badarg, "replay: no skipped brick " + std::to_string(in.index));
    const auto [key, read] = bricks[in.index];
    const ClassOutcome o = part.is_formula() ? measure_skipped(part.field<FieldScalarOf<S>>(where), key, read, s.h, band_width)
                                             : measure_skipped(part.shape(where), key, read, s.h, band_width);
    return {{kDecisionNames[2], o.core, o.verdict.exact}};
  };
  if (in.generator == "skipped_border" || in.generator == "skipped_other" || in.generator == kRegionGenerator)
    return with_storage(request.storage, [&]<class S>() { return skipped.template operator()<S>(); });
  if (!part.is_formula()) throw Error(ErrorCode::badarg, "replay: bake.plan draws no balls around mesh part " + in.part);
  const auto run = [&]<class S>() -> std::vector<ReplayValue> {
    const Field<FieldScalarOf<S>>& field = part.field<FieldScalarOf<S>>(where);
    for (const BallStratum& stratum : kBallStrata) {
      if (in.generator != stratum.name) continue;
      const Field<double>& draw_field = part.field<double>(stratum.where);
      const Box box = part.draw_box<S>(stratum.where);
      const BallInput ball = generate_ball(stratum, draw_field, box, s.h, band_width, in.seed, in.index);
      const ClassOutcome o = measure_ball(field, ball, band_width);
      return {{kDecisionNames[3], o.core, o.verdict.exact}};
    }
    throw Error(ErrorCode::badarg, "replay: bake.plan has no generator \"" + in.generator + "\"");
  };
  return with_storage(request.storage, [&]<class S>() { return run.template operator()<S>(); });
}

}  // namespace

}  // namespace distgrid::audit::calcs
