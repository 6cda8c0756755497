// Field<S>: exact primitive distances, batch == scalar bit for bit, conservative
// ball classification, Lipschitz bounds, density maps and bounds.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/default_parts.hpp"
#include "distgrid/error.hpp"
#include "distgrid/field.hpp"
#include "distgrid/field_kernels.hpp"  // eval<long double> below instantiates the kernels here
#include "distgrid/field_json.hpp"

namespace distgrid {
namespace {

using nlohmann::json;

Field<double> field_of(const std::string& text) { return compile_field_text<double>(text, "test"); }

// One spec per node type (and per number-field kind), small enough to sample
// densely around the unit cube. The gyroids vary cell size and thickness.
const std::vector<std::string>& node_specs() {
  static const std::vector<std::string> specs{
      R"({"type":"sphere","center":[0.1,-0.2,0.05],"radius":0.7})",
      R"({"type":"box","center":[0.05,0,-0.1],"size":[1.2,0.8,0.6]})",
      R"({"type":"box","center":[0,0.1,0],"size":[1.2,0.8,0.6],"round":0.2})",
      R"({"type":"cylinder","start":[-0.5,-0.3,-0.2],"end":[0.4,0.5,0.3],"radius":0.3})",
      R"({"type":"cylinder","start":[0,0,-0.6],"end":[0,0,0.6],"radius":0.45})",
      R"({"type":"torus","center":[0,0,0.1],"major_radius":0.6,"minor_radius":0.2,"axis":[1,1,0]})",
      R"({"type":"capsule","start":[-0.5,0,0],"end":[0.5,0.3,-0.2],"radius":0.25})",
      R"({"type":"capsule","start":[0.2,0.2,0.2],"end":[0.2,0.2,0.2],"radius":0.25})",
      R"({"type":"halfspace","normal":[1,2,-2],"offset":0.1})",
      R"({"type":"union","of":[{"type":"sphere","center":[-0.3,0,0],"radius":0.4},
          {"type":"sphere","center":[0.3,0,0],"radius":0.35},{"type":"box","center":[0,0.5,0],"size":[0.3,0.3,0.3]}]})",
      R"({"type":"intersection","of":[{"type":"sphere","center":[0,0,0],"radius":0.7},
          {"type":"box","center":[0.2,0,0],"size":[1,1,1]}]})",
      R"({"type":"difference","from":{"type":"box","center":[0,0,0],"size":[1.2,1.2,1.2]},
          "subtract":[{"type":"sphere","center":[0,0,0],"radius":0.7},{"type":"cylinder","start":[0,0,-1],"end":[0,0,1],"radius":0.2}]})",
      R"({"type":"offset","distance":-0.1,"shape":{"type":"box","center":[0,0,0],"size":[1,1,1]}})",
      R"({"type":"offset","distance":{"type":"density","cells":[3,2,2],"box":[-0.5,-0.5,-0.5,0.5,0.5,0.5],
          "data":[0,0.5,1,0.25,0.75,1,0,0,0.5,1,1,0.125],"v0":-0.05,"v1":0.15},
          "shape":{"type":"sphere","center":[0,0,0],"radius":0.5}})",
      R"({"type":"shell","thickness":0.1,"shape":{"type":"sphere","center":[0,0,0],"radius":0.6}})",
      R"({"type":"shell","side":"inside","thickness":{"type":"density","cells":[2,2,2],"box":[-0.6,-0.6,-0.6,0.6,0.6,0.6],
          "data":[0,1,0.5,0.25,1,0,0.75,0.5],"v0":0.02,"v1":0.2},"shape":{"type":"box","center":[0,0,0],"size":[1,1,1]}})",
      R"({"type":"shell","side":"outside","thickness":{"type":"constant","value":0.15},
          "shape":{"type":"torus","center":[0,0,0],"major_radius":0.5,"minor_radius":0.2}})",
      R"({"type":"translate","by":[0.3,-0.2,0.1],"shape":{"type":"box","center":[0,0,0],"size":[0.6,0.5,0.4]}})",
      R"({"type":"rotate","axis":[1,2,3],"angle":1,"shape":{"type":"box","center":[0.1,0,0],"size":[1,0.6,0.3]}})",
      R"({"type":"rotate","quaternion":[0.9,0.1,-0.3,0.2],"shape":{"type":"cylinder","start":[0,0,-0.5],"end":[0,0,0.5],"radius":0.3}})",
      R"({"type":"scale","factor":0.37,"shape":{"type":"torus","center":[0.2,0,0],"major_radius":1.5,"minor_radius":0.5}})",
      R"({"type":"gyroid","cell":0.5,"thickness":0.08})",
      R"({"type":"gyroid","cell":{"type":"density","cells":[3,3,2],"box":[-0.6,-0.5,-0.4,0.7,0.6,0.5],
          "data":[0,0.5,1,0.25,0.75,1,0,1,0.5,1,1,0.125,0.5,0,0.25,1,0.75,0.5],"v0":0.35,"v1":0.7},
          "thickness":{"type":"density","cells":[2,3,1],"box":[-0.5,-0.5,-0.5,0.5,0.5,0.5],
          "data":[0,1,0.5,0.25,1,0],"v0":0.03,"v1":0.12},"origin":[0.1,-0.05,0.02]})",
  };
  return specs;
}

std::vector<std::array<double, 3>> random_points(std::uint64_t seed, std::size_t count, double extent) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-extent, extent);
  std::vector<std::array<double, 3>> points(count);
  for (auto& p : points) p = {u(rng), u(rng), u(rng)};
  return points;
}

bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b) || (std::isnan(a) && std::isnan(b));
}

// ---- exact distances ----------------------------------------------------------------

TEST(FieldPrimitives, sphereIsTheExactDistance) {
  const auto f = field_of(R"({"type":"sphere","center":[1,2,3],"radius":0.5})");
  EXPECT_DOUBLE_EQ(f.eval(1.0, 2.0, 3.0), -0.5);
  EXPECT_DOUBLE_EQ(f.eval(3.0, 2.0, 3.0), 1.5);
  EXPECT_NEAR(f.eval(1.0, 2.0 - 0.3, 3.0 + 0.4), 0.0, 1e-15);  // on the surface
}

TEST(FieldPrimitives, boxIsTheExactDistanceInsideOnFacesAndAtCorners) {
  const auto f = field_of(R"({"type":"box","center":[0,0,0],"size":[2,4,6]})");
  EXPECT_DOUBLE_EQ(f.eval(0.0, 0.0, 0.0), -1.0);  // nearest face x = 1
  EXPECT_DOUBLE_EQ(f.eval(3.0, 0.0, 0.0), 2.0);
  EXPECT_DOUBLE_EQ(f.eval(0.0, -2.5, 0.0), 0.5);
  EXPECT_DOUBLE_EQ(f.eval(2.0, 3.0, 4.0), std::sqrt(3.0));  // corner region
  EXPECT_DOUBLE_EQ(f.eval(2.0, 3.0, 0.0), std::sqrt(2.0));  // edge region
}

TEST(FieldPrimitives, roundedBoxIsTheOffsetOfItsInnerBox) {
  const auto f = field_of(R"({"type":"box","center":[0,0,0],"size":[2,4,6],"round":0.5})");
  EXPECT_DOUBLE_EQ(f.eval(3.0, 0.0, 0.0), 2.0);                     // faces stay flat
  EXPECT_DOUBLE_EQ(f.eval(2.0, 3.0, 4.0), std::sqrt(3 * 1.5 * 1.5) - 0.5);  // inner corner (0.5, 1.5, 2.5)
  EXPECT_DOUBLE_EQ(f.eval(0.0, 0.0, 0.0), -1.0);
}

TEST(FieldPrimitives, cylinderIsTheExactDistanceToSideCapsAndRim) {
  const auto f = field_of(R"({"type":"cylinder","start":[0,0,-1],"end":[0,0,1],"radius":0.5})");
  EXPECT_DOUBLE_EQ(f.eval(2.0, 0.0, 0.0), 1.5);
  EXPECT_DOUBLE_EQ(f.eval(0.0, 0.0, 3.0), 2.0);
  EXPECT_DOUBLE_EQ(f.eval(1.5, 0.0, 2.0), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(f.eval(0.0, 0.0, 0.0), -0.5);
  EXPECT_NEAR(f.eval(0.0, 0.1, 0.9), -0.1, 1e-15);
  // Tilted: a point 2 away from the axis, level with the middle.
  const auto g = field_of(R"({"type":"cylinder","start":[0,0,0],"end":[1,1,0],"radius":0.25})");
  const double s = std::sqrt(0.5);
  EXPECT_NEAR(g.eval(0.5 - 2 * s, 0.5 + 2 * s, 0.0), 1.75, 1e-15);
  EXPECT_NEAR(g.eval(0.5, 0.5, -1.0), 0.75, 1e-15);
  EXPECT_NEAR(g.eval(2.0, 2.0, 0.0), std::sqrt(2.0), 1e-15);  // beyond the end cap, on the axis
}

TEST(FieldPrimitives, torusIsTheExactDistanceAboutItsAxis) {
  const auto f = field_of(R"({"type":"torus","center":[0,0,0],"major_radius":1,"minor_radius":0.25})");
  EXPECT_DOUBLE_EQ(f.eval(1.0, 0.0, 0.0), -0.25);
  EXPECT_DOUBLE_EQ(f.eval(0.0, 0.0, 0.0), 0.75);
  EXPECT_DOUBLE_EQ(f.eval(0.0, -2.0, 0.0), 0.75);
  EXPECT_DOUBLE_EQ(f.eval(1.0, 0.0, 1.0), 0.75);
  const auto g = field_of(R"({"type":"torus","center":[0,0,0],"major_radius":1,"minor_radius":0.25,"axis":[2,0,0]})");
  EXPECT_DOUBLE_EQ(g.eval(0.0, 1.0, 0.0), -0.25);
  EXPECT_DOUBLE_EQ(g.eval(1.0, 0.0, 1.0), 0.75);
}

TEST(FieldPrimitives, capsuleIsTheDistanceToItsSegmentMinusTheRadius) {
  const auto f = field_of(R"({"type":"capsule","start":[0,0,0],"end":[1,0,0],"radius":0.2})");
  EXPECT_DOUBLE_EQ(f.eval(0.5, 1.0, 0.0), 0.8);
  EXPECT_DOUBLE_EQ(f.eval(-1.0, 0.0, 0.0), 0.8);
  EXPECT_DOUBLE_EQ(f.eval(2.0, 0.0, 0.0), 0.8);
  EXPECT_DOUBLE_EQ(f.eval(0.25, 0.0, 0.0), -0.2);
}

TEST(FieldPrimitives, halfSpaceIsTheSignedDistanceToItsPlane) {
  const auto f = field_of(R"({"type":"halfspace","normal":[0,0,2],"offset":1})");
  EXPECT_DOUBLE_EQ(f.eval(5.0, -7.0, 3.0), 2.0);
  EXPECT_DOUBLE_EQ(f.eval(0.0, 0.0, 0.0), -1.0);
  EXPECT_FALSE(f.bounds().finite());
  EXPECT_EQ(f.bounds().hi[2], 1.0);
}

TEST(FieldCsg, unionIntersectionAndDifferenceAreMinMaxAndMaxOfNegation) {
  const auto u = field_of(R"({"type":"union","of":[{"type":"sphere","center":[-1,0,0],"radius":0.5},
                                                    {"type":"sphere","center":[1,0,0],"radius":0.5}]})");
  EXPECT_DOUBLE_EQ(u.eval(0.0, 0.0, 0.0), 0.5);
  EXPECT_DOUBLE_EQ(u.eval(1.0, 0.0, 0.0), -0.5);
  const auto i = field_of(R"({"type":"intersection","of":[{"type":"halfspace","normal":[1,0,0],"offset":0},
                                                           {"type":"sphere","center":[0,0,0],"radius":1}]})");
  EXPECT_DOUBLE_EQ(i.eval(0.5, 0.0, 0.0), 0.5);
  EXPECT_DOUBLE_EQ(i.eval(-0.25, 0.0, 0.0), -0.25);
  const auto d = field_of(R"({"type":"difference","from":{"type":"sphere","center":[0,0,0],"radius":1},
                                "subtract":[{"type":"sphere","center":[0,0,0],"radius":0.5}]})");
  EXPECT_DOUBLE_EQ(d.eval(0.0, 0.0, 0.0), 0.5);
  EXPECT_DOUBLE_EQ(d.eval(0.75, 0.0, 0.0), -0.25);
}

TEST(FieldCsg, offsetShellAndTransformsActAsDocumented) {
  const auto o = field_of(R"({"type":"offset","distance":0.25,"shape":{"type":"sphere","center":[0,0,0],"radius":1}})");
  EXPECT_DOUBLE_EQ(o.eval(2.0, 0.0, 0.0), 0.75);
  const auto c = field_of(R"({"type":"shell","thickness":0.2,"shape":{"type":"sphere","center":[0,0,0],"radius":1}})");
  EXPECT_NEAR(c.eval(1.0, 0.0, 0.0), -0.1, 1e-16);
  EXPECT_NEAR(c.eval(0.0, 0.0, 0.0), 0.9, 1e-16);
  const auto in = field_of(R"({"type":"shell","side":"inside","thickness":0.2,"shape":{"type":"sphere","center":[0,0,0],"radius":1}})");
  EXPECT_NEAR(in.eval(0.9, 0.0, 0.0), -0.1, 1e-15);
  EXPECT_NEAR(in.eval(1.5, 0.0, 0.0), 0.5, 1e-15);
  EXPECT_NEAR(in.eval(0.5, 0.0, 0.0), 0.3, 1e-15);
  const auto out = field_of(R"({"type":"shell","side":"outside","thickness":0.2,"shape":{"type":"sphere","center":[0,0,0],"radius":1}})");
  EXPECT_NEAR(out.eval(1.1, 0.0, 0.0), -0.1, 1e-15);
  EXPECT_NEAR(out.eval(0.5, 0.0, 0.0), 0.5, 1e-15);
  const auto t = field_of(R"({"type":"translate","by":[1,2,3],"shape":{"type":"sphere","center":[0,0,0],"radius":1}})");
  EXPECT_DOUBLE_EQ(t.eval(1.0, 2.0, 3.0), -1.0);
  // Rotating +x onto +y (a quarter turn about z): the box's long side lies along y.
  const auto r = field_of(R"({"type":"rotate","axis":[0,0,1],"angle":1.5707963267948966,
                               "shape":{"type":"box","center":[0,0,0],"size":[4,1,1]}})");
  EXPECT_NEAR(r.eval(0.0, 2.5, 0.0), 0.5, 1e-15);
  EXPECT_NEAR(r.eval(2.5, 0.0, 0.0), 2.0, 1e-15);
  const auto q = field_of(R"({"type":"rotate","quaternion":[0.7071067811865476,0,0,0.7071067811865476],
                               "shape":{"type":"box","center":[0,0,0],"size":[4,1,1]}})");
  EXPECT_NEAR(q.eval(0.0, 2.5, 0.0), 0.5, 1e-15);
  const auto s = field_of(R"({"type":"scale","factor":2,"shape":{"type":"sphere","center":[1,0,0],"radius":1}})");
  EXPECT_DOUBLE_EQ(s.eval(2.0, 0.0, 0.0), -2.0);
  EXPECT_DOUBLE_EQ(s.eval(6.0, 0.0, 0.0), 2.0);
}

TEST(FieldGyroid, isMinusHalfTheWallOnTheSurfaceAndScaledByTheCellElsewhere) {
  const double cell = 0.5, t = 0.08;
  const auto f = field_of(R"({"type":"gyroid","cell":0.5,"thickness":0.08})");
  EXPECT_NEAR(f.eval(0.0, 0.0, 0.0), -t / 2, 1e-17);  // G(0) = 0
  const double q = cell / 8;                          // phase pi/4 on every axis: G = 3/2
  const double expected = 1.5 * cell / (2 * std::numbers::pi * std::sqrt(3.0)) - t / 2;
  EXPECT_NEAR(f.eval(q, q, q), expected, 1e-15);
  EXPECT_NEAR(f.eval(q + cell, q - 2 * cell, q + 3 * cell), expected, 1e-14);  // periodic
  EXPECT_FALSE(f.bounds().finite());
}

TEST(FieldEval, runsInOtherFloatingTypesThroughTheSameTemplate) {
  for (const std::string& spec : node_specs()) {
    const auto f = field_of(spec);
    for (const auto& p : random_points(11, 50, 1.2)) {
      const long double wide = f.eval(static_cast<long double>(p[0]), static_cast<long double>(p[1]),
                                        static_cast<long double>(p[2]));
      const double narrow = f.eval(p[0], p[1], p[2]);
      EXPECT_NEAR(static_cast<double>(wide), narrow, 1e-12 * (1 + std::abs(narrow))) << spec;
    }
  }
}

// ---- batch == scalar ------------------------------------------------------------

void expect_batch_matches_scalar(const Field<double>& f, const std::vector<std::array<double, 3>>& points,
                                 const std::string& label) {
  std::vector<double> x, y, z;
  for (const auto& p : points) {
    x.push_back(p[0]);
    y.push_back(p[1]);
    z.push_back(p[2]);
  }
  std::vector<double> out(points.size());
  FieldScratch scratch;
  f.eval_batch(x, y, z, out, scratch);
  int mismatches = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double scalar = f.eval(x[i], y[i], z[i]);
    if (!same_bits(out[i], scalar) && ++mismatches <= 3)
      ADD_FAILURE() << label << ": point (" << x[i] << ", " << y[i] << ", " << z[i] << ") batch " << out[i]
                    << " scalar " << scalar;
  }
  EXPECT_EQ(mismatches, 0) << label;
}

std::vector<std::array<double, 3>> batch_test_points(std::uint64_t seed) {
  std::vector<std::array<double, 3>> points = random_points(seed, 3000, 1.3);
  const double h = 1.0 / 128;
  const std::vector<double> special{0.0, -0.0, 0.5, -0.5, 1.0, h, -h, 3.5 * h, 1e-300, -1e-300, 1e9 * h, -1e9 * h, 0.1, 0.7};
  for (double a : special)
    for (double b : special) points.push_back({a, b, special[(std::bit_cast<std::uint64_t>(a) ^ 7) % special.size()]});
  for (int i = -100; i <= 100; ++i) points.push_back({i * h, (i % 7) * h, (i % 13) * h});  // lattice nodes
  return points;
}

TEST(FieldBatch, matchesScalarEvalBitForBitForEveryNodeType) {
  std::uint64_t seed = 1;
  for (const std::string& spec : node_specs()) expect_batch_matches_scalar(field_of(spec), batch_test_points(seed++), spec);
}

TEST(FieldBatch, matchesScalarEvalBitForBitForEveryDefaultPart) {
  for (const DefaultPart& part : default_parts()) {
    expect_batch_matches_scalar(compile_field<double>(part.spec), batch_test_points(99), part.name);
    // float storage: the density values differ, the bit-for-bit rule does not.
    const Field<float> f = compile_field<float>(part.spec);
    const auto points = batch_test_points(98);
    std::vector<double> x, y, z, out(points.size());
    for (const auto& p : points) {
      x.push_back(p[0]);
      y.push_back(p[1]);
      z.push_back(p[2]);
    }
    FieldScratch scratch;
    f.eval_batch(x, y, z, out, scratch);
    for (std::size_t i = 0; i < points.size(); ++i)
      ASSERT_TRUE(same_bits(out[i], f.eval(x[i], y[i], z[i]))) << part.name << " (float) at point " << i;
  }
}

TEST(FieldBatch, handlesAnyCountAndReusesScratchWithoutGrowing) {
  const auto f = field_of(node_specs().back());
  const auto points = random_points(5, 1300, 1.0);
  std::vector<double> x, y, z;
  for (const auto& p : points) {
    x.push_back(p[0]);
    y.push_back(p[1]);
    z.push_back(p[2]);
  }
  FieldScratch scratch;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{17}, std::size_t{512}, std::size_t{1300}}) {
    std::vector<double> out(n);
    f.eval_batch(std::span(x).first(n), std::span(y).first(n), std::span(z).first(n), out, scratch);
    for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(same_bits(out[i], f.eval(x[i], y[i], z[i])));
  }
  const double* before = scratch.buffers.data();
  std::vector<double> out(512);
  f.eval_batch(std::span(x).subspan(3, 512), std::span(y).subspan(3, 512), std::span(z).subspan(3, 512), out, scratch);
  EXPECT_EQ(scratch.buffers.data(), before);  // warm scratch: no reallocation
}

TEST(FieldBatch, manyThreadsShareOneFieldEachWithItsOwnScratch) {
  const auto f = compile_field<double>(default_part("gyroid").spec);
  const auto points = random_points(21, 2048, 0.8);
  std::vector<double> x, y, z, expected;
  for (const auto& p : points) {
    x.push_back(p[0]);
    y.push_back(p[1]);
    z.push_back(p[2]);
    expected.push_back(f.eval(p[0], p[1], p[2]));
  }
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < mismatches.size(); ++t)
    threads.emplace_back([&, t] {
      FieldScratch scratch;
      std::vector<double> out(x.size());
      for (int round = 0; round < 5; ++round) {
        f.eval_batch(x, y, z, out, scratch);
        for (std::size_t i = 0; i < out.size(); ++i) mismatches[t] += !same_bits(out[i], expected[i]);
      }
    });
  for (auto& t : threads) t.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

TEST(FieldBatch, rejectsMismatchedOrOverlappingSpans) {
  const auto f = field_of(node_specs().front());
  std::vector<double> x(8), y(8), z(8), out(7);
  FieldScratch scratch;
  EXPECT_THROW(f.eval_batch(x, y, z, out, scratch), Error);
  EXPECT_THROW(f.eval_batch(x, y, z, x, scratch), Error);
}

// ---- classification -----------------------------------------------------------------

// Samples a ball: centre, points on the boundary sphere, and uniform interior points.
template <class S>
void expect_classification_conservative(const Field<S>& f, std::uint64_t seed, const std::string& label,
                                        int* decided) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> pos(-1.3, 1.3), unit(-1, 1);
  const std::array<double, 4> radii{0.01, 0.05, 0.2, 0.6};
  const std::array<double, 3> bands{0.0, 3.0 / 128, 0.1};
  for (int ball = 0; ball < 300; ++ball) {
    const double cx = pos(rng), cy = pos(rng), cz = pos(rng);
    const double r = radii[static_cast<std::size_t>(ball) % radii.size()];
    const double band = bands[static_cast<std::size_t>(ball / 4) % bands.size()];
    const BallClass cls = f.classify(cx, cy, cz, r, band);
    if (cls == BallClass::near) continue;
    ++*decided;
    for (int s = 0; s < 300; ++s) {
      double dx = unit(rng), dy = unit(rng), dz = unit(rng);
      const double len = std::sqrt(dx * dx + dy * dy + dz * dz);
      if (len == 0) continue;
      const double scale = (s % 3 == 0) ? r / len : r * std::cbrt(std::abs(unit(rng))) / len;
      const double v = f.eval(cx + dx * scale, cy + dy * scale, cz + dz * scale);
      if (cls == BallClass::outside)
        ASSERT_GE(v, band) << label << " ball (" << cx << ", " << cy << ", " << cz << ") r " << r;
      else
        ASSERT_LE(v, -band) << label << " ball (" << cx << ", " << cy << ", " << cz << ") r " << r;
    }
  }
}

TEST(FieldClassify, outsideAndInsideBallsHoldNoPointWithinTheBand) {
  int decided = 0;
  std::uint64_t seed = 100;
  for (const std::string& spec : node_specs()) expect_classification_conservative(field_of(spec), seed++, spec, &decided);
  for (const DefaultPart& part : default_parts()) {
    expect_classification_conservative(compile_field<double>(part.spec), seed++, part.name, &decided);
    expect_classification_conservative(compile_field<float>(part.spec), seed++, part.name, &decided);
  }
  EXPECT_GT(decided, 3000);  // the test only has teeth when many balls are decided
}

TEST(FieldClassify, decidesBallsClearOfTheSurface) {
  const auto f = compile_field<double>(default_part("sphere").spec);
  EXPECT_EQ(f.classify(3, 0, 0, 0.5, 0.1), BallClass::outside);
  EXPECT_EQ(f.classify(0, 0, 0, 0.5, 0.1), BallClass::inside);
  EXPECT_EQ(f.classify(1, 0, 0, 0.05, 0.1), BallClass::near);
  // A union is outside when each member is, though the ball is within one Lipschitz radius.
  const auto u = field_of(R"({"type":"union","of":[{"type":"sphere","center":[-1,0,0],"radius":0.5},
                                                    {"type":"sphere","center":[1,0,0],"radius":0.5}]})");
  EXPECT_EQ(u.classify(0, 0, 0, 0.3, 0.1), BallClass::outside);
  // Gyroid cut by a box: far from the box the ball is outside whatever the lattice does.
  const auto g = compile_field<double>(default_part("gyroid").spec);
  EXPECT_EQ(g.classify(5, 5, 5, 1, 0.1), BallClass::outside);
}

// ---- Lipschitz ------------------------------------------------------------------------

double largest_slope_ratio(const Field<double>& f, std::uint64_t seed, double extent) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> pos(-extent, extent), unit(-1, 1);
  const std::array<double, 4> steps{1e-4, 1e-3, 0.02, 0.3};
  double worst = 0;
  for (int i = 0; i < 20000; ++i) {
    const double px = pos(rng), py = pos(rng), pz = pos(rng);
    const double step = steps[static_cast<std::size_t>(i) % steps.size()];
    const double qx = px + step * unit(rng), qy = py + step * unit(rng), qz = pz + step * unit(rng);
    const double d = std::sqrt((px - qx) * (px - qx) + (py - qy) * (py - qy) + (pz - qz) * (pz - qz));
    if (d == 0) continue;
    const double change = std::abs(f.eval(px, py, pz) - f.eval(qx, qy, qz));
    worst = std::max(worst, (change - 1e-13) / d);  // 1e-13: rounding of the two values
  }
  return worst / f.lipschitz();
}

TEST(FieldLipschitz, boundHoldsOnRandomPairsForEveryNode) {
  std::uint64_t seed = 200;
  for (const std::string& spec : node_specs()) {
    const auto f = field_of(spec);
    EXPECT_LE(largest_slope_ratio(f, seed++, 1.5), 1.0) << spec << " L = " << f.lipschitz();
    EXPECT_LE(largest_slope_ratio(f, seed++, 6.0), 1.0) << spec << " (far) L = " << f.lipschitz();
  }
}

TEST(FieldLipschitz, gyroidBoundHoldsWhereCellAndThicknessVaryAndBeyondTheMap) {
  const auto f = field_of(node_specs().back());
  EXPECT_GT(f.lipschitz(), 1.0);
  EXPECT_LE(largest_slope_ratio(f, 300, 0.7), 1.0);   // inside the map's box
  EXPECT_LE(largest_slope_ratio(f, 301, 3.0), 1.0);   // slabs and corners beyond it
  EXPECT_LE(largest_slope_ratio(f, 302, 40.0), 1.0);  // far: the shear stays bounded
  // The bound is not vacuous: the steepest sampled slope is a fair share of it.
  EXPECT_GT(largest_slope_ratio(f, 303, 0.7), 0.2);
}

TEST(FieldLipschitz, exactDistancesReportOne) {
  for (const char* spec : {R"({"type":"sphere","center":[0,0,0],"radius":1})",
                           R"({"type":"rotate","axis":[1,1,1],"angle":0.3,"shape":{"type":"box","center":[0,0,0],"size":[1,1,1]}})"})
    EXPECT_NEAR(field_of(spec).lipschitz(), 1.0, 1e-11);
}

// ---- density maps ----------------------------------------------------------------------

// f = z - d(p) over the plane z = 0 reads the number field back exactly: f(x, y, 0) = -d.
std::string density_probe(const std::string& density) {
  return R"({"type":"offset","distance":)" + density + R"(,"shape":{"type":"halfspace","normal":[0,0,1]}})";
}

TEST(FieldDensity, isExactAtCellCentresLinearBetweenAndHeldOutside) {
  // 2 x 3 x 1 cells over [0,2] x [0,3] x [-1,1]: centres at x = 0.5, 1.5 and y = 0.5, 1.5, 2.5.
  const std::string map =
      R"({"type":"density","cells":[2,3,1],"box":[0,0,-1,2,3,1],"data":[0,1,0.25,0.5,1,0.75],"v0":2,"v1":6})";
  const auto f = field_of(density_probe(map));
  const auto d = [&](double x, double y) { return -f.eval(x, y, 0.0); };
  EXPECT_EQ(d(0.5, 0.5), 2.0);
  EXPECT_EQ(d(1.5, 0.5), 6.0);
  EXPECT_NEAR(d(0.5, 1.5), 3.0, 1e-15);  // y spacing 1 = 3/3: rounding allowed
  EXPECT_NEAR(d(1.5, 2.5), 5.0, 1e-15);
  EXPECT_EQ(d(1.0, 0.5), 4.0);                   // halfway along x
  EXPECT_NEAR(d(0.5, 2.0), 4.5, 1e-15);  // halfway along y
  EXPECT_NEAR(d(1.0, 1.0), 2 + 4 * (0 + 1 + 0.25 + 0.5) / 4, 1e-15);  // bilinear
  EXPECT_EQ(d(-5.0, 0.5), 2.0);                  // held beyond x0
  EXPECT_EQ(d(0.1, 0.5), 2.0);                   // held between the box edge and the first centre
  EXPECT_EQ(d(9.0, 9.0), 5.0);                   // held beyond the far corner
  EXPECT_NEAR(d(9.0, 2.0), 2 + 4 * (0.5 + 0.75) / 2, 1e-15);  // held in x, linear in y
  // One cell along z: constant along z, inside and outside the box (read on the plane x = 0).
  const auto tall = field_of(R"({"type":"offset","distance":)" + map + R"(,"shape":{"type":"halfspace","normal":[1,0,0],"offset":0}})");
  EXPECT_EQ(tall.eval(0.0, 0.5, -7.0), tall.eval(0.0, 0.5, 0.3));
}

TEST(FieldDensity, storesItsValuesInTheStorageScalar) {
  const std::string map = R"({"type":"density","cells":[1,1,1],"box":[0,0,0,1,1,1],"data":[0.1],"v0":0,"v1":1})";
  const auto as_double = compile_field_text<double>(density_probe(map), "d");
  const auto as_float = compile_field_text<float>(density_probe(map), "f");
  EXPECT_EQ(-as_double.eval(0.5, 0.5, 0.0), 0.1);
  EXPECT_EQ(-as_float.eval(0.5, 0.5, 0.0), static_cast<double>(0.1f));
  EXPECT_NE(static_cast<double>(0.1f), 0.1);
}

// ---- bounds ------------------------------------------------------------------------------

TEST(FieldBounds, holdEveryPointAtOrBelowTheLevel) {
  std::uint64_t seed = 400;
  for (const std::string& spec : node_specs()) {
    const auto f = field_of(spec);
    for (double level : {0.0, 0.05, 0.3}) {
      const Box b = f.bounds_within(level);
      for (const auto& p : random_points(seed++, 4000, 2.0)) {
        if (f.eval(p[0], p[1], p[2]) > level) continue;
        for (std::size_t a = 0; a < 3; ++a) {
          ASSERT_GE(p[a], b.lo[a]) << spec << " level " << level;
          ASSERT_LE(p[a], b.hi[a]) << spec << " level " << level;
        }
      }
    }
  }
  const auto s = field_of(R"({"type":"sphere","center":[1,2,3],"radius":0.5})");
  EXPECT_EQ(s.bounds(), (Box{{0.5, 1.5, 2.5}, {1.5, 2.5, 3.5}}));
}

}  // namespace
}  // namespace distgrid
