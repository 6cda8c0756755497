// Compiles JSON formula specs into Field<S>: each shape's parameters checked and
// its node's Lipschitz bound, box and scratch needs set. The spec format is
// documented in docs/field-spec.md; evaluation, classification and bounds of the
// compiled formula are in field.cpp.
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
