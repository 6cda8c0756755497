// The built-in parts. Sizes are about 1-2 units so h = 1/64 .. 1/128 resolves them;
// centres sit off the lattice so no surface lines up with the nodes by accident.
#include "distgrid/default_parts.hpp"

#include <array>
#include <cmath>
#include <numbers>

#include "distgrid/error.hpp"

namespace distgrid {

namespace {

using nlohmann::json;
constexpr double kPi = std::numbers::pi;

json vec(double x, double y, double z) { return json::array({x, y, z}); }

DefaultPart sphere_part() {
  DefaultPart p;
  p.name = "sphere";
  p.description = "sphere of radius 1 centred off the lattice";
  p.spec = {{"type", "sphere"}, {"center", vec(0.0123, -0.0311, 0.0217)}, {"radius", 1.0}};
  p.volume = 4.0 / 3.0 * kPi;
  p.volume_exact = true;
  p.volume_source = "4/3 pi r^3, r = 1";
  return p;
}

DefaultPart torus_part() {
  const double major = 0.7, minor = 0.25;
  DefaultPart p;
  p.name = "torus";
  p.description = "ring torus R = 0.7, r = 0.25 about the tilted axis (1, 2, 2)/3";
  p.spec = {{"type", "torus"},
            {"center", vec(0.0071, 0.0137, -0.0093)},
            {"major_radius", major},
            {"minor_radius", minor},
            {"axis", vec(1, 2, 2)}};
  p.volume = 2 * kPi * kPi * major * minor * minor;
  p.volume_exact = true;
  p.volume_source = "2 pi^2 R r^2 (Pappus), R = 0.7, r = 0.25";
  return p;
}

DefaultPart rotated_box_part() {
  const double a = 1.3, b = 0.9, c = 0.6;
  DefaultPart p;
  p.name = "rotated_box";
  p.description = "1.3 x 0.9 x 0.6 box rotated by 1 radian about (1, 2, 3)";
  p.spec = {{"type", "translate"},
            {"by", vec(0.011, -0.007, 0.013)},
            {"shape",
             {{"type", "rotate"},
              {"axis", vec(1, 2, 3)},
              {"angle", 1.0},
              {"shape", {{"type", "box"}, {"center", vec(0, 0, 0)}, {"size", vec(a, b, c)}}}}}};
  p.volume = a * b * c;
  p.volume_exact = true;
  p.volume_source = "product of the edges 1.3 * 0.9 * 0.6";
  return p;
}

DefaultPart bracket_part() {
  // Inner box a x b x c offset by r (rounded edges), two holes along z through the
  // flat top/bottom faces only: hole discs lie inside the inner box's x-y extent.
  const double a = 1.4, b = 0.8, c = 0.4, r = 0.1;
  const double thickness = c + 2 * r;
  const std::array<std::array<double, 3>, 2> holes{{{-0.35, 0.05, 0.15}, {0.4, -0.1, 0.1}}};  // x, y, radius
  json subtract = json::array();
  for (const auto& h : holes)
    subtract.push_back({{"type", "cylinder"}, {"start", vec(h[0], h[1], -1)}, {"end", vec(h[0], h[1], 1)}, {"radius", h[2]}});
  DefaultPart p;
  p.name = "bracket";
  p.description = "1.6 x 1.0 x 0.6 plate with edges rounded by 0.1 and two through-holes (r = 0.15, 0.1)";
  p.spec = {{"type", "translate"},
            {"by", vec(0.0131, 0.0077, -0.0173)},
            {"shape",
             {{"type", "difference"},
              {"from",
               {{"type", "offset"},
                {"distance", r},
                {"shape", {{"type", "box"}, {"center", vec(0, 0, 0)}, {"size", vec(a, b, c)}}}}},
              {"subtract", subtract}}}};
  const double steiner = a * b * c + 2 * r * (a * b + b * c + c * a) + kPi * r * r * (a + b + c) + 4.0 / 3.0 * kPi * r * r * r;
  double holes_volume = 0;
  for (const auto& h : holes) holes_volume += kPi * h[2] * h[2] * thickness;
  p.volume = steiner - holes_volume;
  p.volume_exact = true;
  p.volume_source =
      "Steiner formula abc + 2r(ab + bc + ca) + pi r^2 (a + b + c) + 4/3 pi r^3 (a, b, c = 1.4, 0.8, 0.4; r = 0.1) "
      "minus pi rh^2 * 0.6 per hole (rh = 0.15, 0.1)";
  return p;
}

DefaultPart gyroid_part() {
  // 4 x 4 x 4 density map in sixteenths (exact in float and double, so both
  // storages describe the same part and share one volume).
  static constexpr std::array<int, 64> kSixteenths{
      2,  4,  7,  9,  3,  6,  9,  12, 5,  8,  11, 14, 6,  9,  13, 16,  //
      1,  3,  6,  8,  3,  5,  8,  11, 4,  7,  10, 13, 6,  9,  12, 15,  //
      0,  2,  4,  7,  2,  4,  7,  10, 3,  6,  9,  11, 5,  8,  10, 13,  //
      0,  1,  3,  5,  1,  3,  5,  8,  2,  4,  7,  9,  4,  6,  9,  11};
  json data = json::array();
  for (int v : kSixteenths) data.push_back(v / 16.0);
  const std::array<double, 3> center{0.0113, -0.0071, 0.0157};
  const double half = 0.75;
  json box = json::array({center[0] - half, center[1] - half, center[2] - half, center[0] + half, center[1] + half,
                          center[2] + half});
  DefaultPart p;
  p.name = "gyroid";
  p.description = "gyroid lattice (cell 0.6) in a 1.5 cube, wall 0.04 .. 0.12 following a 4x4x4 density map";
  p.spec = {{"type", "intersection"},
            {"of",
             {{{"type", "box"}, {"center", vec(center[0], center[1], center[2])}, {"size", vec(1.5, 1.5, 1.5)}},
              {{"type", "gyroid"},
               {"cell", 0.6},
               {"thickness",
                {{"type", "density"}, {"cells", {4, 4, 4}}, {"box", box}, {"data", data}, {"v0", 0.04}, {"v1", 0.12}}}}}}};
  // Best known volume of {f <= 0}, computed once offline with this spec (double storage).
  p.volume = 1.4738622;
  p.volume_exact = false;
  p.volume_uncertainty = 1e-5;
  p.volume_source =
      "jittered (stratified) sampling over the 1.5 cube: one uniform point per cell of an 800^3 lattice, "
      "8 independent replicates (std::mt19937_64 seeds 1000..1007), mean 1.4738622, standard error 2.3e-6 "
      "(replicate spread 6.5e-6); the uncertainty is about 4 standard errors";
  return p;
}

}  // namespace

const std::vector<DefaultPart>& default_parts() {
  static const std::vector<DefaultPart> parts{sphere_part(), torus_part(), rotated_box_part(), bracket_part(),
                                              gyroid_part()};
  return parts;
}

const DefaultPart& default_part(std::string_view name) {
  std::string known;
  for (const DefaultPart& p : default_parts()) {
    if (p.name == name) return p;
    known += (known.empty() ? "" : ", ") + p.name;
  }
  throw Error(ErrorCode::badarg, "unknown part \"" + std::string(name) + "\" (known: " + known + ")");
}

}  // namespace distgrid
