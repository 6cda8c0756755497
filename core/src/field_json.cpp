// Compiles JSON formula specs into Field<S>, and the Field members that are not
// templates on the arithmetic type: the batch evaluator, ball classification and
// bounds. The spec format is documented in docs/field-spec.md.
#include "distgrid/field_json.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "distgrid/error.hpp"
#include "distgrid/json_text.hpp"

namespace distgrid {

namespace detail {
namespace {

using json = nlohmann::json;

constexpr int kMaxDepth = 200;  // nesting of shapes; keeps recursion shallow
constexpr std::int64_t kMaxCellsPerAxis = std::int64_t{1} << 20;
constexpr std::int64_t kMaxDensityValues = std::int64_t{1} << 26;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

constexpr const char* kShapeTypes =
    "sphere, box, cylinder, torus, capsule, halfspace, union, intersection, difference, offset, shell, "
    "translate, rotate, scale, gyroid";

// ---- JSON paths and messages ------------------------------------------------------

std::string member_path(const std::string& path, std::string_view key) {
  std::string out = path + "/";
  for (char c : key) {  // RFC 6901 escapes
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string element_path(const std::string& path, std::size_t index) {
  return path + "/" + std::to_string(index);
}

std::string number_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return json(v).dump();
}

std::string describe(const json& v) {
  if (v.is_number()) return number_text(v.get<double>());
  std::string text = v.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return std::string(v.type_name()) + " " + text;
}

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error(ErrorCode::badspec, (path.empty() ? std::string("(root)") : path) + ": " + what);
}

enum class Rule { any, positive, non_negative };

const char* rule_text(Rule rule) {
  switch (rule) {
    case Rule::positive: return "a finite number > 0";
    case Rule::non_negative: return "a finite number >= 0";
    case Rule::any: break;
  }
  return "a finite number";
}

double checked_number(const json& v, const std::string& path, Rule rule) {
  if (!v.is_number()) fail(path, std::string("expected ") + rule_text(rule) + ", got " + describe(v));
  const double x = v.get<double>();
  const bool ok = std::isfinite(x) && (rule == Rule::any || (rule == Rule::positive ? x > 0 : x >= 0));
  if (!ok) fail(path, std::string("expected ") + rule_text(rule) + ", got " + describe(v));
  return x;
}

/// A spec object: checks for unknown members up front, then hands out members by name.
class SpecObject {
 public:
  SpecObject(const json& j, std::string path, std::string_view what, std::initializer_list<std::string_view> allowed)
      : j_(j), path_(std::move(path)) {
    for (const auto& [key, value] : j.items()) {
      if (key == "type" || key == "comment") continue;
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      std::string list;
      for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      fail(member_path(path_, key), "unknown member of a " + std::string(what) + " (expected " +
                                        (list.empty() ? std::string("none") : list) + ")");
    }
  }

  const std::string& path() const { return path_; }
  std::string path_of(std::string_view key) const { return member_path(path_, key); }
  bool has(std::string_view key) const { return j_.contains(key); }

  const json& required(std::string_view key, std::string_view expected) const {
    const auto it = j_.find(key);
    if (it == j_.end()) fail(path_of(key), "missing member (expected " + std::string(expected) + ")");
    return *it;
  }

  double number(std::string_view key, Rule rule) const {
    return checked_number(required(key, rule_text(rule)), path_of(key), rule);
  }
  double number_or(std::string_view key, Rule rule, double fallback) const {
    return has(key) ? number(key, rule) : fallback;
  }

  /// Three finite numbers; `nonzero` rejects the zero vector (directions).
  Vec3 vec3(std::string_view key, bool nonzero = false) const {
    const json& v = required(key, "an array of 3 finite numbers");
    return vec3_value(v, path_of(key), nonzero);
  }
  Vec3 vec3_or(std::string_view key, Vec3 fallback, bool nonzero = false) const {
    return has(key) ? vec3(key, nonzero) : fallback;
  }

  static Vec3 vec3_value(const json& v, const std::string& path, bool nonzero) {
    if (!v.is_array() || v.size() != 3)
      fail(path, "expected an array of 3 finite numbers, got " + describe(v));
    Vec3 out{};
    for (std::size_t a = 0; a < 3; ++a) out[a] = checked_number(v[a], element_path(path, a), Rule::any);
    if (nonzero && out[0] == 0 && out[1] == 0 && out[2] == 0)
      fail(path, "expected a non-zero direction, got [0, 0, 0]");
    return out;
  }

 private:
  const json& j_;
  std::string path_;
};

double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
double norm(const Vec3& a) { return std::sqrt(dot(a, a)); }

Vec3 unit(const Vec3& v, const std::string& path) {
  const double n = norm(v);
  if (!(n > 0) || !std::isfinite(n)) fail(path, "expected a direction of finite non-zero length");
  return {v[0] / n, v[1] / n, v[2] / n};
}

double padded(double lipschitz) { return lipschitz * (1 + kLipschitzPad); }

Box infinite_box() { return Box{{-kInfinity, -kInfinity, -kInfinity}, {kInfinity, kInfinity, kInfinity}}; }

Box centered_box(const Vec3& c, const Vec3& half) {
  return Box{{c[0] - half[0], c[1] - half[1], c[2] - half[2]}, {c[0] + half[0], c[1] + half[1], c[2] + half[2]}};
}

}  // namespace

// ---- the compiler -----------------------------------------------------------------

template <class S>
class FieldCompiler {
 public:
  Field<S> compile(const json& spec) {
    Field<S> field;
    field_ = &field;
    field.root_ = shape(spec, "", 0);
    field.bounds_ = field.bounds_node(field.root_, 0);
    return field;
  }

 private:
  NodeId add(NodeShape node_shape, double lipschitz, std::size_t scratch_blocks) {
    if (field_->nodes_.size() >= std::numeric_limits<NodeId>::max())
      throw Error(ErrorCode::badspec, "formula has too many nodes");
    field_->nodes_.push_back(Node{std::move(node_shape), lipschitz, scratch_blocks});
    return static_cast<NodeId>(field_->nodes_.size() - 1);
  }
  const Node& node(NodeId id) const { return field_->nodes_[id]; }
  const NumberField<S>& number_field(std::uint32_t id) const { return field_->numbers_[id]; }

  std::vector<NodeId> shape_list(const SpecObject& o, std::string_view key, int depth) {
    const json& list = o.required(key, "a non-empty array of shapes");
    const std::string path = o.path_of(key);
    if (!list.is_array() || list.empty())
      fail(path, "expected a non-empty array of shapes, got " + describe(list));
    std::vector<NodeId> ids;
    for (std::size_t i = 0; i < list.size(); ++i) ids.push_back(shape(list[i], element_path(path, i), depth + 1));
    return ids;
  }

  NodeId child_shape(const SpecObject& o, std::string_view key, int depth) {
    return shape(o.required(key, "a shape object"), o.path_of(key), depth + 1);
  }

  // Scratch for combining children: the first writes into `out`, each later one
  // into one block, evaluated with the blocks after it.
  std::size_t combine_blocks(NodeId first, const std::vector<NodeId>& rest) const {
    std::size_t blocks = node(first).scratch_blocks;
    for (NodeId c : rest) blocks = std::max(blocks, 1 + node(c).scratch_blocks);
    return blocks;
  }
  double max_lipschitz(NodeId first, const std::vector<NodeId>& rest) const {
    double l = node(first).lipschitz;
    for (NodeId c : rest) l = std::max(l, node(c).lipschitz);
    return l;
  }

  NodeId shape(const json& j, const std::string& path, int depth) {
    if (depth > kMaxDepth) fail(path, "shapes nested deeper than " + std::to_string(kMaxDepth) + " levels");
    if (!j.is_object()) fail(path, "expected a shape object, got " + describe(j));
    const auto type_it = j.find("type");
    if (type_it == j.end()) fail(member_path(path, "type"), std::string("missing member (expected one of ") + kShapeTypes + ")");
    if (!type_it->is_string()) fail(member_path(path, "type"), "expected a string, got " + describe(*type_it));
    const std::string type = type_it->get<std::string>();

    if (type == "sphere") {
      SpecObject o(j, path, type, {"center", "radius"});
      return add(SphereNode{o.vec3("center"), o.number("radius", Rule::positive)}, padded(1), 0);
    }
    if (type == "box") {
      SpecObject o(j, path, type, {"center", "size", "round"});
      const Vec3 center = o.vec3("center");
      const Vec3 size = o.vec3("size");
      for (std::size_t a = 0; a < 3; ++a)
        if (!(size[a] > 0)) fail(element_path(o.path_of("size"), a), "expected an edge length > 0, got " + number_text(size[a]));
      const double round = o.number_or("round", Rule::non_negative, 0);
      const double smallest = std::min({size[0], size[1], size[2]});
      if (round > smallest / 2)
        fail(o.path_of("round"), "expected at most half the smallest edge (" + number_text(smallest / 2) + "), got " + number_text(round));
      const Vec3 inner{size[0] / 2 - round, size[1] / 2 - round, size[2] / 2 - round};
      return add(BoxNode{center, inner, round}, padded(1), 0);
    }
    if (type == "cylinder") {
      SpecObject o(j, path, type, {"start", "end", "radius"});
      const Vec3 a = o.vec3("start"), b = o.vec3("end");
      const double radius = o.number("radius", Rule::positive);
      const Vec3 along{b[0] - a[0], b[1] - a[1], b[2] - a[2]};
      const double length = norm(along);
      if (!(length > 0) || !std::isfinite(length)) fail(o.path_of("end"), "expected an end different from start");
      const Vec3 axis{along[0] / length, along[1] / length, along[2] / length};
      const Vec3 center{a[0] + along[0] / 2, a[1] + along[1] / 2, a[2] + along[2] / 2};
      return add(CylinderNode{center, axis, radius, length / 2}, padded(1), 0);
    }
    if (type == "torus") {
      SpecObject o(j, path, type, {"center", "major_radius", "minor_radius", "axis"});
      const Vec3 center = o.vec3("center");
      const double major = o.number("major_radius", Rule::positive);
      const double minor = o.number("minor_radius", Rule::positive);
      if (!(minor < major))
        fail(o.path_of("minor_radius"), "expected less than major_radius (a ring torus), got " + number_text(minor));
      const Vec3 axis = unit(o.vec3_or("axis", {0, 0, 1}, true), o.path_of("axis"));
      return add(TorusNode{center, axis, major, minor}, padded(1), 0);
    }
    if (type == "capsule") {
      SpecObject o(j, path, type, {"start", "end", "radius"});
      const Vec3 a = o.vec3("start"), b = o.vec3("end");
      const double radius = o.number("radius", Rule::positive);
      const Vec3 along{b[0] - a[0], b[1] - a[1], b[2] - a[2]};
      const double length2 = dot(along, along);
      if (!std::isfinite(length2)) fail(o.path_of("end"), "segment too long");
      return add(CapsuleNode{a, along, length2, length2 > 0 ? 1 / length2 : 0, radius}, padded(1), 0);
    }
    if (type == "halfspace") {
      SpecObject o(j, path, type, {"normal", "offset"});
      const Vec3 n = unit(o.vec3("normal", true), o.path_of("normal"));
      return add(HalfSpaceNode{n, o.number_or("offset", Rule::any, 0)}, padded(1), 0);
    }
    if (type == "union" || type == "intersection") {
      SpecObject o(j, path, type, {"of"});
      std::vector<NodeId> children = shape_list(o, "of", depth);
      const std::vector<NodeId> rest(children.begin() + 1, children.end());
      const double l = max_lipschitz(children[0], rest);
      const std::size_t blocks = combine_blocks(children[0], rest);
      if (type == "union") return add(UnionNode{std::move(children)}, l, blocks);
      return add(IntersectionNode{std::move(children)}, l, blocks);
    }
    if (type == "difference") {
      SpecObject o(j, path, type, {"from", "subtract"});
      const NodeId from = child_shape(o, "from", depth);
      std::vector<NodeId> subtract = shape_list(o, "subtract", depth);
      const double l = max_lipschitz(from, subtract);
      const std::size_t blocks = combine_blocks(from, subtract);
      return add(DifferenceNode{from, std::move(subtract)}, l, blocks);
    }
    if (type == "offset") {
      SpecObject o(j, path, type, {"distance", "shape"});
      const std::uint32_t distance = number_member(o, "distance", Rule::any);
      const NodeId child = child_shape(o, "shape", depth);
      return add(OffsetNode{child, distance}, padded(node(child).lipschitz + number_field(distance).lipschitz),
                 std::max<std::size_t>(node(child).scratch_blocks, 1));
    }
    if (type == "shell") {
      SpecObject o(j, path, type, {"thickness", "shape", "side"});
      const std::uint32_t thickness = number_member(o, "thickness", Rule::non_negative);
      ShellSide side = ShellSide::center;
      if (o.has("side")) {
        const json& s = o.required("side", "");
        const std::string text = s.is_string() ? s.get<std::string>() : std::string();
        if (text == "center")
          side = ShellSide::center;
        else if (text == "inside")
          side = ShellSide::inside;
        else if (text == "outside")
          side = ShellSide::outside;
        else
          fail(o.path_of("side"), "expected \"center\", \"inside\" or \"outside\", got " + describe(s));
      }
      const NodeId child = child_shape(o, "shape", depth);
      const double lt = number_field(thickness).lipschitz;
      return add(ShellNode{child, thickness, side},
                 padded(node(child).lipschitz + (side == ShellSide::center ? lt / 2 : lt)),
                 std::max<std::size_t>(node(child).scratch_blocks, 1));
    }
    if (type == "translate") {
      SpecObject o(j, path, type, {"by", "shape"});
      const Vec3 by = o.vec3("by");
      const NodeId child = child_shape(o, "shape", depth);
      return add(TranslateNode{child, by}, node(child).lipschitz, 3 + node(child).scratch_blocks);
    }
    if (type == "rotate") {
      SpecObject o(j, path, type, {"axis", "angle", "quaternion", "shape"});
      const std::array<double, 9> forward = rotation(o);
      const NodeId child = child_shape(o, "shape", depth);
      // The child is evaluated at R^T p. ||M|| <= sqrt(1 + ||M^T M - I||_F) <= 1 + ||M^T M - I||_F,
      // plus 1e-14 for the rounding of that check itself.
      std::array<double, 9> to_child{};
      for (std::size_t r = 0; r < 3; ++r)
        for (std::size_t c = 0; c < 3; ++c) to_child[3 * r + c] = forward[3 * c + r];
      double defect2 = 0;
      for (std::size_t r = 0; r < 3; ++r)
        for (std::size_t c = 0; c < 3; ++c) {
          double e = (r == c) ? -1.0 : 0.0;
          for (std::size_t k = 0; k < 3; ++k) e += to_child[3 * k + r] * to_child[3 * k + c];
          defect2 += e * e;
        }
      const double stretch = 1 + std::sqrt(defect2) + 1e-14;
      return add(RotateNode{child, to_child}, padded(node(child).lipschitz * stretch), 3 + node(child).scratch_blocks);
    }
    if (type == "scale") {
      SpecObject o(j, path, type, {"factor", "shape"});
      const double factor = o.number("factor", Rule::positive);
      const NodeId child = child_shape(o, "shape", depth);
      return add(ScaleNode{child, factor}, padded(node(child).lipschitz), 3 + node(child).scratch_blocks);
    }
    if (type == "gyroid") {
      SpecObject o(j, path, type, {"cell", "thickness", "origin"});
      return gyroid(o);
    }
    fail(member_path(path, "type"), "unknown shape type \"" + type + "\" (expected one of " + kShapeTypes + ")");
  }

  /// Forward rotation matrix (row-major) from axis + angle (radians) or a quaternion [w, x, y, z].
  static std::array<double, 9> rotation(const SpecObject& o) {
    const bool by_axis = o.has("axis") || o.has("angle");
    if (by_axis == o.has("quaternion"))
      fail(o.path(), "expected either \"axis\" and \"angle\" or \"quaternion\"");
    if (by_axis) {
      const Vec3 u = unit(o.vec3("axis", true), o.path_of("axis"));
      const double angle = o.number("angle", Rule::any);
      const double c = std::cos(angle), s = std::sin(angle), t = 1 - c;
      return {t * u[0] * u[0] + c,        t * u[0] * u[1] - s * u[2], t * u[0] * u[2] + s * u[1],
              t * u[0] * u[1] + s * u[2], t * u[1] * u[1] + c,        t * u[1] * u[2] - s * u[0],
              t * u[0] * u[2] - s * u[1], t * u[1] * u[2] + s * u[0], t * u[2] * u[2] + c};
    }
    const json& q = o.required("quaternion", "");
    const std::string path = o.path_of("quaternion");
    if (!q.is_array() || q.size() != 4) fail(path, "expected an array of 4 finite numbers [w, x, y, z], got " + describe(q));
    std::array<double, 4> v{};
    for (std::size_t i = 0; i < 4; ++i) v[i] = checked_number(q[i], element_path(path, i), Rule::any);
    const double n = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
    if (!(n > 0) || !std::isfinite(n)) fail(path, "expected a quaternion of finite non-zero length");
    const double w = v[0] / n, x = v[1] / n, y = v[2] / n, z = v[3] / n;
    return {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
            2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
            2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
  }

  NodeId gyroid(const SpecObject& o) {
    const std::uint32_t cell = number_member(o, "cell", Rule::positive);
    const std::uint32_t thickness = number_member(o, "thickness", Rule::non_negative);
    GyroidNode g{};
    g.cell = cell;
    g.thickness = thickness;
    g.origin = o.vec3_or("origin", {0, 0, 0});
    const NumberField<S>& c = number_field(cell);
    const double thickness_term = number_field(thickness).lipschitz / 2;
    if (c.constant) {
      g.uniform_cell = true;
      g.phase_per_length = kTwoPi / c.value;
      g.distance_per_value = c.value * kGyroidDistancePerCell;
      return add(g, padded(1 + thickness_term), 2);
    }
    const DensityMap<S>& map = c.map;
    g.uniform_cell = false;
    double farthest2 = 0;
    for (std::size_t a = 0; a < 3; ++a) {
      g.hold_lo[a] = map.lo[a];
      g.hold_hi[a] = map.lo[a] + map.width[a];
      const double e = std::max(std::abs(g.hold_lo[a] - g.origin[a]), std::abs(g.hold_hi[a] - g.origin[a]));
      farthest2 += e * e;
    }
    // Beyond B the lattice continues with the map's largest cell itself (c.max is
    // widened for the blend's rounding, which would shift the phase there by 1e-12).
    g.cell_max = 0;
    for (const S d : map.data) g.cell_max = std::max(g.cell_max, map.v0 + (map.v1 - map.v0) * static_cast<double>(d));
    const double lc = c.lipschitz;
    const double bound = 1 + std::sqrt(farthest2) * lc / c.min + 1.5 * lc * kGyroidDistancePerCell + thickness_term;
    return add(g, padded(bound), 2);
  }

  // ---- number fields ----

  std::uint32_t number_member(const SpecObject& o, std::string_view key, Rule rule) {
    const json& v = o.required(key, std::string(rule_text(rule)) + " or a number field object");
    return number(v, o.path_of(key), rule);
  }

  std::uint32_t add_number(NumberField<S> n) {
    field_->numbers_.push_back(std::move(n));
    return static_cast<std::uint32_t>(field_->numbers_.size() - 1);
  }
  std::uint32_t add_constant(double x) {
    NumberField<S> n;
    n.value = n.min = n.max = x;
    return add_number(std::move(n));
  }

  std::uint32_t number(const json& v, const std::string& path, Rule rule) {
    if (v.is_number()) {
      return add_constant(checked_number(v, path, rule));
    }
    if (!v.is_object())
      fail(path, std::string("expected ") + rule_text(rule) + " or a number field object, got " + describe(v));
    const auto type_it = v.find("type");
    if (type_it == v.end()) fail(member_path(path, "type"), "missing member (expected \"constant\" or \"density\")");
    const std::string type = type_it->is_string() ? type_it->get<std::string>() : std::string();
    if (type == "constant") {
      SpecObject o(v, path, "constant", {"value"});
      return add_constant(o.number("value", rule));
    }
    if (type == "density") {
      SpecObject o(v, path, "density map", {"cells", "box", "data", "v0", "v1"});
      return add_number(density(o, rule));
    }
    fail(member_path(path, "type"), "unknown number field type " + describe(*type_it) + " (expected \"constant\" or \"density\")");
  }

  static NumberField<S> density(const SpecObject& o, Rule rule) {
    DensityMap<S> map;
    const json& cells = o.required("cells", "an array of 3 integers >= 1");
    const std::string cells_path = o.path_of("cells");
    if (!cells.is_array() || cells.size() != 3)
      fail(cells_path, "expected an array of 3 integers >= 1, got " + describe(cells));
    std::int64_t count = 1;
    for (std::size_t a = 0; a < 3; ++a) {
      const json& c = cells[a];
      const bool integer = c.is_number_integer() || c.is_number_unsigned();
      const std::int64_t n = integer && !(c.is_number_unsigned() && c.get<std::uint64_t>() > std::uint64_t{1} << 62)
                                 ? c.get<std::int64_t>()
                                 : 0;
      if (!integer || n < 1 || n > kMaxCellsPerAxis)
        fail(element_path(cells_path, a), "expected an integer in [1, " + std::to_string(kMaxCellsPerAxis) + "], got " + describe(c));
      map.cells[a] = static_cast<std::ptrdiff_t>(n);
      count *= n;
      if (count > kMaxDensityValues)
        fail(cells_path, "expected at most " + std::to_string(kMaxDensityValues) + " cells in all");
    }
    const json& box = o.required("box", "an array of 6 finite numbers [x0, y0, z0, x1, y1, z1]");
    const std::string box_path = o.path_of("box");
    if (!box.is_array() || box.size() != 6)
      fail(box_path, "expected an array of 6 finite numbers [x0, y0, z0, x1, y1, z1], got " + describe(box));
    for (std::size_t a = 0; a < 3; ++a) {
      const double lo = checked_number(box[a], element_path(box_path, a), Rule::any);
      const double hi = checked_number(box[a + 3], element_path(box_path, a + 3), Rule::any);
      if (!(hi > lo) || !std::isfinite(hi - lo))
        fail(element_path(box_path, a + 3), "expected a value greater than box[" + std::to_string(a) + "] = " + number_text(lo) +
                                               ", got " + number_text(hi));
      map.lo[a] = lo;
      map.width[a] = hi - lo;
    }
    const json& data = o.required("data", "an array of nx*ny*nz numbers in [0, 1]");
    const std::string data_path = o.path_of("data");
    if (!data.is_array()) fail(data_path, "expected an array of numbers in [0, 1], got " + describe(data));
    if (static_cast<std::int64_t>(data.size()) != count)
      fail(data_path, "expected " + std::to_string(count) + " values (nx*ny*nz), got " + std::to_string(data.size()));
    map.data.reserve(data.size());
    double dmin = 1, dmax = 0;
    for (std::size_t i = 0; i < data.size(); ++i) {
      const json& d = data[i];
      const double x = d.is_number() ? d.get<double>() : std::nan("");
      if (!(x >= 0 && x <= 1)) fail(element_path(data_path, i), "expected a number in [0, 1], got " + describe(d));
      map.data.push_back(static_cast<S>(x));
      const double stored = static_cast<double>(map.data.back());
      dmin = std::min(dmin, stored);
      dmax = std::max(dmax, stored);
    }
    map.v0 = o.number("v0", rule);
    map.v1 = o.number("v1", rule);

    // Largest neighbour step per axis over the cell width bounds the slope of the
    // trilinear interpolant (a convex combination of such steps in every cell).
    double slope2 = 0;
    const std::ptrdiff_t nx = map.cells[0], ny = map.cells[1], nz = map.cells[2];
    const auto at = [&](std::ptrdiff_t i, std::ptrdiff_t j, std::ptrdiff_t k) {
      return static_cast<double>(map.data[static_cast<std::size_t>(i + nx * (j + ny * k))]);
    };
    for (std::size_t a = 0; a < 3; ++a) {
      if (map.cells[a] == 1) continue;
      double step = 0;
      for (std::ptrdiff_t k = 0; k < nz; ++k)
        for (std::ptrdiff_t j = 0; j < ny; ++j)
          for (std::ptrdiff_t i = 0; i < nx; ++i) {
            const std::ptrdiff_t i1 = i + (a == 0), j1 = j + (a == 1), k1 = k + (a == 2);
            if (i1 < nx && j1 < ny && k1 < nz) step = std::max(step, std::abs(at(i1, j1, k1) - at(i, j, k)));
          }
      const double slope = step / (map.width[a] / static_cast<double>(map.cells[a]));
      slope2 += slope * slope;
    }
    const double span = std::abs(map.v1 - map.v0);
    const double a = map.v0 + (map.v1 - map.v0) * dmin, b = map.v0 + (map.v1 - map.v0) * dmax;
    // Values are convex combinations of the stored data, so they stay in [lo, hi]
    // up to the rounding of the blend (covered by the relative widening).
    const double lo = std::min(a, b), hi = std::max(a, b);
    const double widen = 1e-12 * (std::abs(map.v0) + std::abs(map.v1));
    NumberField<S> out;
    out.constant = false;
    out.map = std::move(map);
    out.min = lo - widen;
    out.max = hi + widen;
    out.lipschitz = padded(span * std::sqrt(slope2));
    if (rule == Rule::positive && !(out.min > 0)) out.min = std::min(std::abs(lo), std::abs(hi)) * (1 - 1e-12);
    if (rule != Rule::any && out.min < 0) out.min = 0;
    return out;
  }

  Field<S>* field_ = nullptr;
};

}  // namespace detail

// ---- batch evaluation -----------------------------------------------------------

namespace {

// Per-point loops over restrict pointers, so GCC vectorises them (sqrt included,
// as the project compiles with -fno-math-errno).
template <class Kernel>
void for_points(std::size_t n, const double* __restrict x, const double* __restrict y, const double* __restrict z,
                double* __restrict out, const Kernel& kernel) {
  for (std::size_t i = 0; i < n; ++i) out[i] = kernel(x[i], y[i], z[i]);
}

void min_into(double* __restrict out, const double* __restrict v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = v[i] < out[i] ? v[i] : out[i];
}
void max_into(double* __restrict out, const double* __restrict v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = v[i] > out[i] ? v[i] : out[i];
}
void max_negated_into(double* __restrict out, const double* __restrict v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const double w = -v[i];
    out[i] = w > out[i] ? w : out[i];
  }
}
void subtract_into(double* __restrict out, const double* __restrict v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = out[i] - v[i];
}
void shell_into(double* __restrict out, const double* __restrict t, std::size_t n, detail::ShellSide side) {
  if (side == detail::ShellSide::center) {
    for (std::size_t i = 0; i < n; ++i) out[i] = std::abs(out[i]) - t[i] * 0.5;
  } else if (side == detail::ShellSide::inside) {
    for (std::size_t i = 0; i < n; ++i) {
      const double g = out[i], a = -g - t[i];
      out[i] = a > g ? a : g;
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      const double g = out[i], a = g - t[i], b = -g;
      out[i] = a > b ? a : b;
    }
  }
}

bool overlaps(const double* a, std::size_t na, const double* b, std::size_t nb) {
  const std::less<const double*> less;
  return na > 0 && nb > 0 && less(a, b + nb) && less(b, a + na);
}

}  // namespace

template <class S>
void Field<S>::eval_batch(std::span<const double> x, std::span<const double> y, std::span<const double> z,
                          std::span<double> out, FieldScratch& scratch) const {
  const std::size_t n = x.size();
  if (y.size() != n || z.size() != n || out.size() != n)
    throw Error(ErrorCode::badarg, "eval_batch: x, y, z and out must have the same length");
  if (overlaps(out.data(), n, x.data(), n) || overlaps(out.data(), n, y.data(), n) ||
      overlaps(out.data(), n, z.data(), n))
    throw Error(ErrorCode::badarg, "eval_batch: out must not overlap x, y or z");
  const std::size_t need = nodes_[root_].scratch_blocks * kFieldBatchPoints;
  if (scratch.buffers.size() < need) scratch.buffers.resize(need);
  for (std::size_t begin = 0; begin < n; begin += kFieldBatchPoints) {
    const std::size_t count = std::min(kFieldBatchPoints, n - begin);
    batch_node(root_, x.data() + begin, y.data() + begin, z.data() + begin, out.data() + begin, count,
               scratch.buffers.data());
  }
}

template <class S>
void Field<S>::batch_number(std::uint32_t id, const double* x, const double* y, const double* z, double* out,
                            std::size_t n) const {
  const detail::NumberField<S>& number_field = numbers_[id];
  if (number_field.constant) {
    std::fill(out, out + n, number_field.value);
    return;
  }
  for (std::size_t i = 0; i < n; ++i) out[i] = detail::density_value(number_field.map, x[i], y[i], z[i]);
}

// Each node writes its n values into `out`; `scratch` is free memory (blocks of
// kFieldBatchPoints doubles, as many as the node's scratch_blocks) used as a stack.
template <class S>
void Field<S>::batch_node(detail::NodeId id, const double* x, const double* y, const double* z, double* out,
                          std::size_t n, double* scratch) const {
  using namespace detail;
  constexpr std::size_t B = kFieldBatchPoints;
  std::visit(
      [&](const auto& node) {
        using N = std::decay_t<decltype(node)>;
        if constexpr (std::is_same_v<N, UnionNode> || std::is_same_v<N, IntersectionNode>) {
          batch_node(node.children[0], x, y, z, out, n, scratch);
          for (std::size_t c = 1; c < node.children.size(); ++c) {
            batch_node(node.children[c], x, y, z, scratch, n, scratch + B);
            if constexpr (std::is_same_v<N, UnionNode>)
              min_into(out, scratch, n);
            else
              max_into(out, scratch, n);
          }
        } else if constexpr (std::is_same_v<N, DifferenceNode>) {
          batch_node(node.from, x, y, z, out, n, scratch);
          for (const NodeId s : node.subtract) {
            batch_node(s, x, y, z, scratch, n, scratch + B);
            max_negated_into(out, scratch, n);
          }
        } else if constexpr (std::is_same_v<N, OffsetNode>) {
          batch_node(node.child, x, y, z, out, n, scratch);
          batch_number(node.distance, x, y, z, scratch, n);
          subtract_into(out, scratch, n);
        } else if constexpr (std::is_same_v<N, ShellNode>) {
          batch_node(node.child, x, y, z, out, n, scratch);
          batch_number(node.thickness, x, y, z, scratch, n);
          shell_into(out, scratch, n, node.side);
        } else if constexpr (std::is_same_v<N, TranslateNode>) {
          double* __restrict tx = scratch;
          double* __restrict ty = scratch + B;
          double* __restrict tz = scratch + 2 * B;
          const double bx = node.by[0], by = node.by[1], bz = node.by[2];
          for (std::size_t i = 0; i < n; ++i) {
            tx[i] = x[i] - bx;
            ty[i] = y[i] - by;
            tz[i] = z[i] - bz;
          }
          batch_node(node.child, tx, ty, tz, out, n, scratch + 3 * B);
        } else if constexpr (std::is_same_v<N, RotateNode>) {
          double* __restrict tx = scratch;
          double* __restrict ty = scratch + B;
          double* __restrict tz = scratch + 2 * B;
          const std::array<double, 9> m = node.to_child;
          for (std::size_t i = 0; i < n; ++i) {
            tx[i] = m[0] * x[i] + m[1] * y[i] + m[2] * z[i];
            ty[i] = m[3] * x[i] + m[4] * y[i] + m[5] * z[i];
            tz[i] = m[6] * x[i] + m[7] * y[i] + m[8] * z[i];
          }
          batch_node(node.child, tx, ty, tz, out, n, scratch + 3 * B);
        } else if constexpr (std::is_same_v<N, ScaleNode>) {
          double* __restrict tx = scratch;
          double* __restrict ty = scratch + B;
          double* __restrict tz = scratch + 2 * B;
          const double s = node.factor;
          for (std::size_t i = 0; i < n; ++i) {
            tx[i] = x[i] / s;
            ty[i] = y[i] / s;
            tz[i] = z[i] / s;
          }
          batch_node(node.child, tx, ty, tz, out, n, scratch + 3 * B);
          for (std::size_t i = 0; i < n; ++i) out[i] = s * out[i];
        } else if constexpr (std::is_same_v<N, GyroidNode>) {
          double* cell = scratch;
          double* thickness = scratch + B;
          batch_number(node.cell, x, y, z, cell, n);
          batch_number(node.thickness, x, y, z, thickness, n);
          for (std::size_t i = 0; i < n; ++i) out[i] = gyroid_value(node, x[i], y[i], z[i], cell[i], thickness[i]);
        } else {
          const N local = node;  // parameters in registers, not re-read through `out`
          for_points(n, x, y, z, out, [local](double px, double py, double pz) { return distance(local, px, py, pz); });
        }
      },
      nodes_[id].shape);
}

// ---- ball classification ----------------------------------------------------------

namespace {

// Lipschitz test on f(c): outside when f(c) - L r >= above, inside when f(c) + L r <= below.
// `slack` = 1e-9 x (|f(c)| + L r + L |coordinates| + |below| + |above|) covers the
// rounding of f(c) and of the transformed centre: a few dozen double operations err
// by well under 1e-13 of those magnitudes.
BallClass lipschitz_test(double f, double lipschitz, double r, double magnitude, double below, double above) {
  const double reach = lipschitz * r;
  const double slack =
      1e-9 * (std::abs(f) + reach + lipschitz * magnitude + std::abs(below) + std::abs(above));
  if (f - reach - slack >= above) return BallClass::outside;
  if (f + reach + slack <= below) return BallClass::inside;
  return BallClass::near;
}

}  // namespace

template <class S>
BallClass Field<S>::classify(double cx, double cy, double cz, double r, double band_width) const {
  if (!(r >= 0) || !(band_width >= 0) || !std::isfinite(band_width)) return BallClass::near;
  const double magnitude = std::abs(cx) + std::abs(cy) + std::abs(cz) + r;
  if (!std::isfinite(magnitude)) return BallClass::near;
  return classify_node(root_, cx, cy, cz, r, magnitude, -band_width, band_width);
}

template <class S>
BallClass Field<S>::classify_node(detail::NodeId id, double cx, double cy, double cz, double r, double magnitude,
                                  double below, double above) const {
  using namespace detail;
  const Node& self = nodes_[id];
  const auto own_test = [&] {
    return lipschitz_test(eval_node<double>(id, cx, cy, cz), self.lipschitz, r, magnitude, below, above);
  };
  return std::visit(
      [&](const auto& node) -> BallClass {
        using N = std::decay_t<decltype(node)>;
        if constexpr (std::is_same_v<N, UnionNode>) {
          // min: outside when every child is, inside when any child is.
          bool all_outside = true;
          for (const NodeId c : node.children) {
            const BallClass k = classify_node(c, cx, cy, cz, r, magnitude, below, above);
            if (k == BallClass::inside) return BallClass::inside;
            all_outside = all_outside && k == BallClass::outside;
          }
          return all_outside ? BallClass::outside : BallClass::near;
        } else if constexpr (std::is_same_v<N, IntersectionNode>) {
          // max: outside when any child is, inside when every child is.
          bool all_inside = true;
          for (const NodeId c : node.children) {
            const BallClass k = classify_node(c, cx, cy, cz, r, magnitude, below, above);
            if (k == BallClass::outside) return BallClass::outside;
            all_inside = all_inside && k == BallClass::inside;
          }
          return all_inside ? BallClass::inside : BallClass::near;
        } else if constexpr (std::is_same_v<N, DifferenceNode>) {
          // max(from, -s): a subtracted child is tested against the mirrored band.
          const BallClass from = classify_node(node.from, cx, cy, cz, r, magnitude, below, above);
          if (from == BallClass::outside) return BallClass::outside;
          bool all_clear = true;
          for (const NodeId s : node.subtract) {
            const BallClass k = classify_node(s, cx, cy, cz, r, magnitude, -above, -below);
            if (k == BallClass::inside) return BallClass::outside;  // s <= -above: -s >= above
            all_clear = all_clear && k == BallClass::outside;       // s >= -below: -s <= below
          }
          return from == BallClass::inside && all_clear ? BallClass::inside : BallClass::near;
        } else if constexpr (std::is_same_v<N, OffsetNode>) {
          // g - d with d in [min, max]: g >= above + max or g <= below + min decides.
          const NumberField<S>& d = numbers_[node.distance];
          return classify_node(node.child, cx, cy, cz, r, magnitude, below + d.min, above + d.max);
        } else if constexpr (std::is_same_v<N, ShellNode>) {
          // The wall is at least `above` away when g >= above + a or g <= -above - b.
          const double t = numbers_[node.thickness].max;
          const double a = node.side == ShellSide::center ? t / 2 : (node.side == ShellSide::outside ? t : 0);
          const double b = node.side == ShellSide::center ? t / 2 : (node.side == ShellSide::inside ? t : 0);
          const double low = -above - b, high = above + a;
          if (low >= high) return BallClass::outside;  // the two half-lines cover every value
          const BallClass k = classify_node(node.child, cx, cy, cz, r, magnitude, low, high);
          if (k != BallClass::near) return BallClass::outside;
          return own_test();
        } else if constexpr (std::is_same_v<N, TranslateNode>) {
          return classify_node(node.child, cx - node.by[0], cy - node.by[1], cz - node.by[2], r,
                               magnitude + std::abs(node.by[0]) + std::abs(node.by[1]) + std::abs(node.by[2]),
                               below, above);
        } else if constexpr (std::is_same_v<N, RotateNode>) {
          const auto& m = node.to_child;
          return classify_node(node.child, m[0] * cx + m[1] * cy + m[2] * cz, m[3] * cx + m[4] * cy + m[5] * cz,
                               m[6] * cx + m[7] * cy + m[8] * cz, r, 2 * magnitude, below, above);
        } else if constexpr (std::is_same_v<N, ScaleNode>) {
          // f = s g(p / s): f >= above exactly where g >= above / s.
          const double s = node.factor;
          return classify_node(node.child, cx / s, cy / s, cz / s, r / s, magnitude / s, below / s, above / s);
        } else {
          return own_test();  // primitives and the gyroid
        }
      },
      self.shape);
}

// ---- bounds -------------------------------------------------------------------------

template <class S>
Box Field<S>::bounds_within(double level) const {
  if (std::isnan(level)) throw Error(ErrorCode::badarg, "bounds_within: level is not a number");
  return bounds_node(root_, level);
}

// Box holding {f <= level}. Exact distances grow their box by the level; CSG and
// offsets pass the level on (a union's set is the union of its children's, ...).
template <class S>
Box Field<S>::bounds_node(detail::NodeId id, double level) const {
  using namespace detail;
  const double e = std::max(level, 0.0);
  return std::visit(
      [&](const auto& node) -> Box {
        using N = std::decay_t<decltype(node)>;
        if constexpr (std::is_same_v<N, SphereNode>) {
          const double k = node.radius + e;
          return centered_box(node.center, {k, k, k});
        } else if constexpr (std::is_same_v<N, BoxNode>) {
          const double k = node.round + e;
          return centered_box(node.center, {node.inner_half[0] + k, node.inner_half[1] + k, node.inner_half[2] + k});
        } else if constexpr (std::is_same_v<N, CylinderNode>) {
          Vec3 half{};
          for (std::size_t a = 0; a < 3; ++a) half[a] = node.half_length * std::abs(node.axis[a]) + node.radius + e;
          return centered_box(node.center, half);
        } else if constexpr (std::is_same_v<N, TorusNode>) {
          Vec3 half{};
          for (std::size_t a = 0; a < 3; ++a)
            half[a] = (std::abs(node.axis[a]) == 1 ? 0 : node.major) + node.minor + e;
          return centered_box(node.center, half);
        } else if constexpr (std::is_same_v<N, CapsuleNode>) {
          Box b;
          for (std::size_t a = 0; a < 3; ++a) {
            const double end = node.start[a] + node.along[a];
            b.lo[a] = std::min(node.start[a], end) - (node.radius + e);
            b.hi[a] = std::max(node.start[a], end) + (node.radius + e);
          }
          return b;
        } else if constexpr (std::is_same_v<N, HalfSpaceNode>) {
          Box b = infinite_box();
          for (std::size_t a = 0; a < 3; ++a) {
            if (node.unit_normal[a] == 1) b.hi[a] = node.offset + e;
            if (node.unit_normal[a] == -1) b.lo[a] = -(node.offset + e);
          }
          return b;
        } else if constexpr (std::is_same_v<N, UnionNode>) {
          Box hull = bounds_node(node.children[0], level);
          for (std::size_t c = 1; c < node.children.size(); ++c) {
            const Box b = bounds_node(node.children[c], level);
            if (b.empty()) continue;
            if (hull.empty()) {
              hull = b;
              continue;
            }
            for (std::size_t a = 0; a < 3; ++a) {
              hull.lo[a] = std::min(hull.lo[a], b.lo[a]);
              hull.hi[a] = std::max(hull.hi[a], b.hi[a]);
            }
          }
          return hull;
        } else if constexpr (std::is_same_v<N, IntersectionNode>) {
          Box common = bounds_node(node.children[0], level);
          for (std::size_t c = 1; c < node.children.size(); ++c) {
            const Box b = bounds_node(node.children[c], level);
            for (std::size_t a = 0; a < 3; ++a) {
              common.lo[a] = std::max(common.lo[a], b.lo[a]);
              common.hi[a] = std::min(common.hi[a], b.hi[a]);
            }
          }
          return common;
        } else if constexpr (std::is_same_v<N, DifferenceNode>) {
          return bounds_node(node.from, level);
        } else if constexpr (std::is_same_v<N, OffsetNode>) {
          return bounds_node(node.child, level + numbers_[node.distance].max);
        } else if constexpr (std::is_same_v<N, ShellNode>) {
          const double t = numbers_[node.thickness].max;
          const double grow = node.side == ShellSide::center ? t / 2 : (node.side == ShellSide::outside ? t : 0);
          return bounds_node(node.child, level + grow);
        } else if constexpr (std::is_same_v<N, TranslateNode>) {
          Box b = bounds_node(node.child, level);
          for (std::size_t a = 0; a < 3; ++a) {
            b.lo[a] += node.by[a];
            b.hi[a] += node.by[a];
          }
          return b;
        } else if constexpr (std::is_same_v<N, RotateNode>) {
          const Box b = bounds_node(node.child, level);
          if (b.empty()) return b;
          if (!b.finite()) return infinite_box();
          // Corners mapped back by M^T (M = to_child is orthogonal up to rounding);
          // the widening covers M^T differing from M^-1 by a few ulps.
          Box out{{kInfinity, kInfinity, kInfinity}, {-kInfinity, -kInfinity, -kInfinity}};
          const auto& m = node.to_child;
          double size = 0;
          for (int corner = 0; corner < 8; ++corner) {
            const Vec3 q{(corner & 1) ? b.hi[0] : b.lo[0], (corner & 2) ? b.hi[1] : b.lo[1],
                         (corner & 4) ? b.hi[2] : b.lo[2]};
            for (std::size_t a = 0; a < 3; ++a) {
              const double p = m[a] * q[0] + m[3 + a] * q[1] + m[6 + a] * q[2];
              out.lo[a] = std::min(out.lo[a], p);
              out.hi[a] = std::max(out.hi[a], p);
              size = std::max(size, std::abs(q[a]));
            }
          }
          for (std::size_t a = 0; a < 3; ++a) {
            out.lo[a] -= 1e-12 * size;
            out.hi[a] += 1e-12 * size;
          }
          return out;
        } else if constexpr (std::is_same_v<N, ScaleNode>) {
          Box b = bounds_node(node.child, level / node.factor);
          for (std::size_t a = 0; a < 3; ++a) {
            b.lo[a] *= node.factor;
            b.hi[a] *= node.factor;
          }
          return b;
        } else {
          return infinite_box();  // a lattice fills space
        }
      },
      nodes_[id].shape);
}

template class Field<float>;
template class Field<double>;

template <class S>
Field<S> compile_field(const nlohmann::json& spec) {
  try {
    return detail::FieldCompiler<S>().compile(spec);
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorCode::badspec, std::string("formula spec: ") + e.what());
  }
}

template <class S>
Field<S> compile_field_text(std::string_view json_text, std::string_view source) {
  const nlohmann::json spec = parse_json_text(json_text, std::string(source), ErrorCode::badspec);
  try {
    return compile_field<S>(spec);
  } catch (const Error& e) {
    throw Error(e.code(), std::string(source) + ": " + e.what());
  }
}

template Field<float> compile_field<float>(const nlohmann::json&);
template Field<double> compile_field<double>(const nlohmann::json&);
template Field<float> compile_field_text<float>(std::string_view, std::string_view);
template Field<double> compile_field_text<double>(std::string_view, std::string_view);

}  // namespace distgrid
