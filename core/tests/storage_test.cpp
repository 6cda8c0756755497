// The storage concept's five models: encoding, decoding, bounds, ties, bytes, and
// what the grid does with them (storage.hpp).
#include "distgrid/storage.hpp"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "distgrid/bake.hpp"
#include "distgrid/contour.hpp"
#include "distgrid/default_parts.hpp"
#include "distgrid/error.hpp"
#include "distgrid/field_json.hpp"
#include "distgrid/grid.hpp"

namespace distgrid {
namespace {

using Brick = std::array<double, kBrickNodes>;
__extension__ using Wide = __int128;  // for exact sums of decoded terms

// ---- half ---------------------------------------------------------------------

// Half values of every finite bit pattern from the format's definition, sign,
// exponent and significand put together with ldexp: the reference for decode.
double reference_half_value(std::uint16_t bits) {
  const int exponent_field = (bits >> 10) & 0x1F;
  const int significand = bits & 0x3FF;
  const double magnitude = exponent_field == 0 ? std::ldexp(significand, -24)
                                               : std::ldexp(1024 + significand, exponent_field - 25);
  return (bits & 0x8000u) != 0 ? -magnitude : magnitude;
}

// Where the compiler has _Float16 (GCC 12 on x86-64; clang 14 there has not), its own
// conversion is a second reference: libgcc's soft-float, correctly rounded.
#ifdef __FLT16_MANT_DIG__
std::uint16_t compiler_half_bits(double v) { return std::bit_cast<std::uint16_t>(static_cast<_Float16>(v)); }
#endif

bool finite_half(std::uint16_t bits) { return (bits & 0x7C00u) != 0x7C00u; }

TEST(HalfStorage, DecodesEveryFiniteBitPatternExactly) {
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    if (!finite_half(bits)) continue;
    const double v = detail::half_value(bits);
    ASSERT_EQ(std::bit_cast<std::uint64_t>(v), std::bit_cast<std::uint64_t>(reference_half_value(bits))) << b;
#ifdef __FLT16_MANT_DIG__
    ASSERT_EQ(compiler_half_bits(v), bits) << b;
#endif
    // And every finite half encodes to itself.
    ASSERT_EQ(detail::half_bits(v), bits) << b;
  }
}

TEST(HalfStorage, RoundsToNearestWithTiesToEvenInOneRounding) {
  // Between each pair of neighbouring positive halves: the midpoint (exact in
  // double) goes to the even one, the doubles just beside it to the nearer.
  for (std::uint16_t bits = 0; bits < 0x7BFF; ++bits) {
    const double lo = detail::half_value(bits), hi = detail::half_value(static_cast<std::uint16_t>(bits + 1));
    const double mid = lo + (hi - lo) / 2;
    ASSERT_EQ(detail::half_bits(mid), (bits & 1u) == 0 ? bits : bits + 1) << bits;
    ASSERT_EQ(detail::half_bits(std::nextafter(mid, 0.0)), bits) << bits;
    ASSERT_EQ(detail::half_bits(std::nextafter(mid, 1e9)), bits + 1) << bits;
    ASSERT_EQ(detail::half_bits(-mid), static_cast<std::uint16_t>(0x8000u | detail::half_bits(mid))) << bits;
  }
  // Through float this would round twice: 1 + 2^-11 + 2^-40 becomes the tie
  // 1 + 2^-11 in float, then 1 in half; correctly rounded it is 1 + 2^-10.
  EXPECT_EQ(StorageOf<Half>::decode(StorageOf<Half>::encode_node(1 + 0x1p-11 + 0x1p-40), {}), 1 + 0x1p-10);
#ifdef __FLT16_MANT_DIG__
  EXPECT_EQ(compiler_half_bits(static_cast<float>(1 + 0x1p-11 + 0x1p-40)), 0x3C00);  // 1.0
#endif
  // Beyond the largest half, and the subnormals' smallest step.
  EXPECT_EQ(detail::half_bits(65519.99), 0x7BFF);
  EXPECT_EQ(detail::half_bits(65520.0), 0x7C00);
  EXPECT_EQ(detail::half_bits(0x1p-25), 0);                       // a tie: to even, zero
  EXPECT_EQ(detail::half_bits(std::nextafter(0x1p-25, 1.0)), 1);  // just above: the smallest subnormal
}

TEST(HalfStorage, AgreesWithTheCompilersConversionOnRandomDoubles) {
#ifndef __FLT16_MANT_DIG__
  GTEST_SKIP() << "this compiler has no _Float16; the GCC build runs this comparison";
#else
  std::mt19937_64 rng(20261201);
  std::uniform_real_distribution<double> exponent(-30, 16);
  for (int n = 0; n < 200000; ++n) {
    const double v = std::ldexp(1.0 + std::ldexp(static_cast<double>(rng() >> 11), -53), static_cast<int>(exponent(rng))) *
                     ((rng() & 1) ? -1 : 1);
    if (!(std::fabs(v) < 65520)) continue;
    ASSERT_EQ(detail::half_bits(v), compiler_half_bits(v)) << std::hexfloat << v;
  }
#endif
}

TEST(HalfStorage, BoundIsHalfAnUlpOfBinary16) {
  EXPECT_EQ(StorageOf<Half>::node_bound({}, 1.0), 0x1p-11);
  EXPECT_EQ(StorageOf<Half>::node_bound({}, -1.5), 0x1p-11);
  EXPECT_EQ(StorageOf<Half>::node_bound({}, 0x1p-14), 0x1p-25);
  EXPECT_EQ(StorageOf<Half>::node_bound({}, 0x1p-20), 0x1p-25);  // subnormal: the fixed step
  EXPECT_EQ(StorageOf<Half>::node_bound({}, 0.0), 0x1p-25);
  EXPECT_EQ(StorageOf<float>::node_bound({}, 1.0), 0x1p-24);
  EXPECT_EQ(StorageOf<double>::node_bound({}, 1.0), 0.0);
  // The negative subnormal nearest zero also holds the negative values too small
  // for the format: its whole magnitude.
  EXPECT_EQ(StorageOf<Half>::node_bound({}, -0x1p-24), 0x1p-24);
  EXPECT_EQ(StorageOf<Half>::node_bound({}, 0x1p-24), 0x1p-25);
  EXPECT_EQ(StorageOf<float>::node_bound({}, -0x1p-149), 0x1p-149);
}

TEST(DirectStorage, ANegativeValueTooSmallForTheFormatStaysInside) {
  // Rounded to nearest these would be -0, which is not < 0: outside.
  for (const double v : {-0x1p-25, -0x1p-30, -0x1p-151, -std::numeric_limits<double>::denorm_min()}) {
    const double half = StorageOf<Half>::decode(StorageOf<Half>::encode_node(v), {});
    EXPECT_EQ(half, -0x1p-24) << std::hexfloat << v;
    EXPECT_LE(std::fabs(half - v), StorageOf<Half>::node_bound({}, half)) << std::hexfloat << v;
  }
  for (const double v : {-0x1p-151, -std::numeric_limits<double>::denorm_min()}) {
    const double f = StorageOf<float>::decode(StorageOf<float>::encode_node(v), {});
    EXPECT_EQ(f, -0x1p-149) << std::hexfloat << v;
    EXPECT_LE(std::fabs(f - v), StorageOf<float>::node_bound({}, f)) << std::hexfloat << v;
  }
  // Positive ones round to +0 (outside, as they were), -0 stays -0 (outside), and a
  // negative value that reaches a subnormal keeps its nearest one.
  EXPECT_EQ(StorageOf<Half>::encode_node(0x1p-30).bits, 0x0000);
  EXPECT_EQ(StorageOf<Half>::encode_node(-0.0).bits, 0x8000);
  EXPECT_EQ(StorageOf<Half>::encode_node(-0x1.8p-24).bits, 0x8002);  // a tie, to even: -2^-23
  EXPECT_EQ(std::bit_cast<std::uint32_t>(StorageOf<float>::encode_node(-0.0)), 0x80000000u);
  EXPECT_EQ(StorageOf<float>::encode_node(-0x1p-140), -0x1p-140f);
}

TEST(HalfStorage, RefusesABandBeyondBinary16AsBadarg) {
  EXPECT_NO_THROW((Grid<Half>(1000.0, 65.0)));
  try {
    Grid<Half> grid(1000.0, 66.0);
    FAIL() << "band*h = 66000 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::badarg);
    EXPECT_NE(std::string(e.what()).find("65504"), std::string::npos) << e.what();
  }
}

// ---- the linear encodings ---------------------------------------------------------

/// d = offset + code * step as an integer times a power of two, computed exactly
/// with 128-bit integers; true when that integer is below 2^53 and the double
/// decode equals it (so decoding rounded nothing).
bool decodes_exactly(const LinearBrick& b, std::uint32_t code, double decoded) {
  if (b.step == 0) return decoded == b.offset + 0.0;
  int e_offset = 0, e_step = 0;
  const double m_offset = std::frexp(b.offset, &e_offset), m_step = std::frexp(b.step, &e_step);
  // Both as integers times 2^low, low the smaller of their lowest bits' exponents.
  const int low = std::min(e_offset, e_step) - 53;
  const auto as_integer = [low](double m, int e) { return static_cast<Wide>(std::ldexp(m, e - low)); };
  const Wide n = as_integer(m_offset, e_offset) + as_integer(m_step, e_step) * code;
  const Wide limit = static_cast<Wide>(1) << 53;
  if (n >= limit || n <= -limit) {
    // Not representable in 53 bits at that scale: fine only if it still divides out.
    Wide r = n;
    int shift = 0;
    while (r % 2 == 0 && (r >= limit || r <= -limit)) {
      r /= 2;
      ++shift;
    }
    if (r >= limit || r <= -limit) return false;
    return std::ldexp(static_cast<double>(r), low + shift) == decoded;
  }
  return std::ldexp(static_cast<double>(n), low) == decoded;
}

template <class S>
class LinearStorageTest : public ::testing::Test {};
using LinearStorages = ::testing::Types<Q16, Q8>;
TYPED_TEST_SUITE(LinearStorageTest, LinearStorages);

template <class S>
void expect_encoding_holds(const Brick& values, const char* what) {
  using Model = StorageOf<S>;
  std::array<typename Model::Code, kBrickNodes> codes{};
  const LinearBrick b = Model::encode(values, codes.data());
  double lo = values[0], hi = values[0];
  for (double v : values) lo = std::min(lo, v), hi = std::max(hi, v);
  if (lo == hi) {
    EXPECT_EQ(b.step, 0) << what;
    EXPECT_FALSE(Model::stores_codes(b)) << what;
    EXPECT_EQ(b.offset, lo) << what;
    return;
  }
  ASSERT_GT(b.step, 0) << what;
  const double bound = Model::node_bound(b, 0);
  EXPECT_EQ(bound, b.step / 2) << what;
  // Endpoints: code 0 decodes to the offset and the largest code to offset + C step,
  // both exactly, and the codes' range holds every value within step / 2.
  EXPECT_EQ(Model::decode(0, b), b.offset) << what;
  EXPECT_TRUE(decodes_exactly(b, Model::kLargestCode, Model::decode(static_cast<typename Model::Code>(Model::kLargestCode), b)))
      << what;
  EXPECT_LE(b.offset - b.step / 2, lo) << what;
  EXPECT_GE(Model::decode(static_cast<typename Model::Code>(Model::kLargestCode), b) + b.step / 2, hi) << what;
  for (std::size_t n = 0; n < kBrickNodes; ++n) {
    const double v = values[n], read = Model::decode(codes[n], b);
    ASSERT_LE(std::fabs(read - v), bound) << what << " node " << n << " value " << std::hexfloat << v;
    ASSERT_EQ(read < 0, v < 0) << what << " node " << n << " changed sign: " << std::hexfloat << v << " reads " << read;
    ASSERT_TRUE(decodes_exactly(b, codes[n], read)) << what << " node " << n;
    // The rule itself: the centre of the step interval holding v.
    const double n_steps = std::floor(v / b.step);
    if (n_steps * b.step <= v && v < (n_steps + 1) * b.step) {
      ASSERT_EQ(read, (n_steps + 0.5) * b.step) << what << " " << n;
    }
  }
}

TYPED_TEST(LinearStorageTest, EveryNodeReadsWithinHalfAStepExactlyDecodedAndWithItsSign) {
  std::mt19937_64 rng(20261201);
  const double h = 1.0 / 64, bw = 3 * h;
  std::uniform_real_distribution<double> any(-bw, bw);
  for (int trial = 0; trial < 200; ++trial) {
    Brick values;
    // Noise over the band, a narrow range near zero, a narrow range far from it.
    const double centre = trial % 3 == 0 ? 0 : trial % 3 == 1 ? 1e-9 : 0.9 * bw;
    const double width = trial % 3 == 0 ? bw : std::ldexp(bw, -(trial % 40));
    for (double& v : values) v = std::clamp(centre + width * any(rng) / bw, -bw, bw);
    if (trial % 5 == 0) values[7] = 0.0;
    if (trial % 7 == 0) values[9] = -0.0;
    if (trial % 11 == 0) values[100] = std::nextafter(0.0, -1.0);
    expect_encoding_holds<TypeParam>(values, "random brick");
  }
  // Values one ulp apart, subnormals, and the two clamps only.
  Brick close;
  for (std::size_t n = 0; n < kBrickNodes; ++n) close[n] = n % 2 ? 0.75 : std::nextafter(0.75, 1.0);
  expect_encoding_holds<TypeParam>(close, "two neighbouring doubles");
  Brick tiny;
  for (std::size_t n = 0; n < kBrickNodes; ++n) tiny[n] = std::ldexp(static_cast<double>(n) - 256, -1070);
  expect_encoding_holds<TypeParam>(tiny, "subnormals");
  Brick clamps;
  for (std::size_t n = 0; n < kBrickNodes; ++n) clamps[n] = n % 3 ? bw : -bw;
  expect_encoding_holds<TypeParam>(clamps, "both clamps");
}

TYPED_TEST(LinearStorageTest, TiesGoToTheLargerCode) {
  using Model = StorageOf<TypeParam>;
  // A brick from -1 to 1: its step is found from the encoding; then every multiple
  // of the step (a tie between two decoded values) reads the value above it.
  Brick values{};
  for (std::size_t n = 0; n < kBrickNodes; ++n) values[n] = -1 + 2 * static_cast<double>(n) / 511;
  std::array<typename Model::Code, kBrickNodes> codes{};
  const LinearBrick b = Model::encode(values, codes.data());
  Brick ties = values;
  for (std::size_t n = 1; n + 1 < kBrickNodes; ++n) ties[n] = std::round(values[n] / b.step) * b.step;  // exact multiples
  const LinearBrick same = Model::encode(ties, codes.data());
  ASSERT_EQ(same, b);  // the same lo and hi, so the same lattice
  for (std::size_t n = 1; n + 1 < kBrickNodes; ++n) {
    const double read = Model::decode(codes[n], b);
    EXPECT_EQ(read, ties[n] + b.step / 2) << n;  // up, never down
  }
  // 0 itself is such a tie: it reads +step/2, outside, as 0 counts.
  Brick with_zero = values;
  with_zero[200] = 0.0;
  const LinearBrick z = Model::encode(with_zero, codes.data());
  EXPECT_EQ(Model::decode(codes[200], z), z.step / 2);
}

TYPED_TEST(LinearStorageTest, ABrickOfEqualValuesStoresNoCodes) {
  using Model = StorageOf<TypeParam>;
  for (double v : {0.1875, -0.1875, 0.0, -0.0, 1e-300}) {
    Brick values;
    values.fill(v);
    std::array<typename Model::Code, kBrickNodes> codes;
    codes.fill(7);
    const LinearBrick b = Model::encode(values, codes.data());
    EXPECT_FALSE(Model::stores_codes(b));
    EXPECT_EQ(Model::brick_bytes(b), sizeof(LinearBrick));
    EXPECT_EQ(codes[0], 7);  // not written
    EXPECT_EQ(Model::decode(0, b), v);
  }
  // In a grid: no code block, and every node reads the value.
  Grid<TypeParam> grid(1.0 / 64, 3);
  Brick outside;
  outside.fill(grid.band_width());
  Brick ramp;
  for (std::size_t n = 0; n < kBrickNodes; ++n) ramp[n] = grid.band_width() * (static_cast<double>(n) / 511 - 0.5);
  grid.add_brick(brick_key(0, 0, 0), outside);
  grid.add_brick(brick_key(1, 0, 0), ramp);
  EXPECT_EQ(grid.brick_bytes(), 2 * sizeof(LinearBrick) + kBrickNodes * sizeof(typename Model::Code));
  for (int n = 0; n < kBrickNodes; ++n) EXPECT_EQ(grid.brick(0)[n], grid.band_width());
  EXPECT_EQ(grid.node(3, 4, 5), grid.band_width());
}

TYPED_TEST(LinearStorageTest, PackGivesBackTheRoomOfBricksWithoutCodesAndReadsTheSame) {
  Grid<TypeParam> grid(1.0 / 64, 3);
  Brick flat, ramp;
  flat.fill(-grid.band_width());
  for (std::size_t n = 0; n < kBrickNodes; ++n) ramp[n] = grid.band_width() * std::sin(0.05 * static_cast<double>(n));
  for (std::int64_t b = 0; b < 6; ++b) grid.add_brick_room(brick_key(b, 0, 0));
  for (std::size_t slot = 0; slot < 6; ++slot) grid.set_brick(slot, slot % 2 ? flat : ramp);
  std::vector<double> before;
  for (std::size_t slot = 0; slot < 6; ++slot)
    for (int n = 0; n < kBrickNodes; ++n) before.push_back(grid.brick(slot)[n]);
  const std::size_t memory = grid.memory_bytes();
  grid.pack();
  EXPECT_LT(grid.memory_bytes(), memory);
  std::size_t k = 0;
  for (std::size_t slot = 0; slot < 6; ++slot)
    for (int n = 0; n < kBrickNodes; ++n) ASSERT_EQ(grid.brick(slot)[n], before[k++]) << slot;
}

// ---- every storage --------------------------------------------------------------

template <class S>
class StorageTest : public ::testing::Test {};
using Storages = ::testing::Types<float, double, Half, Q16, Q8>;
TYPED_TEST_SUITE(StorageTest, Storages);

template <class S>
Grid<S> sphere_grid(double h, unsigned threads = 0) {
  return bake<S>(compile_field<FieldScalarOf<S>>(default_part("sphere").spec), BakeSettings{h, 3, std::nullopt, threads});
}

TYPED_TEST(StorageTest, BakedNodesLieWithinTheirBoundOfTheDoubleBake) {
  const double h = 1.0 / 32;
  const Grid<TypeParam> grid = sphere_grid<TypeParam>(h);
  // The double bake of the same formula holds the exact clamped values (for float:
  // its own float formula, the one it was baked from).
  const Grid<double> exact = bake(compile_field<double>(default_part("sphere").spec), BakeSettings{h, 3, std::nullopt, 0});
  ASSERT_EQ(grid.stored_keys(), exact.stored_keys());
  ASSERT_EQ(grid.inside_keys(), exact.inside_keys());
  double worst = 0;
  for (std::size_t slot = 0; slot < grid.stored_brick_count(); ++slot) {
    const BrickView<TypeParam> stored = grid.brick(slot);
    for (int n = 0; n < kBrickNodes; ++n) {
      const double e = exact.brick(slot)[n], read = stored[n];
      const double bound = StorageOf<TypeParam>::node_bound(stored.brick, read);
      ASSERT_LE(std::fabs(read - e), bound) << slot << " " << n;
      ASSERT_LE(bound, grid.storage_bound());
      worst = std::max(worst, std::fabs(read - e));
    }
  }
  EXPECT_LE(worst, grid.storage_bound());
}

TYPED_TEST(StorageTest, FloatAndDoubleKeepTheirBytesAndTheOthersAreSmaller) {
  const Grid<TypeParam> grid = sphere_grid<TypeParam>(1.0 / 32);
  const Grid<float> f = sphere_grid<float>(1.0 / 32);
  if constexpr (std::is_same_v<TypeParam, float>) {
    EXPECT_EQ(grid.brick_bytes(), grid.stored_brick_count() * 2048);
  }
  if constexpr (std::is_same_v<TypeParam, double>) {
    EXPECT_EQ(grid.brick_bytes(), grid.stored_brick_count() * 4096);
  }
  if constexpr (std::is_same_v<TypeParam, Half>) {
    EXPECT_EQ(grid.brick_bytes(), grid.stored_brick_count() * 1024);
  }
  if constexpr (std::is_same_v<TypeParam, Q16>) {
    EXPECT_LE(grid.memory_bytes() * 100, f.memory_bytes() * 55);
  }
  if constexpr (std::is_same_v<TypeParam, Q8>) {
    EXPECT_LE(grid.memory_bytes() * 100, f.memory_bytes() * 30);
  }
}

TYPED_TEST(StorageTest, SampleManyAndGradientManyEqualTheSingleCallsBitForBit) {
  const double h = 1.0 / 32;
  const Grid<TypeParam> grid = sphere_grid<TypeParam>(h);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> coordinate(-1.2, 1.2);
  std::vector<std::array<double, 3>> points(20000);
  for (auto& p : points) p = {coordinate(rng), coordinate(rng), coordinate(rng)};
  for (std::size_t n = 0; n < 200; ++n) points[n] = {static_cast<double>(n % 40) * h * 8, 0.5, 7 * h};  // brick faces
  std::vector<double> values(points.size());
  std::vector<std::array<double, 3>> gradients(points.size());
  for (unsigned threads : {1u, 3u}) {
    grid.sample_many(points, values, threads);
    grid.gradient_many(points, gradients, threads);
    for (std::size_t n = 0; n < points.size(); ++n) {
      const double one = grid.sample(points[n][0], points[n][1], points[n][2]);
      ASSERT_EQ(std::bit_cast<std::uint64_t>(values[n]), std::bit_cast<std::uint64_t>(one)) << n;
      const std::array<double, 3> g = grid.gradient(points[n][0], points[n][1], points[n][2]);
      for (std::size_t a = 0; a < 3; ++a)
        ASSERT_EQ(std::bit_cast<std::uint64_t>(gradients[n][a]), std::bit_cast<std::uint64_t>(g[a])) << n;
    }
  }
}

TYPED_TEST(StorageTest, SamplesInterpolateTheDecodedNodes) {
  // At a node, the sample is the node's decoded value; between two nodes along x,
  // a + (b - a) t of the decoded values.
  const double h = 1.0 / 32;
  const Grid<TypeParam> grid = sphere_grid<TypeParam>(h);
  for (std::int64_t i = -40; i < 40; ++i) {
    const double a = grid.node(i, 3, 2), b = grid.node(i + 1, 3, 2);
    EXPECT_EQ(grid.sample(static_cast<double>(i) * h, 3 * h, 2 * h), a) << i;
    EXPECT_EQ(grid.sample((static_cast<double>(i) + 0.25) * h, 3 * h, 2 * h), a + (b - a) * 0.25) << i;
  }
}

TYPED_TEST(StorageTest, MeshesAreTheSameForAnyThreadCountAndEqualTheDenseMesh) {
  const Grid<TypeParam> grid = sphere_grid<TypeParam>(1.0 / 16);
  for (const ContourOptions base : {ContourOptions{Mesher::surface_nets, false}, ContourOptions{Mesher::surface_nets, true},
                                    ContourOptions{Mesher::marching_cubes, false}}) {
    ContourOptions options = base;
    options.threads = 1;
    const ContourResult one = contour(grid, options);
    ASSERT_FALSE(one.mesh.triangles.empty());
    for (unsigned threads : {2u, 5u}) {
      options.threads = threads;
      const ContourResult many = contour(grid, options);
      EXPECT_EQ(many.mesh.positions, one.mesh.positions) << threads;
      EXPECT_EQ(many.mesh.normals, one.mesh.normals) << threads;
      EXPECT_EQ(many.mesh.triangles, one.mesh.triangles) << threads;
    }
    const ContourResult dense = detail::contour_dense(grid, options);
    EXPECT_EQ(dense.mesh.triangles.size(), one.mesh.triangles.size());
  }
}

TYPED_TEST(StorageTest, VolumeIsTheSameForACopyAndCloseToDoubles) {
  const double h = 1.0 / 32;
  const Grid<TypeParam> grid = sphere_grid<TypeParam>(h);
  const Grid<TypeParam> copy = grid;
  EXPECT_EQ(grid.volume(), copy.volume());
  const double d = sphere_grid<double>(h).volume();
  // Each node's share moves by at most its error / h.
  const double nodes = static_cast<double>(grid.stored_brick_count()) * kBrickNodes;
  EXPECT_LE(std::fabs(grid.volume() - d), nodes * grid.storage_bound() / h * h * h * h + 1e-12);
}

TYPED_TEST(StorageTest, AddBrickRefusesValuesBeyondTheBand) {
  Grid<TypeParam> grid(0.125, 3);
  Brick values;
  values.fill(0.1);
  values[5] = 0.38;  // beyond band*h = 0.375
  EXPECT_THROW(grid.add_brick(brick_key(0, 0, 0), values), Error);
  values[5] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(grid.add_brick(brick_key(0, 0, 0), values), Error);
  values[5] = 0.375;
  EXPECT_NO_THROW(grid.add_brick(brick_key(0, 0, 0), values));
  EXPECT_THROW(grid.add_brick(brick_key(0, 0, 0), values), Error);  // already there
}

TEST(StorageNames, EveryStorageIsNamedAndFoundByName) {
  std::vector<std::string> seen;
  for (const char* name : {"float", "double", "half", "q16", "q8"})
    EXPECT_TRUE(with_storage_named(name, [&]<class S>() { seen.emplace_back(storage_name<S>()); })) << name;
  EXPECT_EQ(seen, (std::vector<std::string>{"float", "double", "half", "q16", "q8"}));
  EXPECT_FALSE(with_storage_named("q4", []<class S>() {}));
  EXPECT_EQ(kMaxBrickBytes<float>, 2048u);
  EXPECT_EQ(kMaxBrickBytes<Q8>, 512u + 16u);
}

}  // namespace
}  // namespace distgrid
