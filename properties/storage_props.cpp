// Properties of the five brick storages (core/include/distgrid/storage.hpp) as the
// calculations that read stored nodes see them: what a bake stores (bake.node_values),
// sampling (grid.sample), the volume (grid.volume) and both meshers (contour.*).
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

#include "distgrid/contour.hpp"
#include "distgrid/grid.hpp"
#include "distgrid/grid_io.hpp"
#include "distgrid/properties/generators.hpp"
#include "distgrid/storage.hpp"
#include "harness/property.hpp"

namespace distgrid {
namespace {

using namespace properties;

/// f.template operator()<S>() for each of the five storages.
template <class F>
void for_each_storage(F&& f) {
  f.template operator()<float>();
  f.template operator()<double>();
  f.template operator()<Half>();
  f.template operator()<Q16>();
  f.template operator()<Q8>();
}

rc::Gen<GridCase> storage_grid() {
  return rc::gen::weightedOneOf<GridCase>({{2, noise_grid(0.25, 3)}, {1, sphere_grid(0.125)}});
}

/// A brick of values within +-band*h: noise at one of several widths around one of
/// several centres, with the band's edges, +-0 and neighbouring doubles mixed in.
rc::Gen<std::array<double, kBrickNodes>> brick_values(double band_width) {
  return rc::gen::apply(
      [band_width](int width_exponent, int centre_choice, std::vector<std::uint64_t> noise, std::vector<int> specials) {
        const double centre = centre_choice == 0 ? 0 : centre_choice == 1 ? band_width * 0.9 : -band_width * 0.3;
        const double width = std::ldexp(band_width, -width_exponent);
        std::array<double, kBrickNodes> v{};
        for (std::size_t n = 0; n < kBrickNodes; ++n) {
          const double u = static_cast<double>(noise[n] >> 11) * 0x1p-53 * 2 - 1;  // [-1, 1)
          v[n] = std::clamp(centre + width * u, -band_width, band_width);
        }
        for (std::size_t k = 0; k < specials.size(); ++k) {
          const double special[] = {band_width, -band_width, 0.0, -0.0, std::nextafter(0.0, 1.0),
                                    std::nextafter(0.0, -1.0), std::nextafter(centre, 1e9), -0x1p-26, 0x1p-26,
                                    -0x1p-151, -0x1.8p-25};
          v[(k * 97) % kBrickNodes] = special[static_cast<std::size_t>(specials[k]) % std::size(special)];
        }
        return v;
      },
      rc::gen::inRange(0, 45), rc::gen::inRange(0, 3),
      rc::gen::container<std::vector<std::uint64_t>>(kBrickNodes, rc::gen::arbitrary<std::uint64_t>()),
      rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 11)));
}

// ---- bake.node_values: what is stored -------------------------------------------

DISTGRID_PROPERTY(BakeNodeValues, everyStoredNodeLiesWithinItsStoragesBound, 300) {
  const double band_width = 3 * *power_of_two_h(-10, 0);
  const std::array<double, kBrickNodes> exact = *brick_values(band_width);
  for_each_storage([&]<class S>() {
    using Model = StorageOf<S>;
    std::array<typename Model::Code, kBrickNodes> codes{};
    const typename Model::Brick brick = Model::encode(exact, codes.data());
    for (std::size_t n = 0; n < kBrickNodes; ++n) {
      const double read = Model::decode(codes[n], brick);
      RC_ASSERT(std::fabs(read - exact[n]) <= Model::node_bound(brick, read));
      RC_ASSERT((read < 0) == (exact[n] < 0));  // no node changes side, even one too small for the format
      if constexpr (!Model::kDirect) RC_ASSERT(Model::node_bound(brick, read) == brick.step / 2);
      if constexpr (std::is_same_v<S, double>) RC_ASSERT(std::bit_cast<std::uint64_t>(read) == std::bit_cast<std::uint64_t>(exact[n]));
    }
  });
}

DISTGRID_PROPERTY(BakeNodeValues, halfIsCorrectlyRoundedFromTheDoubleWithTiesToEven, 2000) {
  // A binary16 value, the next one up, and a double between them: the nearest wins,
  // the midpoint goes to the even one.
  const auto bits = static_cast<std::uint16_t>(*rc::gen::inRange<std::uint32_t>(0, 0x7BFF));
  const double lo = detail::half_value(bits), hi = detail::half_value(static_cast<std::uint16_t>(bits + 1));
  const double fraction = static_cast<double>(*rc::gen::arbitrary<std::uint32_t>()) * 0x1p-32;
  const double v = *rc::gen::element(lo + (hi - lo) * fraction, lo + (hi - lo) / 2, std::nextafter(lo + (hi - lo) / 2, 0.0),
                                     std::nextafter(lo + (hi - lo) / 2, 1e9));
  const std::uint16_t got = detail::half_bits(v);
  const double mid = lo + (hi - lo) / 2;
  const std::uint16_t want = v < mid ? bits : v > mid ? static_cast<std::uint16_t>(bits + 1)
                                                      : static_cast<std::uint16_t>((bits & 1u) == 0 ? bits : bits + 1);
  RC_ASSERT(got == want);
  RC_ASSERT(detail::half_bits(-v) == static_cast<std::uint16_t>(want | 0x8000u));
#ifdef __FLT16_MANT_DIG__
  // Where the compiler has _Float16 (GCC; not clang 14 on x86-64), its own
  // conversion (libgcc, correctly rounded) agrees.
  RC_ASSERT(std::bit_cast<std::uint16_t>(static_cast<_Float16>(v)) == got);
#endif
}

template <class S>
void check_ties_go_up(double band_width, const std::array<double, kBrickNodes>& values) {
  using Model = StorageOf<S>;
  std::array<typename Model::Code, kBrickNodes> codes{};
  const LinearBrick b = Model::encode(values, codes.data());
  if (b.step == 0) return;
  // Values moved to multiples of the step keep lo and hi (so the lattice), and each
  // reads step/2 above itself.
  std::array<double, kBrickNodes> ties = values;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  for (std::size_t n = 0; n < kBrickNodes; ++n) {
    const double t = std::floor(values[n] / b.step) * b.step;
    if (t > *lo && t < *hi && &values[n] != lo && &values[n] != hi) ties[n] = t;
  }
  const LinearBrick same = Model::encode(ties, codes.data());
  RC_ASSERT(same == b);
  for (std::size_t n = 0; n < kBrickNodes; ++n)
    if (ties[n] != values[n]) RC_ASSERT(Model::decode(codes[n], b) == ties[n] + b.step / 2);
  (void)band_width;
}

DISTGRID_PROPERTY(BakeNodeValues, linearTiesGoToTheLargerCode, 200) {
  const double band_width = 3 * *power_of_two_h(-10, 0);
  const std::array<double, kBrickNodes> values = *brick_values(band_width);
  check_ties_go_up<Q16>(band_width, values);
  check_ties_go_up<Q8>(band_width, values);
}

template <class S>
void check_endpoints_and_constant_bricks(const std::array<double, kBrickNodes>& values) {
  using Model = StorageOf<S>;
  std::array<typename Model::Code, kBrickNodes> codes{};
  const LinearBrick b = Model::encode(values, codes.data());
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  if (*lo == *hi) {
    RC_ASSERT(!Model::stores_codes(b));
    RC_ASSERT(Model::brick_bytes(b) == sizeof(LinearBrick));
    RC_ASSERT(Model::decode(0, b) == *lo);
    return;
  }
  const auto top = static_cast<typename Model::Code>(Model::kLargestCode);
  // Code 0 reads the offset and the largest code offset + C step, both exactly: the
  // offset and step are integers times a power of two, and so is their sum.
  RC_ASSERT(Model::decode(0, b) == b.offset);
  const double last = Model::decode(top, b);
  RC_ASSERT(last - static_cast<double>(Model::kLargestCode) * b.step == b.offset);  // exact: every term is
  RC_ASSERT(b.offset - b.step / 2 <= *lo);
  RC_ASSERT(last + b.step / 2 >= *hi);
  // Reading is monotone in the code, one step at a time.
  for (std::uint32_t c = 1; c <= Model::kLargestCode; c += 1 + Model::kLargestCode / 97)
    RC_ASSERT(Model::decode(static_cast<typename Model::Code>(c), b) - Model::decode(static_cast<typename Model::Code>(c - 1), b) ==
              b.step);
}

DISTGRID_PROPERTY(BakeNodeValues, linearDecodingIsExactAtTheCodesEndpointsAndConstantBricksStoreNoCodes, 300) {
  const double band_width = 3 * *power_of_two_h(-10, 0);
  std::array<double, kBrickNodes> values = *brick_values(band_width);
  if (*rc::gen::inRange(0, 4) == 0) values.fill(*rc::gen::element(band_width, -band_width, 0.0, band_width / 3));
  check_endpoints_and_constant_bricks<Q16>(values);
  check_endpoints_and_constant_bricks<Q8>(values);
}

DISTGRID_PROPERTY(BakeNodeValues, everyStorageRoundTripsThroughADgridFileBitForBit, 40) {
  const GridCase g = *storage_grid();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("distgrid-storage-props-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for_each_storage([&]<class S>() {
    const Grid<S> grid = g.build<S>();
    const std::string file = (dir / (std::string(storage_name<S>()) + ".dgrid")).string();
    save_grid(grid, file);
    const AnyGrid loaded = load_grid(file);
    RC_ASSERT(std::holds_alternative<Grid<S>>(loaded));
    const Grid<S>& back = std::get<Grid<S>>(loaded);
    RC_ASSERT(back.stored_keys() == grid.stored_keys());
    RC_ASSERT(back.inside_keys() == grid.inside_keys());
    for (std::size_t slot = 0; slot < grid.stored_brick_count(); ++slot) {
      RC_ASSERT(std::memcmp(back.brick_codes(slot), grid.brick_codes(slot), kBrickNodes * sizeof(typename Grid<S>::Code)) == 0);
      if constexpr (!Grid<S>::kDirect) RC_ASSERT(back.brick_parameters(slot) == grid.brick_parameters(slot));
    }
    RC_ASSERT(std::bit_cast<std::uint64_t>(back.volume()) == std::bit_cast<std::uint64_t>(grid.volume()));
  });
  std::filesystem::remove_all(dir);
}

// ---- grid.sample and grid.gradient --------------------------------------------------

DISTGRID_PROPERTY(GridSampleAndGridGradient, batchCallsEqualOneCallPerPointBitForBitForEveryStorage, 40) {
  const GridCase g = *storage_grid();
  std::vector<std::array<double, 3>> points;
  for (int n = 0; n < 200; ++n)
    points.push_back({*special_voxel_coordinate(24) * g.h, *special_voxel_coordinate(24) * g.h,
                      *special_voxel_coordinate(24) * g.h});
  const unsigned threads = *rc::gen::inRange(1u, 4u);
  for_each_storage([&]<class S>() {
    const Grid<S> grid = g.build<S>();
    std::vector<double> many(points.size());
    std::vector<std::array<double, 3>> gradients(points.size());
    grid.sample_many(points, many, threads);
    grid.gradient_many(points, gradients, threads);
    for (std::size_t n = 0; n < points.size(); ++n) {
      const double one = grid.sample(points[n][0], points[n][1], points[n][2]);
      RC_ASSERT(std::bit_cast<std::uint64_t>(many[n]) == std::bit_cast<std::uint64_t>(one));
      const std::array<double, 3> gradient = grid.gradient(points[n][0], points[n][1], points[n][2]);
      for (std::size_t a = 0; a < 3; ++a)
        RC_ASSERT(std::bit_cast<std::uint64_t>(gradients[n][a]) == std::bit_cast<std::uint64_t>(gradient[a]));
    }
  });
}

DISTGRID_PROPERTY(GridSample, atANodeReturnsTheDecodedNodeForEveryStorage, 60) {
  const GridCase g = *storage_grid();
  for_each_storage([&]<class S>() {
    const Grid<S> grid = g.build<S>();
    for (int n = 0; n < 32; ++n) {
      const std::int64_t i = *node_index(16), j = *node_index(16), k = *node_index(16);
      const double value = grid.node(i, j, k);
      RC_ASSERT(grid.sample(static_cast<double>(i) * g.h, static_cast<double>(j) * g.h, static_cast<double>(k) * g.h) == value);
    }
  });
}

// ---- grid.volume ------------------------------------------------------------------

DISTGRID_PROPERTY(GridVolume, movesByAtMostTheStorageBoundOverHPerNode, 60) {
  // Each node's share clamp(1/2 - d/h, 0, 1) moves by at most |read - exact| / h.
  const GridCase g = *storage_grid();
  const double exact = g.build<double>().volume();
  for_each_storage([&]<class S>() {
    const Grid<S> grid = g.build<S>();
    const double nodes = static_cast<double>(grid.stored_brick_count()) * kBrickNodes;
    const double slack = nodes * nodes * 0x1p-52 * g.h * g.h * g.h;  // the sums' own rounding, at most
    RC_ASSERT(std::fabs(grid.volume() - exact) <= nodes * grid.storage_bound() * g.h * g.h + slack);
  });
}

// ---- contour.surface_nets, contour.marching_cubes ---------------------------------------

DISTGRID_PROPERTY(ContourSurfaceNetsAndContourMarchingCubes, meshesAreTheSameForAnyThreadCountForEveryStorage, 30) {
  const GridCase g = *storage_grid();
  ContourOptions options;
  options.mesher = *rc::gen::element(Mesher::surface_nets, Mesher::marching_cubes);
  options.manifold = *rc::gen::arbitrary<bool>();
  const unsigned threads = *rc::gen::inRange(2u, 6u);
  for_each_storage([&]<class S>() {
    const Grid<S> grid = g.build<S>();
    options.threads = 1;
    const ContourResult one = contour(grid, options);
    options.threads = threads;
    const ContourResult many = contour(grid, options);
    RC_ASSERT(many.mesh.positions == one.mesh.positions);
    RC_ASSERT(many.mesh.normals == one.mesh.normals);
    RC_ASSERT(many.mesh.triangles == one.mesh.triangles);
  });
}

DISTGRID_PROPERTY(ContourSurfaceNetsAndContourMarchingCubes, linearStoragesMeshTheSameSignChangesAsTheExactValues, 30) {
  // q16 and q8 keep every node's sign, so the meshers find the sign-changing cells and
  // edges of the double grid: as many vertices and triangles.
  const GridCase g = *storage_grid();
  const ContourOptions options{*rc::gen::element(Mesher::surface_nets, Mesher::marching_cubes), false, 1};
  const ContourResult exact = contour(g.build<double>(), options);
  for (const ContourResult& linear : {contour(g.build<Q16>(), options), contour(g.build<Q8>(), options)}) {
    RC_ASSERT(linear.mesh.positions.size() == exact.mesh.positions.size());
    RC_ASSERT(linear.mesh.triangles.size() == exact.mesh.triangles.size());
  }
}

}  // namespace
}  // namespace distgrid
