// Peer benchmark of the quantised storages: our q8 and q16 against NanoVDB's Fp8,
// Fp16 and FpN, from the same float grid.
//
//   peer_nanovdb [--repetitions R] [--points P] [--out FILE.json]
//
// Source: the sphere of radius 1 (the default part, centre off the lattice) baked
// at h = 1/128, band 3, into float bricks. NanoVDB gets it as an OpenVDB level set
// holding exactly those values (every stored brick a leaf of active voxels, every
// inside brick a leaf-sized tile at -band*h), converted by openToNanoVDB to Fp8,
// Fp16 and FpN (its default tolerance for level sets, a tenth of a voxel); ours are
// the same values encoded as q8 and q16 bricks. Both sides are read at the stored
// nodes (our bricks are NanoVDB's leaves, on the same lattice), against the float
// values they were made from:
//   - bytes per grid: our Grid::memory_bytes, NanoVDB's whole grid buffer;
//   - the largest storage error of a stored value, in h;
//   - sign flips: nodes whose value is negative on one side and not on the other;
//   - the enclosed volume's change: h^3 * sum clamp(1/2 - d/h, 0, 1) over the stored
//     nodes (plus 512 per inside brick), relative to the float values' own;
//   - sampling speed, one thread, random and brick-sorted order: our GridAccessor
//     against NanoVDB's trilinear sampler (createSampler<1>) at the same points, the
//     two alternating, the median of R repetitions, as the ratio ours / NanoVDB.
#include <nanovdb/NanoVDB.h>
#include <nanovdb/util/OpenToNanoVDB.h>
#include <nanovdb/util/SampleFromVoxels.h>
#include <openvdb/openvdb.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/bake.hpp"
#include "distgrid/build_info.hpp"
#include "distgrid/default_parts.hpp"
#include "distgrid/field_json.hpp"
#include "side_by_side.hpp"

namespace {

using namespace distgrid;
using bench::Point;

constexpr double kH = 1.0 / 128;
constexpr double kBand = 3;
constexpr std::uint64_t kSeed = 20261201;
const std::string kNanoVersion = std::to_string(NANOVDB_MAJOR_VERSION_NUMBER) + "." +
                                 std::to_string(NANOVDB_MINOR_VERSION_NUMBER) + "." +
                                 std::to_string(NANOVDB_PATCH_VERSION_NUMBER);

using Options = bench::RunOptions;

volatile double sink = 0;

/// The float grid as an OpenVDB level set with the same values at the same nodes.
openvdb::FloatGrid::Ptr as_openvdb(const Grid<float>& grid) {
  const auto band_width = static_cast<float>(grid.band_width());
  openvdb::FloatGrid::Ptr vdb = openvdb::FloatGrid::create(band_width);
  vdb->setTransform(openvdb::math::Transform::createLinearTransform(grid.h()));
  vdb->setGridClass(openvdb::GRID_LEVEL_SET);
  openvdb::FloatTree& tree = vdb->tree();
  for (std::size_t slot = 0; slot < grid.stored_brick_count(); ++slot) {
    const BrickCoord b = brick_of(grid.stored_keys()[slot]);
    openvdb::FloatTree::LeafNodeType* leaf = tree.touchLeaf(openvdb::Coord(
        static_cast<int>(8 * b.bx), static_cast<int>(8 * b.by), static_cast<int>(8 * b.bz)));
    const float* values = grid.brick_values(slot);
    for (unsigned n = 0; n < kBrickNodes; ++n) {
      const unsigned i = n & 7, j = (n >> 3) & 7, k = n >> 6;  // ours x fastest, OpenVDB's z fastest
      leaf->setValueOn(openvdb::Index((i << 6) | (j << 3) | k), values[n]);
    }
  }
  for (std::int64_t key : grid.inside_keys()) {
    const BrickCoord b = brick_of(key);
    tree.addTile(1, openvdb::Coord(static_cast<int>(8 * b.bx), static_cast<int>(8 * b.by), static_cast<int>(8 * b.bz)),
                 -band_width, false);
  }
  return vdb;
}

/// The float grid's values encoded as storage S (the same bricks).
template <class S>
Grid<S> encoded(const Grid<float>& grid) {
  Grid<S> out(grid.h(), grid.band());
  out.reserve(grid.stored_brick_count(), grid.inside_brick_count());
  std::array<double, kBrickNodes> values;
  for (std::size_t slot = 0; slot < grid.stored_brick_count(); ++slot) {
    for (std::size_t n = 0; n < kBrickNodes; ++n) values[n] = static_cast<double>(grid.brick_values(slot)[n]);
    out.add_brick(grid.stored_keys()[slot], values);
  }
  for (std::int64_t key : grid.inside_keys()) out.add_inside(key);
  out.pack();  // reserve() made room for every brick's codes
  return out;
}

/// Storage error, sign flips and the volume rule's sum over the float grid's stored
/// nodes, read(i, j, k) giving one side's value there.
struct Stored {
  double max_error_h = 0;
  std::size_t sign_flips = 0;
  double volume = 0;  // h^3 (sum of shares + 512 per inside brick), shares in key order
};

Stored stored_nodes(const Grid<float>& source, const std::function<double(std::int64_t, std::int64_t, std::int64_t)>& read) {
  Stored s;
  std::vector<std::size_t> slots(source.stored_brick_count());
  for (std::size_t n = 0; n < slots.size(); ++n) slots[n] = n;
  std::sort(slots.begin(), slots.end(), [&](std::size_t a, std::size_t b) {
    return source.stored_keys()[a] < source.stored_keys()[b];
  });
  double shares = 512.0 * static_cast<double>(source.inside_brick_count());
  for (std::size_t slot : slots) {
    const BrickCoord b = brick_of(source.stored_keys()[slot]);
    const float* values = source.brick_values(slot);
    for (int n = 0; n < kBrickNodes; ++n) {
      const double exact = static_cast<double>(values[n]);
      const double value = read(8 * b.bx + (n & 7), 8 * b.by + ((n >> 3) & 7), 8 * b.bz + (n >> 6));
      s.max_error_h = std::max(s.max_error_h, std::fabs(value - exact) / source.h());
      s.sign_flips += (value < 0) != (exact < 0) ? 1u : 0u;
      shares += std::clamp(0.5 - value / source.h(), 0.0, 1.0);
    }
  }
  s.volume = shares * source.h() * source.h() * source.h();
  return s;
}

template <class Codec>
double nano_sample_sum(const nanovdb::NanoGrid<Codec>& grid, const std::vector<Point>& points) {
  const auto accessor = grid.getAccessor();
  const auto sampler = nanovdb::createSampler<1>(accessor);
  double sum = 0;
  for (const Point& p : points) sum += static_cast<double>(sampler(nanovdb::Vec3d(p.x / kH, p.y / kH, p.z / kH)));
  return sum;
}

/// One of our storages against one NanoVDB codec.
template <class S, class Codec>
nlohmann::json compare(const Options& o, const Grid<float>& source, const Stored& float_nodes, const Grid<S>& ours,
                       const nanovdb::GridHandle<nanovdb::HostBuffer>& handle, const char* codec,
                       const std::vector<Point>& random, const std::vector<Point>& sorted) {
  const nanovdb::NanoGrid<Codec>& nano = *handle.template grid<Codec>();
  const Stored our_nodes = stored_nodes(source, [&](std::int64_t i, std::int64_t j, std::int64_t k) { return ours.node(i, j, k); });
  const auto accessor = nano.getAccessor();
  const Stored nano_nodes = stored_nodes(source, [&](std::int64_t i, std::int64_t j, std::int64_t k) {
    return static_cast<double>(accessor.getValue(nanovdb::Coord(static_cast<int>(i), static_cast<int>(j), static_cast<int>(k))));
  });
  const std::string name(storage_name<S>()), id = name + "_vs_" + codec;
  const auto random_t = bench::median_times(id + "/sample_random", o.repetitions, true,
                                            [&] { sink = bench::sample_sum(ours, random); },
                                            [&] { sink = nano_sample_sum(nano, random); }, "ours", "nanovdb");
  const auto sorted_t = bench::median_times(id + "/sample_sorted", o.repetitions, true,
                                            [&] { sink = bench::sample_sum(ours, sorted); },
                                            [&] { sink = nano_sample_sum(nano, sorted); }, "ours", "nanovdb");
  const auto bytes_ours = static_cast<double>(ours.memory_bytes()), bytes_nano = static_cast<double>(handle.size());
  const double nodes = static_cast<double>(source.stored_brick_count()) * kBrickNodes;
  const auto volume_change = [&](const Stored& s) { return (s.volume - float_nodes.volume) / float_nodes.volume; };
  nlohmann::json row{
      {"id", id},
      {"ours", name},
      {"nanovdb", codec},
      {"bytes_per_grid", {{"ours", bytes_ours}, {"nanovdb", bytes_nano}, {"ratio", bytes_ours / bytes_nano}}},
      {"bytes_per_stored_node", {{"ours", bytes_ours / nodes}, {"nanovdb", bytes_nano / nodes}}},
      {"max_storage_error_h", {{"ours", our_nodes.max_error_h}, {"nanovdb", nano_nodes.max_error_h},
                               {"ours_bound_h", ours.storage_bound() / kH}}},
      {"sign_flips", {{"ours", our_nodes.sign_flips}, {"nanovdb", nano_nodes.sign_flips}}},
      {"volume_change", {{"ours", volume_change(our_nodes)}, {"nanovdb", volume_change(nano_nodes)}}},
      {"sample_random_seconds", {{"ours", random_t[0]}, {"nanovdb", random_t[1]}, {"ratio", random_t[0] / random_t[1]}}},
      {"sample_sorted_seconds", {{"ours", sorted_t[0]}, {"nanovdb", sorted_t[1]}, {"ratio", sorted_t[0] / sorted_t[1]}}}};
  std::printf("%-4s vs %-4s  bytes %9.0f / %9.0f (ratio %.3f)  max error %.3g h / %.3g h (bound %.3g h)  sign flips "
              "%zu / %zu  volume change %+.3g / %+.3g  sample ratio random %.3f, sorted %.3f\n",
              name.c_str(), codec, bytes_ours, bytes_nano, bytes_ours / bytes_nano, our_nodes.max_error_h,
              nano_nodes.max_error_h, ours.storage_bound() / kH, our_nodes.sign_flips, nano_nodes.sign_flips,
              volume_change(our_nodes), volume_change(nano_nodes), random_t[0] / random_t[1], sorted_t[0] / sorted_t[1]);
  std::fflush(stdout);
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = bench::parse_run_options(argc, argv, "peer_nanovdb [--repetitions R] [--points P] [--out FILE.json]");
  openvdb::initialize();
  const tbb::global_control one_thread(tbb::global_control::max_allowed_parallelism, 1);
  const Grid<float> source = bake(compile_field<float>(default_part("sphere").spec), BakeSettings{kH, kBand, std::nullopt, 1});
  const openvdb::FloatGrid::Ptr vdb = as_openvdb(source);
  const auto fp8 = nanovdb::openToNanoVDB<nanovdb::HostBuffer, openvdb::FloatTree, nanovdb::Fp8>(*vdb);
  const auto fp16 = nanovdb::openToNanoVDB<nanovdb::HostBuffer, openvdb::FloatTree, nanovdb::Fp16>(*vdb);
  const auto fpn = nanovdb::openToNanoVDB<nanovdb::HostBuffer, openvdb::FloatTree, nanovdb::FpN>(*vdb);
  const Grid<Q8> q8 = encoded<Q8>(source);
  const Grid<Q16> q16 = encoded<Q16>(source);
  const Stored float_nodes = stored_nodes(source, [&](std::int64_t i, std::int64_t j, std::int64_t k) { return source.node(i, j, k); });
  const std::vector<Point> random = bench::query_points(source, options.points, false, kSeed);
  const std::vector<Point> sorted = bench::query_points(source, options.points, true, kSeed);
  std::printf("peer_nanovdb: NanoVDB %s, sphere r = 1, h = 1/128, band 3, from float, one thread, median of %d, %zu "
              "points, code path %s; float grid %zu bytes\n",
              kNanoVersion.c_str(), options.repetitions, options.points,
              build_instruction_set().c_str(), source.memory_bytes());
  nlohmann::json rows = nlohmann::json::array();
  rows.push_back(compare<Q8, nanovdb::Fp8>(options, source, float_nodes, q8, fp8, "Fp8", random, sorted));
  rows.push_back(compare<Q16, nanovdb::Fp16>(options, source, float_nodes, q16, fp16, "Fp16", random, sorted));
  rows.push_back(compare<Q8, nanovdb::FpN>(options, source, float_nodes, q8, fpn, "FpN", random, sorted));
  rows.push_back(compare<Q16, nanovdb::FpN>(options, source, float_nodes, q16, fpn, "FpN", random, sorted));
  const nlohmann::json report{{"benchmark", "peer_nanovdb"},
                              {"nanovdb_version", kNanoVersion},
                              {"h", kH},
                              {"band", kBand},
                              {"source", "float"},
                              {"threads", 1},
                              {"repetitions", options.repetitions},
                              {"points", options.points},
                              {"instruction_set", build_instruction_set()},
                              {"float_bytes_per_grid", source.memory_bytes()},
                              {"stored_nodes", source.stored_brick_count() * kBrickNodes},
                              {"fpn_tolerance", "NanoVDB's default for level sets: 0.1 voxel"},
                              {"timing", "process CPU time, median of the repetitions, ours and NanoVDB alternating"},
                              {"rows", rows}};
  return bench::write_report(report, options.out, "peer_nanovdb") ? 0 : 1;
}
