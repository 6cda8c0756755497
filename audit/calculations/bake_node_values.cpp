#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "calculations.hpp"
#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/audit/reference/exact_values.hpp"
#include "distgrid/audit/reference/stored_nodes.hpp"
#include "distgrid/bake.hpp"
#include "distgrid/brick_key.hpp"
#include "part_inputs.hpp"
#include "stratified.hpp"

namespace distgrid::audit::calcs {

namespace {
struct BakeNodeValues;  // the measurement, below
}  // namespace

Calculation bake_node_values() {
  return {
      .id = "bake.node_values",
      .title = "Node values of a brick",
      .declared = PrecisionClass::bits32_in_part,
      .sources = {{"core/src/bake.cpp", "bake_brick",
                   "the loop after `not_numbers != 0` runs only when the formula is NaN at a node, where the bake "
                   "throws badspec naming the node: no value to compare (the audit's parts are numbers "
                   "everywhere)"},
                  {"core/include/distgrid/brick_key.hpp", "brick_node_positions"},
                  {"core/src/field.cpp", "Field<S>::eval_batch"},
                  {"core/src/storage.cpp", "encode_linear"},
                  {"core/src/storage.cpp", "Storage<float>::encode_node"},
                  {"core/src/storage.cpp", "half_bits_same_side"},
                  {"core/include/distgrid/storage.hpp", "half_bits"}},
      .formula = "value = clamp(f(i h, j h, k h), -band h, band h), f in double at the node positions (b * 8 + n) * "
                 "h, stored as S: rounded to float or binary16 (half_bits; a negative value rounding to -0 kept inside as the negative subnormal nearest zero, half_bits_same_side), kept (double), or a brick's linear code "
                 "(encode_linear)",
      .inputs = "per part: nodes with |f| < h, nodes in the band, nodes within h/8 of the clamp at +-band h, band "
                "nodes of the part's copy translated ~5e5 h from the origin, and band nodes at a voxel size h' = h "
                "times a random factor in [1, 2) (not a power of two, so node positions round), their bricks baked "
                "with bake_brick at h'",
      .implementation = "bake (bake_brick) through the run's grids, read with the audit's own key map",
      .reference = "clamp(f(i h), +-band h) in high precision at exact positions: Field<double> for the error, "
                   "Field<S> (the formula with its data as stored) for the arithmetic; for a mesh part the exact "
                   "signed distance to its triangles (reference/mesh_distance.hpp) for both",
      .errors = "error: stored value vs high precision (Field<double>), in h and in ulps of band h. arithmetic: the "
                "core's double before storage (bake_brick's value at the node; a mesh part: its double grid's node) vs "
                "high precision of the same formula (or distance); storage: stored vs that double. No method error: a node value is the "
                "formula's value (null).",
      .run = &run_stratified<BakeNodeValues>,
      .replay = &replay_stratified<BakeNodeValues>,
      .parts_taken = PartsTaken::grid,
  };
}

namespace {

using Node = std::array<std::int64_t, 3>;

enum class Kind { near_surface, band, band_edge, far, other_h };

/// A node, and the voxel size its brick is baked at (the run's h but for other_h).
struct NodeInput {
  Node node{};
  double h = 0;
};

constexpr int kTries = 4000;

struct BakeNodeValues : OnBakedParts {
  static constexpr std::string_view id = "bake.node_values";
  static constexpr Generator<Kind> kGenerators[] = {
      {Kind::near_surface, "near_surface", "a node with |f| < h: the values the contour and the volume read"},
      {Kind::band, "band", "a node with |f| < band h"},
      {Kind::band_edge, "band_edge", "a node with | |f| - band h | < h/8: on both sides of the clamp"},
      {Kind::far, "far", "a node with |f| < band h of the part's copy translated by about 5e5 h per axis",
       Placement::far},
      {Kind::other_h, "other_h",
       "a node with |f| < band h' at h' = h times a random factor in [1, 2): its brick baked by bake_brick at h', "
       "whose node positions (8 b + n) h' round"},
  };
  using Input = NodeInput;
  using Outcome = Measured;

  RunContext& run_context;  ///< the run's parts, for the check of every stored node
  explicit BakeNodeValues(RunContext& context) : OnBakedParts(context), run_context(context) {}
  /// A mesh part's double grid is the core's double before storage.
  std::vector<PartUnit<BakedPart>> parts(RunContext& context) const { return baked_part_units(context, true); }
  std::size_t inputs_per_generator(const RunSettings& settings) const { return settings.inputs; }
  void start(CalculationResult& r) const { start_errors_in_h(r, false); }

  std::string skip_reason(const BakedPart& part, const Generator<Kind>& generator) const {
    if (generator.kind != Kind::other_h || part.part->is_formula()) return {};
    return "bake_brick evaluates a formula at another voxel size; a mesh part's bricks are baked by bake_mesh, "
           "whose node values at the run's h the other generators audit";
  }

  NodeInput generate(const BakedPart& part, const Generator<Kind>& generator, std::uint64_t seed, std::uint64_t index,
                     bool& fallback) const {
    InputRng rng(seed, id, generator.name, index);
    const double voxel = generator.kind == Kind::other_h ? this->h * (1 + rng.unit()) : this->h;
    const double band_width = band * voxel;
    const auto node_of = [&](const Point& p) {
      return Node{std::llround(p[0] / voxel), std::llround(p[1] / voxel), std::llround(p[2] / voxel)};
    };
    const auto value_at = [&](const Node& n) {
      return part.exact->approximate(static_cast<double>(n[0]) * voxel, static_cast<double>(n[1]) * voxel,
                                     static_cast<double>(n[2]) * voxel);
    };
    Node node{};
    for (int t = 0; t < kTries; ++t) {
      node = node_of(draw_point(rng, part.box));
      const double f = std::fabs(value_at(node));
      const bool ok = generator.kind == Kind::near_surface ? f < voxel
                      : generator.kind == Kind::band_edge  ? std::fabs(f - band_width) < voxel / 8
                                                           : f < band_width;
      if (ok) return {node, voxel};
    }
    fallback = true;
    return {node, voxel};
  }

  /// Per storage: the stored value against high precision of Field<double>, the
  /// bake's double (bake_brick's clamped value at the node, before storage) against
  /// Field<S> in high precision, and the stored value against that double.
  /// For float bricks of a part with a density map, `error` also holds the map's
  /// own float rounding (field.density_store), which neither split covers.
  /// At another voxel size (other_h) the node's brick is baked afresh with bake_brick,
  /// errors in units of that h.
  Outcome measure(const BakedPart& part, const NodeInput& in) const {
    const Node& n = in.node;
    const double voxel = in.h;
    const bool other_h = voxel != this->h;
    const double band_width = band * voxel;
    const HighPrecision exact = reference::exact_node_value(*part.exact, n[0], n[1], n[2], voxel, band);
    Outcome out;
    for (const AnyStoredGrid& stored : part.storages)
      std::visit(
          [&](const auto& g) {
            using S = typename std::remove_cvref_t<decltype(g)>::StorageType;
            // The core's double before storage, and its own exact value: for a
            // formula, bake_brick's value for the node (the brick baked afresh, so
            // the batch evaluation the bake runs) against the formula with its data
            // as stored; for a mesh, its double grid's node against the exact distance.
            double value = 0, core_double = 0;
            HighPrecision same_formula = exact;
            if (g.field) {
              std::array<double, kBrickNodes> brick{};
              FieldScratch scratch;
              bake_brick(*g.field, brick_key(brick_of_node(n[0]), brick_of_node(n[1]), brick_of_node(n[2])), voxel,
                         band_width, brick.data(), scratch);
              const auto at = static_cast<std::size_t>((n[0] & 7) + 8 * (n[1] & 7) + 64 * (n[2] & 7));
              core_double = brick[at];
              same_formula = reference::exact_node_value(reference::FormulaShape<FieldScalarOf<S>>(*g.field, false), n[0], n[1],
                                                         n[2], voxel, band);
              if (other_h) {
                std::array<typename StorageOf<S>::Code, kBrickNodes> codes{};  // as the storage encodes the brick
                const auto parameters = StorageOf<S>::encode(brick, codes.data());
                value = reference::reference_decode(codes[at], parameters);
              }
            } else {
              core_double = part.mesh_doubles->value(n[0], n[1], n[2]);
            }
            if (!other_h) value = g.nodes.value(n[0], n[1], n[2]);
            out.by_storage.push_back({distance_error(HighPrecision(value), exact, voxel, band_width),
                                      distance_error(HighPrecision(core_double), same_formula, voxel, band_width),
                                      distance_error(HighPrecision(value), HighPrecision(core_double), voxel, band_width),
                                      std::nullopt});
          },
          stored);
    return out;
  }

  InputValues record(const NodeInput& in) const {
    InputValues values{{"i", std::to_string(in.node[0])}, {"j", std::to_string(in.node[1])}, {"k", std::to_string(in.node[2])}};
    if (in.h != h) values.emplace_back("h", hex_float(in.h));
    return values;
  }

  nlohmann::json row(CalculationResult& r, std::size_t, const std::string& part, const BakedPart&,
                     std::span<const Sample<BakeNodeValues>>, const ErrorMaxima& max) const {
    return {{"part", part}, {"max_h", maxima_json(max, r)}};
  }

  nlohmann::json details(nlohmann::json table, std::size_t storage) const {
    return {{"by_part_and_generator", std::move(table)},
            {"stored_node_bound", stored_node_bound(run_context.settings().storages[storage])},
            {"method_null_reason",
             "a node value is the formula's own value at the node: nothing is discretised, so there is no method "
             "error"}};
  }

  /// Every stored node of every grid part at the origin against its storage's
  /// promise (reference_node_bound): |stored - the core's double| / bound, the
  /// double being what the storage rounded (the double grid's node, the same
  /// brick by key), and whether the stored node lies on the double's side (< 0
  /// inside). How far that double lies from the exact value is the arithmetic
  /// error the drawn nodes measure. Then the same for one brick of edge values
  /// (edge_value_brick) encoded as the bake encodes a brick: the values where a
  /// rounding may cross zero or the format runs out, which a part reaches only by
  /// chance.
  nlohmann::json stored_node_bound(Storage storage) const {
    if (storage == Storage::float64)
      return {{"null_reason", "double keeps the core's double: it is the value the other storages round"}};
    return with_storage(storage, [&]<class S>() {
      std::uint64_t nodes = 0, over = 0, other_side = 0, bricks_not_in_double = 0;
      double largest = 0;
      nlohmann::json worst = nullptr;
      // One node: stored (decoded by the reference), its bound, the double it was
      // rounded from; `where` names it for the worst node.
      const auto check = [&](double stored, double bound, double rounded_from, const auto& where) {
        const double off = std::fabs(stored - rounded_from);
        const double ratio = off == 0 ? 0 : (bound > 0 ? off / bound : std::numeric_limits<double>::infinity());
        ++nodes;
        over += ratio > 1 ? 1u : 0u;
        other_side += (stored < 0) != (rounded_from < 0) ? 1u : 0u;
        if (ratio > largest || (worst.is_null() && ratio >= largest)) {
          largest = ratio;
          // Set key by key: clang 14 leaks what assigning a braced list to a json held before.
          worst = nlohmann::json::object();
          where(worst);
          worst["stored"] = hex_float(stored);
          worst["rounded_from"] = hex_float(rounded_from);
          worst["bound"] = hex_float(bound);
        }
      };
      for (std::size_t p = 0; p < run_context.part_count(); ++p) {
        PartSubject& part = run_context.part(p);
        const Grid<S>& grid = part.grid<S>(Placement::origin);
        const Grid<double>& doubles = part.grid<double>(Placement::origin);
        for (std::size_t slot = 0; slot < grid.stored_keys().size(); ++slot) {
          const std::optional<std::size_t> same = doubles.find_slot(grid.stored_keys()[slot]);
          if (!same) {
            ++bricks_not_in_double;
            continue;
          }
          const double* rounded_from = doubles.brick_values(*same);
          for (std::size_t n = 0; n < kBrickNodes; ++n)
            check(reference::stored_node_value(grid, slot, n),
                  reference::reference_node_bound(grid.brick_codes(slot)[n], grid.brick_parameters(slot)),
                  rounded_from[n], [&](nlohmann::json& w) {
                    const reference::BrickTriple b = reference::brick_of_stored_key(grid.stored_keys()[slot]);
                    w["part"] = part.part().name;
                    w["i"] = 8 * b[0] + static_cast<std::int64_t>(n % 8);
                    w["j"] = 8 * b[1] + static_cast<std::int64_t>(n / 8 % 8);
                    w["k"] = 8 * b[2] + static_cast<std::int64_t>(n / 64);
                  });
        }
      }
      const std::uint64_t grid_nodes = nodes;
      const std::array<double, kBrickNodes> edge = edge_value_brick(band * this->h);
      std::array<typename StorageOf<S>::Code, kBrickNodes> codes{};
      const auto parameters = StorageOf<S>::encode(edge, codes.data());
      for (std::size_t n = 0; n < kBrickNodes; ++n)
        check(reference::reference_decode(codes[n], parameters), reference::reference_node_bound(codes[n], parameters),
              edge[n], [&](nlohmann::json& w) { w["edge_value"] = n; });
      return nlohmann::json{{"nodes_checked", nodes},
                            {"grid_nodes_checked", grid_nodes},
                            {"edge_values_checked", nodes - grid_nodes},
                            {"nodes_over_bound", over},
                            {"max_ratio_to_bound", finite_or_null(largest)},
                            {"nodes_on_the_other_side", other_side},
                            {"worst", worst},
                            {"bricks_not_in_double", bricks_not_in_double},
                            {"bound", "half the spacing of the storage's numbers at the stored value (float, "
                                      "half; the whole spacing at the negative subnormal nearest zero, which also "
                                      "holds the negative values too small for the format), half the brick's step "
                                      "(q16, q8)"}};
    });
  }

  /// A brick of the values where a storage's rounding is most delicate, within
  /// +-band_width: both zeros, the smallest doubles, both sides of float's and
  /// binary16's smallest subnormals and of the points halfway to them, the clamp
  /// and just inside it; the remaining nodes a ramp across the band, so that the
  /// linear encodings get a brick's full range.
  static std::array<double, kBrickNodes> edge_value_brick(double band_width) {
    std::vector<double> special{0.0, band_width, std::nextafter(band_width, 0.0), std::nextafter(0.0, 1.0)};
    for (const int e : {-1074, -150, -149, -148, -126, -26, -25, -24, -23, -15, -14})
      for (const double scale : {1.0, 1.5, 0.75})
        if (const double v = std::ldexp(scale, e); v < band_width) special.push_back(v);
    std::array<double, kBrickNodes> values{};
    std::size_t n = 0;
    for (const double v : special) {
      values[n++] = v;
      values[n++] = -v;  // -0 for 0
    }
    for (std::size_t k = n; k < kBrickNodes; ++k)
      values[k] = band_width * (2 * static_cast<double>(k - n) / static_cast<double>(kBrickNodes - 1 - n) - 1);
    return values;
  }
};

}  // namespace

}  // namespace distgrid::audit::calcs
