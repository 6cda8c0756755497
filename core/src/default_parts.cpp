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

/// A density-map number field: `data` at the cell centres of `box` (x fastest), blended from v0 to v1.
json density_map(const std::array<int, 3>& cells, const json& box, const json& data, double v0, double v1) {
  return {{"type", "density"}, {"cells", {cells[0], cells[1], cells[2]}}, {"box", box}, {"data", data}, {"v0", v0}, {"v1", v1}};
}

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
  // Density maps in sixteenths (exact in float and double, so both storages
  // describe the same part and share one volume): the wall over 4 x 4 x 4 cells,
  // the cell size over 2 x 2 x 2.
  static constexpr std::array<int, 64> kWallSixteenths{
      2,  4,  7,  9,  3,  6,  9,  12, 5,  8,  11, 14, 6,  9,  13, 16,  //
      1,  3,  6,  8,  3,  5,  8,  11, 4,  7,  10, 13, 6,  9,  12, 15,  //
      0,  2,  4,  7,  2,  4,  7,  10, 3,  6,  9,  11, 5,  8,  10, 13,  //
      0,  1,  3,  5,  1,  3,  5,  8,  2,  4,  7,  9,  4,  6,  9,  11};
  static constexpr std::array<int, 8> kCellSixteenths{0, 8, 4, 12, 8, 16, 12, 16};
  const auto sixteenths = [](const auto& values) {
    json data = json::array();
    for (int v : values) data.push_back(v / 16.0);
    return data;
  };
  const std::array<double, 3> center{0.0113, -0.0071, 0.0157};
  const double half = 0.75;
  json box = json::array({center[0] - half, center[1] - half, center[2] - half, center[0] + half, center[1] + half,
                          center[2] + half});
  const json wall = density_map({4, 4, 4}, box, sixteenths(kWallSixteenths), 0.04, 0.12);
  const json cell = density_map({2, 2, 2}, box, sixteenths(kCellSixteenths), 0.55, 0.65);
  DefaultPart p;
  p.name = "gyroid";
  p.description =
      "gyroid lattice in a 1.5 cube with edges rounded by 0.05, cell 0.55 .. 0.65 (2x2x2 density map) and wall "
      "0.04 .. 0.12 (4x4x4 density map)";
  p.spec = {{"type", "intersection"},
            {"of",
             {{{"type", "box"}, {"center", vec(center[0], center[1], center[2])}, {"size", vec(1.5, 1.5, 1.5)}, {"round", 0.05}},
              {{"type", "gyroid"},
               {"cell", cell},
               {"thickness", wall},
               {"origin", vec(center[0] + 0.021, center[1] - 0.013, center[2] + 0.017)}}}}};
  // Estimated once, independently of core's formula code: jittered sampling of the
  // audit's formula reference (distgrid-estimate-volume gyroid 600 8).
  p.volume = 1.4456144;
  p.volume_exact = false;
  p.volume_uncertainty = 2e-5;
  p.volume_source =
      "jittered (stratified) sampling of the audit's own formula reference over the part's box widened by 1 %, one "
      "uniform point per cell of a 600^3 lattice, 8 replicates seeded 1000..1007 (distgrid-estimate-volume gyroid "
      "600 8): mean 1.4456144, standard error 5.2e-6 (replicate spread 4.4e-5); the uncertainty is about 4 "
      "standard errors";
  return p;
}

DefaultPart pin_and_ring_part() {
  // A capsule pin through a ring (torus about the default axis z) that it does not
  // touch: the ring's hole (radius R - r = 0.27) clears the pin (0.16 + 0.0224 off the
  // axis). Both turned by a quaternion (normalised when compiled) and scaled by 1.2,
  // so the volume is 1.2^3 times the capsule's and the torus's.
  const double pin_radius = 0.16, pin_length = 0.84, major = 0.36, minor = 0.09, factor = 1.2;
  DefaultPart p;
  p.name = "pin_and_ring";
  p.description = "capsule pin (r = 0.16) through a ring torus (R = 0.36, r = 0.09), turned by a quaternion, scaled by 1.2";
  const json pin = {{"type", "capsule"},
                    {"start", vec(0.02, -0.01, -pin_length / 2)},
                    {"end", vec(0.02, -0.01, pin_length / 2)},
                    {"radius", pin_radius}};
  const json ring = {{"type", "torus"}, {"center", vec(0, 0, 0.05)}, {"major_radius", major}, {"minor_radius", minor}};
  const json turned = {{"type", "rotate"},
                       {"quaternion", {0.92, 0.28, -0.21, 0.17}},
                       {"shape", {{"type", "union"}, {"of", {pin, ring}}}}};
  p.spec = {{"type", "translate"},
            {"by", vec(0.0093, -0.0121, 0.0067)},
            {"shape", {{"type", "scale"}, {"factor", factor}, {"shape", turned}}}};
  const double capsule = kPi * pin_radius * pin_radius * pin_length + 4.0 / 3.0 * kPi * pin_radius * pin_radius * pin_radius;
  p.volume = factor * factor * factor * (capsule + 2 * kPi * kPi * major * minor * minor);
  p.volume_exact = true;
  p.volume_source =
      "1.2^3 (pi r^2 L + 4/3 pi r^3 + 2 pi^2 R t^2): capsule r = 0.16, L = 0.84; torus R = 0.36, t = 0.09 (disjoint)";
  return p;
}

DefaultPart cut_cylinder_part() {
  // A cylinder with an oblique axis, cut by a half-space whose plane crosses only the
  // side wall (it meets the axis 0.763 from the start cap; its ellipse reaches
  // r tan(angle) = 0.089 along the axis either way). An oblique cut of a cylinder
  // keeps the volume of a straight cut through the same point of the axis.
  const std::array<double, 3> a{-0.5, -0.28, -0.3}, b{0.45, 0.32, 0.36}, n{1, 0.2, 0.5};
  const double radius = 0.26, offset = 0.1;
  DefaultPart p;
  p.name = "cut_cylinder";
  p.description = "cylinder r = 0.26 with an oblique axis, cut across by a tilted half-space";
  p.spec = {{"type", "translate"},
            {"by", vec(-0.0117, 0.0071, 0.0149)},
            {"shape",
             {{"type", "intersection"},
              {"of",
               {{{"type", "cylinder"}, {"start", vec(a[0], a[1], a[2])}, {"end", vec(b[0], b[1], b[2])}, {"radius", radius}},
                {{"type", "halfspace"}, {"normal", vec(n[0], n[1], n[2])}, {"offset", offset}}}}}}};
  double along_dot_n = 0, start_dot_n = 0, length2 = 0, normal2 = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    along_dot_n += (b[i] - a[i]) * n[i];
    start_dot_n += a[i] * n[i];
    length2 += (b[i] - a[i]) * (b[i] - a[i]);
    normal2 += n[i] * n[i];
  }
  // The plane n.p = offset |n| meets the axis a + t (b - a) / |b - a| at t = cut.
  const double cut = (offset * std::sqrt(normal2) - start_dot_n) * std::sqrt(length2) / along_dot_n;
  p.volume = kPi * radius * radius * cut;
  p.volume_exact = true;
  p.volume_source = "pi r^2 t, r = 0.26, t = 0.7629 the axial distance from the start cap to where the plane meets the axis";
  return p;
}

DefaultPart shells_part() {
  // Three balls in a triangle, centred at z = 0: a wall centred on a sphere, a wall
  // inside one, and a wall of constant thickness outside a sphere grown by a
  // distance. Thickness and distance follow maps linear in z across every wall (2
  // cells along z, centres at -0.45 and 0.45, beyond every wall), so each wall's
  // radius bounds about its centre are R' / (1 -+ b' cos(theta)): integrating r^2
  // between them gives the closed forms below (the integral of (1 - k u)^-3 over u
  // in [-1, 1] is 2 / (1 - k^2)^2).
  const double radius = 0.3, grown = 0.26;
  const double t0 = 0.08, tb = 0.08 / 0.9;  // thickness 0.04 .. 0.12 over z = -0.45 .. 0.45
  const double d0 = 0.05, db = 0.06 / 0.9;  // grown by 0.02 .. 0.08
  const double wall = 0.05;
  const json map_box = json::array({-1, -1, -0.9, 1, 1, 0.9});
  const json thickness = density_map({1, 1, 2}, map_box, {0, 1}, 0.04, 0.12);
  const json distance = density_map({1, 1, 2}, map_box, {0, 1}, 0.02, 0.08);
  const auto ball = [](double x, double y, double r) { return json{{"type", "sphere"}, {"center", vec(x, y, 0)}, {"radius", r}}; };
  DefaultPart p;
  p.name = "shells";
  p.description =
      "three walls: centred on and inside a sphere (0.04 .. 0.12 thick, rising with z), and 0.05 thick outside a "
      "sphere grown by 0.02 .. 0.08";
  const json outside = {{"type", "shell"},
                        {"side", "outside"},
                        {"thickness", {{"type", "constant"}, {"value", wall}}},
                        {"shape", {{"type", "offset"}, {"distance", distance}, {"shape", ball(0, 0.35, grown)}}}};
  const json walls = json::array({{{"type", "shell"}, {"thickness", thickness}, {"shape", ball(-0.4, -0.35, radius)}},
                                  {{"type", "shell"}, {"side", "inside"}, {"thickness", thickness},
                                   {"shape", ball(0.4, -0.35, radius)}},
                                  outside});
  p.spec = {{"type", "translate"},
            {"by", vec(0.0107, -0.0089, 0.0131)},
            {"shape", {{"type", "union"}, {"of", walls}}}};
  const auto cube = [](double x) { return x * x * x; };
  const auto stretch = [](double k) { return 1 / ((1 - k * k) * (1 - k * k)); };
  const double ball_volume = 4.0 / 3.0 * kPi;
  const double centred = ball_volume * (cube(radius + t0 / 2) - cube(radius - t0 / 2)) * stretch(tb / 2);
  const double inside = ball_volume * (cube(radius) - cube(radius - t0) * stretch(tb));
  const double grown_wall = ball_volume * (cube(grown + d0 + wall) - cube(grown + d0)) * stretch(db);
  p.volume = centred + inside + grown_wall;
  p.volume_exact = true;
  p.volume_source =
      "4/3 pi times: centred wall ((R + t0/2)^3 - (R - t0/2)^3) / (1 - b^2/4)^2; inside wall R^3 - (R - t0)^3 / "
      "(1 - b^2)^2; outside wall ((G + d0 + 0.05)^3 - (G + d0)^3) / (1 - b'^2)^2; R = 0.3, t0 = 0.08, b = 0.08/0.9, "
      "G = 0.26, d0 = 0.05, b' = 0.06/0.9";
  return p;
}

}  // namespace

const std::vector<DefaultPart>& default_parts() {
  static const std::vector<DefaultPart> parts{sphere_part(),  torus_part(),        rotated_box_part(),
                                              bracket_part(),  gyroid_part(),       pin_and_ring_part(),
                                              cut_cylinder_part(), shells_part()};
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
