// The formula reference against values known in closed form (no core code):
// each node type at points where its distance is obvious, membership agreeing
// with the value's sign, the documented Lipschitz bounds, special points on the
// features they name.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "distgrid/audit/reference/field_geometry.hpp"

namespace distgrid::audit::reference {
namespace {

using nlohmann::json;

double at(const json& spec, double x, double y, double z) {
  return to_double(FieldGeometry(spec, DensityValues::given).value(FieldPoint{x, y, z}));
}
Side side(const json& spec, double x, double y, double z) {
  return FieldGeometry(spec, DensityValues::given).membership(FieldPoint{x, y, z});
}

const json kSphere = {{"type", "sphere"}, {"center", {1, 2, 3}}, {"radius", 0.5}};
const json kBox = {{"type", "box"}, {"center", {0, 0, 0}}, {"size", {2, 4, 6}}};
const json kRounded = {{"type", "box"}, {"center", {0, 0, 0}}, {"size", {2, 4, 6}}, {"round", 0.5}};
const json kCylinder = {{"type", "cylinder"}, {"start", {0, 0, 0}}, {"end", {0, 0, 2}}, {"radius", 1}};
const json kTorus = {{"type", "torus"}, {"center", {0, 0, 0}}, {"major_radius", 2}, {"minor_radius", 0.5}};
const json kCapsule = {{"type", "capsule"}, {"start", {0, 0, 0}}, {"end", {2, 0, 0}}, {"radius", 0.5}};

TEST(FieldGeometry, primitivesGiveTheDistanceToTheirNearestPoint) {
  EXPECT_DOUBLE_EQ(at(kSphere, 1, 2, 3), -0.5);
  EXPECT_DOUBLE_EQ(at(kSphere, 1, 2, 5), 1.5);
  EXPECT_DOUBLE_EQ(at(kBox, 0, 0, 0), -1);                                // nearest face x = +-1
  EXPECT_DOUBLE_EQ(at(kBox, 2, 3, 4), std::sqrt(3.0));                    // beyond the corner (1, 2, 3)
  EXPECT_DOUBLE_EQ(at(kBox, 0, 2.5, 0), 0.5);                             // beyond a face
  EXPECT_DOUBLE_EQ(at(kRounded, 2, 3, 4), 1.5 * std::sqrt(3.0) - 0.5);    // from the inner corner (0.5, 1.5, 2.5)
  EXPECT_NEAR(at(kRounded, 1, 2, 3), std::sqrt(0.75) - 0.5, 1e-15);       // the sharp corner lies outside
  EXPECT_DOUBLE_EQ(at(kCylinder, 0, 0, 1), -1);                           // on the axis, mid-way: the side wall
  EXPECT_DOUBLE_EQ(at(kCylinder, 0, 0, 0.25), -0.25);                     // on the axis near a cap
  EXPECT_DOUBLE_EQ(at(kCylinder, 3, 0, 1), 2);                            // beside the side wall
  EXPECT_DOUBLE_EQ(at(kCylinder, 0.5, 0, -1), 1);                         // beyond a cap's face
  EXPECT_DOUBLE_EQ(at(kCylinder, 4, 0, 6), 5);                            // beyond the rim (1, 0, 2): 3-4-5
  EXPECT_DOUBLE_EQ(at(kTorus, 0, 0, 0), 2 - 0.5);                         // the centre: every circle point is 2 away
  EXPECT_DOUBLE_EQ(at(kTorus, 0, 0, 1.5), 2.5 - 0.5);                     // on the axis: sqrt(2^2 + 1.5^2)
  EXPECT_DOUBLE_EQ(at(kTorus, 2, 0, 0), -0.5);                            // on the core circle
  EXPECT_DOUBLE_EQ(at(kCapsule, 1, 1, 0), 0.5);                           // beside the segment
  EXPECT_DOUBLE_EQ(at(kCapsule, -3, 4, 0), 4.5);                          // beyond the start: |(-3, 4)| - r
  EXPECT_DOUBLE_EQ(at(kCapsule, 5, 4, 0), 4.5);                           // beyond the end
  const json point = {{"type", "capsule"}, {"start", {1, 1, 1}}, {"end", {1, 1, 1}}, {"radius", 1}};
  EXPECT_DOUBLE_EQ(at(point, 1, 1, 4), 2);
  const json half = {{"type", "halfspace"}, {"normal", {0, 3, 4}}, {"offset", 1}};
  EXPECT_DOUBLE_EQ(at(half, 7, 3, 4), 4);                                  // (3*3 + 4*4) / 5 - 1
  EXPECT_DOUBLE_EQ(at({{"type", "halfspace"}, {"normal", {0, 0, -2}}}, 0, 0, 3), -3);  // offset defaults to 0
  EXPECT_DOUBLE_EQ(at({{"type", "torus"}, {"center", {0, 0, 0}}, {"major_radius", 2}, {"minor_radius", 0.5},
                       {"axis", {2, 0, 0}}},
                      0, 0, 2),
                   -0.5);  // axis x (normalised): the core circle passes through (0, 0, 2)
}

TEST(FieldGeometry, transformsApplyTheInverseToThePoint) {
  const json moved = {{"type", "translate"}, {"by", {1, 0, 0}}, {"shape", kBox}};
  EXPECT_DOUBLE_EQ(at(moved, 3, 3, 4), std::sqrt(3.0));
  // A quarter turn about z (right-handed) takes x to y: the capsule along +x lies along +y.
  const json turned = {{"type", "rotate"}, {"axis", {0, 0, 5}}, {"angle", M_PI / 2}, {"shape", kCapsule}};
  EXPECT_NEAR(at(turned, 0, 2, 0), -0.5, 1e-15);   // R^-1 p = (2, 0, 0): the end
  EXPECT_NEAR(at(turned, 0, -2, 0), 1.5, 1e-15);   // R^-1 p = (-2, 0, 0): 2 beyond the start
  // The same quarter turn as a quaternion (w, 0, 0, sin) unnormalised: (1, 0, 0, 1).
  const json quaternion = {{"type", "rotate"}, {"quaternion", {1, 0, 0, 1}}, {"shape", kCapsule}};
  EXPECT_NEAR(at(quaternion, 0, 2, 0), -0.5, 1e-15);
  EXPECT_NEAR(at(quaternion, 0, -2, 0), 1.5, 1e-15);
  const json scaled = {{"type", "scale"}, {"factor", 2}, {"shape", kSphere}};
  EXPECT_DOUBLE_EQ(at(scaled, 2, 4, 10), 2 * 1.5);  // 2 f(p / 2)
}

TEST(FieldGeometry, nodesThatAreNotDistancesFollowTheirDocumentedFormula) {
  const json a = {{"type", "sphere"}, {"center", {0, 0, 0}}, {"radius", 1}};
  const json b = {{"type", "sphere"}, {"center", {1, 0, 0}}, {"radius", 1}};
  EXPECT_DOUBLE_EQ(at({{"type", "union"}, {"of", {a, b}}}, 3, 0, 0), 1);          // min(2, 1)
  EXPECT_DOUBLE_EQ(at({{"type", "intersection"}, {"of", {a, b}}}, 3, 0, 0), 2);   // max(2, 1)
  EXPECT_DOUBLE_EQ(at({{"type", "difference"}, {"from", a}, {"subtract", {b}}}, -0.5, 0, 0), -0.5);  // max(-0.5, -0.5)
  EXPECT_DOUBLE_EQ(at({{"type", "offset"}, {"distance", 0.25}, {"shape", a}}, 3, 0, 0), 1.75);
  EXPECT_DOUBLE_EQ(at({{"type", "shell"}, {"thickness", 0.5}, {"shape", a}}, 0, 0, 0), 0.75);       // |-1| - 0.25
  EXPECT_DOUBLE_EQ(at({{"type", "shell"}, {"thickness", 0.5}, {"side", "inside"}, {"shape", a}}, 0.9, 0, 0), -0.1);
  EXPECT_DOUBLE_EQ(at({{"type", "shell"}, {"thickness", 0.5}, {"side", "outside"}, {"shape", a}}, 0.9, 0, 0), 0.1);
  // Number fields: a constant object, and a density map linear along x between its two centres.
  EXPECT_DOUBLE_EQ(at({{"type", "offset"}, {"distance", {{"type", "constant"}, {"value", 0.25}}}, {"shape", a}}, 3, 0, 0),
                   1.75);
  const json map = {{"type", "density"}, {"cells", {2, 1, 1}}, {"box", {0, 0, 0, 4, 1, 1}}, {"data", {0, 1}},
                    {"v0", 0.0}, {"v1", 0.5}};
  EXPECT_DOUBLE_EQ(at({{"type", "offset"}, {"distance", map}, {"shape", a}}, 2, 0, 0), 1 - 0.25);   // half way
  EXPECT_DOUBLE_EQ(at({{"type", "offset"}, {"distance", map}, {"shape", a}}, -5, 0, 0), 4);        // held: 0
  // Gyroid: G = 0 at its origin (a wall's middle), so f = -t / 2 there; at phase pi/2 on x, G = 1.
  const json gyroid = {{"type", "gyroid"}, {"cell", 1}, {"thickness", 0.1}, {"origin", {0.5, 0, 0}}};
  EXPECT_NEAR(at(gyroid, 0.5, 0, 0), -0.05, 1e-16);
  EXPECT_NEAR(at(gyroid, 0.75, 0, 0), 1 / (2 * M_PI * std::sqrt(3.0)) - 0.05, 1e-16);
}

TEST(FieldGeometry, aFloatStorageRoundsTheMapsValuesToFloat) {
  const json map = {{"type", "density"}, {"cells", {1, 1, 1}}, {"box", {0, 0, 0, 1, 1, 1}}, {"data", {0.1}},
                    {"v0", 0.0}, {"v1", 1.0}};
  const json spec = {{"type", "offset"}, {"distance", map}, {"shape", {{"type", "halfspace"}, {"normal", {0, 0, 1}}}}};
  EXPECT_EQ(to_double(FieldGeometry(spec, DensityValues::given).value(FieldPoint{0, 0, 0})), -0.1);
  EXPECT_EQ(to_double(FieldGeometry(spec, DensityValues::float32).value(FieldPoint{0, 0, 0})),
            -static_cast<double>(0.1f));
}

TEST(FieldGeometry, membershipAgreesWithTheValuesSignAwayFromTheSurface) {
  const json spec = {
      {"type", "difference"},
      {"from", {{"type", "shell"}, {"thickness", 0.3}, {"side", "outside"}, {"shape", kRounded}}},
      {"subtract", {{{"type", "rotate"}, {"quaternion", {0.9, 0.1, -0.3, 0.2}},
                     {"shape", {{"type", "union"}, {"of", {kCylinder, kTorus, kCapsule}}}}}}}};
  const FieldGeometry f(spec, DensityValues::given);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> coordinate(-4, 4);
  int inside = 0;
  for (int n = 0; n < 2000; ++n) {
    const FieldPoint p{coordinate(rng), coordinate(rng), coordinate(rng)};
    const double v = to_double(f.value(p));
    if (std::fabs(v) < 1e-12) continue;
    EXPECT_EQ(f.membership(p), v < 0 ? Side::inside : Side::outside) << p[0] << " " << p[1] << " " << p[2];
    inside += v < 0;
  }
  EXPECT_GT(inside, 50);
  EXPECT_EQ(side(kBox, 1, 0, 0), Side::surface);
  EXPECT_EQ(side(kCylinder, 1, 0, 2), Side::surface);  // a cap's rim
  EXPECT_EQ(side(kTorus, 2.5, 0, 0), Side::surface);
  EXPECT_EQ(side(kCapsule, 2.5, 0, 0), Side::surface);
}

TEST(FieldGeometry, documentedLipschitzBoundsComposeAsTheSpecSays) {
  EXPECT_EQ(to_double(FieldGeometry(kSphere, DensityValues::given).lipschitz_bound()), 1);
  const json map = {{"type", "density"}, {"cells", {2, 1, 1}}, {"box", {0, 0, 0, 4, 1, 1}}, {"data", {0, 1}},
                    {"v0", 0.0}, {"v1", 0.5}};  // step 1 over a cell width of 2, times 0.5: 0.25
  const auto bound = [](const json& spec) { return to_double(FieldGeometry(spec, DensityValues::given).lipschitz_bound()); };
  EXPECT_DOUBLE_EQ(bound({{"type", "offset"}, {"distance", map}, {"shape", kSphere}}), 1.25);
  EXPECT_DOUBLE_EQ(bound({{"type", "shell"}, {"thickness", map}, {"shape", kSphere}}), 1.125);
  EXPECT_DOUBLE_EQ(bound({{"type", "shell"}, {"thickness", map}, {"side", "inside"}, {"shape", kSphere}}), 1.25);
  EXPECT_DOUBLE_EQ(bound({{"type", "gyroid"}, {"cell", 1}, {"thickness", map}}), 1.125);
  // Mapped cell over [0, 4] x [0, 1] x [0, 1], origin at 0: E = sqrt(16 + 1 + 1), L(c) = 0.25, c_min = 1.
  const json cell = {{"type", "density"}, {"cells", {2, 1, 1}}, {"box", {0, 0, 0, 4, 1, 1}}, {"data", {0, 1}},
                     {"v0", 1.0}, {"v1", 1.5}};
  EXPECT_NEAR(bound({{"type", "gyroid"}, {"cell", cell}, {"thickness", 0.1}}),
              1 + std::sqrt(18.0) * 0.25 + 1.5 * 0.25 / (2 * M_PI * std::sqrt(3.0)), 1e-15);
}

TEST(FieldGeometry, specialPointsLieOnTheFeaturesTheyName) {
  const auto on_surface = [](const json& spec) {
    const FieldGeometry f(spec, DensityValues::given);
    int on = 0;
    for (const FieldPoint& p : f.special_points()) on += std::fabs(to_double(f.value(p))) < 1e-15;
    return on;
  };
  EXPECT_EQ(on_surface(kSphere), 6);    // the poles
  EXPECT_EQ(on_surface(kBox), 26);      // corners, edge midpoints, face centres
  EXPECT_GE(on_surface(kCylinder), 8);  // the caps' rims
  EXPECT_GE(on_surface(kTorus), 10);    // the equators and the tube's top and bottom
  EXPECT_GE(on_surface(kCapsule), 6);   // the tips and the rims
  const FieldGeometry torus(kTorus, DensityValues::given);
  EXPECT_EQ(torus.special_points().front(), (FieldPoint{0, 0, 0}));  // the centre first
}

TEST(FieldGeometry, refusesWhatItCannotRead) {
  EXPECT_THROW(FieldGeometry(json{{"type", "cone"}}, DensityValues::given), std::invalid_argument);
  EXPECT_THROW(FieldGeometry(json{{"type", "sphere"}, {"center", {0, 0}}, {"radius", 1}}, DensityValues::given),
               std::invalid_argument);
}

}  // namespace
}  // namespace distgrid::audit::reference
