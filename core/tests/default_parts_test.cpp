// The built-in parts: they compile, and each volume agrees with a brute-force count.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "distgrid/default_parts.hpp"
#include "distgrid/error.hpp"
#include "distgrid/field_json.hpp"

namespace distgrid {
namespace {

TEST(DefaultParts, areTheEightDocumentedPartsWithUniqueNames) {
  std::set<std::string> names;
  for (const DefaultPart& p : default_parts()) {
    names.insert(p.name);
    EXPECT_FALSE(p.description.empty()) << p.name;
    EXPECT_FALSE(p.volume_source.empty()) << p.name;
    EXPECT_GT(p.volume, 0) << p.name;
    if (p.volume_exact)
      EXPECT_EQ(p.volume_uncertainty, 0) << p.name;
    else
      EXPECT_GT(p.volume_uncertainty, 0) << p.name;
    EXPECT_EQ(&default_part(p.name), &p);
  }
  EXPECT_EQ(names, (std::set<std::string>{"sphere", "torus", "rotated_box", "bracket", "gyroid", "pin_and_ring",
                                          "cut_cylinder", "shells"}));
}

TEST(DefaultParts, unknownNameIsBadargListingTheKnownOnes) {
  try {
    (void)default_part("nope");
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::badarg);
    const std::string message = e.what();
    EXPECT_NE(message.find("nope"), std::string::npos) << message;
    EXPECT_NE(message.find("bracket"), std::string::npos) << message;
  }
}

TEST(DefaultParts, compileForBothStoragesWithAFiniteBoxOfAboutOneToTwoUnits) {
  for (const DefaultPart& p : default_parts()) {
    const Field<float> f = compile_field<float>(p.spec);
    const Field<double> d = compile_field<double>(p.spec);
    ASSERT_TRUE(d.bounds().finite()) << p.name;
    EXPECT_EQ(f.bounds(), d.bounds()) << p.name;
    for (std::size_t a = 0; a < 3; ++a) {
      const double extent = d.bounds().hi[a] - d.bounds().lo[a];
      EXPECT_GT(extent, 0.5) << p.name;
      EXPECT_LT(extent, 2.5) << p.name;
    }
    // The gyroid's density map is in sixteenths: float storage describes the same part.
    for (double x : {-0.3, 0.01, 0.29})
      for (double y : {-0.6, 0.2})
        for (double z : {0.0, 0.41}) EXPECT_EQ(f.eval(x, y, z), d.eval(x, y, z)) << p.name;
  }
}

// Jittered (stratified) sampling over the part's box: one uniform point per cell of a
// cells^3 lattice, fixed seed. Unbiased; its error is the boundary cells' coin flips,
// standard deviation about 0.3 sqrt(area) dx^2 (each boundary cell contributes a
// variance of at most dx^6 / 4, about area / dx^2 such cells).
double jittered_volume(const Field<double>& f, int cells, std::uint64_t seed) {
  const Box box = f.bounds();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> jitter(0, 1);
  std::array<double, 3> step{};
  for (std::size_t a = 0; a < 3; ++a) step[a] = (box.hi[a] - box.lo[a]) / cells;
  FieldScratch scratch;
  std::vector<double> x(static_cast<std::size_t>(cells)), y(x.size()), z(x.size()), out(x.size());
  long inside = 0;
  for (int k = 0; k < cells; ++k)
    for (int j = 0; j < cells; ++j) {
      for (std::size_t i = 0; i < x.size(); ++i) {
        x[i] = box.lo[0] + (static_cast<double>(i) + jitter(rng)) * step[0];
        y[i] = box.lo[1] + (j + jitter(rng)) * step[1];
        z[i] = box.lo[2] + (k + jitter(rng)) * step[2];
      }
      f.eval_batch(x, y, z, out, scratch);
      for (double v : out) inside += v <= 0;
    }
  return static_cast<double>(inside) * step[0] * step[1] * step[2];
}

TEST(DefaultParts, volumeAgreesWithABruteForceCount) {
  // 160^3 jittered samples: for the largest surface (the gyroid, area about 20
  // over a 1.5 cube, dx = 0.0094) the standard deviation is about 1.2e-4 absolute;
  // the tolerance of 1e-3 relative (>= 5 sigma for every part) also covers the
  // gyroid's own stated uncertainty, which is far smaller.
  for (const DefaultPart& p : default_parts()) {
    const Field<double> f = compile_field<double>(p.spec);
    const double counted = jittered_volume(f, 160, 7);
    EXPECT_NEAR(counted, p.volume, 1e-3 * p.volume) << p.name << ": " << p.volume_source;
  }
}

}  // namespace
}  // namespace distgrid
