#include "distgrid/audit/reference/field_geometry.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <variant>

#include "distgrid/audit/reference/density_map.hpp"

namespace distgrid::audit::reference {

namespace {

using json = nlohmann::json;
template <class T>
using Vec = std::array<T, 3>;

[[noreturn]] void unreadable(const std::string& path, const std::string& what) {
  throw std::invalid_argument("field reference: " + (path.empty() ? std::string("(root)") : path) + ": " + what);
}

/// A number derived from the spec, held in high precision and as its nearest double.
struct Constant {
  HighPrecision high = 0;
  double low = 0;

  Constant() = default;
  explicit Constant(const HighPrecision& v) : high(v), low(to_double(v)) {}
  template <class T>
  T as() const {
    if constexpr (std::is_same_v<T, double>)
      return low;
    else
      return high;
  }
};
using ConstantVec = Vec<Constant>;

template <class T>
Vec<T> as(const ConstantVec& v) {
  return {v[0].as<T>(), v[1].as<T>(), v[2].as<T>()};
}
ConstantVec constant_vec(const Vec<HighPrecision>& v) { return {Constant(v[0]), Constant(v[1]), Constant(v[2])}; }

template <class T>
Vec<T> sub(const Vec<T>& a, const Vec<T>& b) {
  return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}
template <class T>
Vec<T> add(const Vec<T>& a, const Vec<T>& b) {
  return {a[0] + b[0], a[1] + b[1], a[2] + b[2]};
}
template <class T>
Vec<T> scaled(const Vec<T>& a, const T& s) {
  return {a[0] * s, a[1] * s, a[2] * s};
}
template <class T>
T dot(const Vec<T>& a, const Vec<T>& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
template <class T>
Vec<T> cross(const Vec<T>& a, const Vec<T>& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
template <class T>
T norm(const Vec<T>& a) {
  using std::sqrt;
  return sqrt(dot(a, a));
}

Side complement(Side m) {
  if (m == Side::inside) return Side::outside;
  if (m == Side::outside) return Side::inside;
  return m;
}

const HighPrecision& pi() {
  static const HighPrecision value = 4 * atan(HighPrecision(1));
  return value;
}

// ---- reading the spec -------------------------------------------------------------

struct Reader {
  const json& j;
  std::string path;

  const json& member(const char* key) const {
    if (!j.contains(key)) unreadable(path + "/" + key, "missing");
    return j.at(key);
  }
  double number(const char* key) const { return number_at(member(key), path + "/" + key); }
  double number_or(const char* key, double fallback) const { return j.contains(key) ? number(key) : fallback; }
  Vec<HighPrecision> vec(const char* key) const { return vec_at(member(key), path + "/" + key); }
  Vec<HighPrecision> vec_or(const char* key, Vec<double> fallback) const {
    if (j.contains(key)) return vec(key);
    return {HighPrecision(fallback[0]), HighPrecision(fallback[1]), HighPrecision(fallback[2])};
  }

  static double number_at(const json& v, const std::string& where) {
    if (!v.is_number()) unreadable(where, "expected a number");
    const double x = v.get<double>();
    if (!std::isfinite(x)) unreadable(where, "expected a finite number");
    return x;
  }
  static Vec<HighPrecision> vec_at(const json& v, const std::string& where) {
    if (!v.is_array() || v.size() != 3) unreadable(where, "expected 3 numbers");
    Vec<HighPrecision> out;
    for (std::size_t a = 0; a < 3; ++a) out[a] = HighPrecision(number_at(v[a], where + "/" + std::to_string(a)));
    return out;
  }
};

// ---- number fields ------------------------------------------------------------------

/// A constant or a density map (docs/field-spec.md, "Number fields").
struct NumberField {
  bool constant = true;
  Constant value;
  DensityMapSpec map;
  std::vector<HighPrecision> high_values;
  std::vector<double> low_values;
  HighPrecision low_bound = 0, high_bound = 0;  ///< the field's range
  HighPrecision lipschitz = 0;                  ///< documented bound on |grad|

  template <class T>
  T at(const Vec<T>& p) const {
    if (constant) return value.as<T>();
    if constexpr (std::is_same_v<T, double>)
      return density_number(map, low_values, p);
    else
      return density_number(map, high_values, p);
  }
};

NumberField read_number(const json& v, const std::string& path, DensityValues storage) {
  NumberField n;
  if (v.is_number()) {
    n.value = Constant(HighPrecision(Reader::number_at(v, path)));
    n.low_bound = n.high_bound = n.value.high;
    return n;
  }
  if (!v.is_object()) unreadable(path, "expected a number or a number field");
  const Reader r{v, path};
  const std::string type = v.value("type", "");
  if (type == "constant") {
    n.value = Constant(HighPrecision(r.number("value")));
    n.low_bound = n.high_bound = n.value.high;
    return n;
  }
  if (type != "density") unreadable(path + "/type", "expected \"constant\" or \"density\"");
  n.constant = false;
  const json& cells = r.member("cells");
  const json& box = r.member("box");
  const json& data = r.member("data");
  if (!cells.is_array() || cells.size() != 3 || !box.is_array() || box.size() != 6 || !data.is_array())
    unreadable(path, "expected cells [3], box [6] and data");
  std::size_t count = 1;
  for (std::size_t a = 0; a < 3; ++a) {
    n.map.cells[a] = cells[a].get<std::int64_t>();
    if (n.map.cells[a] < 1) unreadable(path + "/cells", "expected counts >= 1");
    count *= static_cast<std::size_t>(n.map.cells[a]);
    n.map.lo[a] = Reader::number_at(box[a], path + "/box");
    n.map.hi[a] = Reader::number_at(box[a + 3], path + "/box");
  }
  if (data.size() != count) unreadable(path + "/data", "expected nx*ny*nz values");
  n.map.v0 = r.number("v0");
  n.map.v1 = r.number("v1");
  for (const json& d : data) {
    double x = Reader::number_at(d, path + "/data");
    if (storage == DensityValues::float32) x = static_cast<double>(static_cast<float>(x));
    n.low_values.push_back(x);
    n.high_values.push_back(HighPrecision(x));
  }
  // Range: the blend of the smallest and largest value (values interpolate convexly).
  const auto [smallest, largest] = std::minmax_element(n.high_values.begin(), n.high_values.end());
  const HighPrecision v0(n.map.v0), v1(n.map.v1);
  const HighPrecision a = v0 + (v1 - v0) * *smallest, b = v0 + (v1 - v0) * *largest;
  n.low_bound = std::min(a, b);
  n.high_bound = std::max(a, b);
  // |v1 - v0| sqrt(sum over axes of (largest neighbour step / cell width)^2).
  HighPrecision sum = 0;
  const auto at = [&](std::int64_t i, std::int64_t j, std::int64_t k) {
    return n.high_values[static_cast<std::size_t>(i + n.map.cells[0] * (j + n.map.cells[1] * k))];
  };
  for (std::size_t axis = 0; axis < 3; ++axis) {
    if (n.map.cells[axis] == 1) continue;
    HighPrecision step = 0;
    for (std::int64_t k = 0; k < n.map.cells[2]; ++k)
      for (std::int64_t j = 0; j < n.map.cells[1]; ++j)
        for (std::int64_t i = 0; i < n.map.cells[0]; ++i) {
          const std::int64_t i1 = i + (axis == 0), j1 = j + (axis == 1), k1 = k + (axis == 2);
          if (i1 < n.map.cells[0] && j1 < n.map.cells[1] && k1 < n.map.cells[2])
            step = std::max(step, HighPrecision(abs(at(i1, j1, k1) - at(i, j, k))));
        }
    const HighPrecision width =
        (HighPrecision(n.map.hi[axis]) - HighPrecision(n.map.lo[axis])) / HighPrecision(n.map.cells[axis]);
    sum += (step / width) * (step / width);
  }
  n.lipschitz = abs(v1 - v0) * sqrt(sum);
  return n;
}

}  // namespace

// ---- nodes ------------------------------------------------------------------------------

struct SphereShape {
  ConstantVec center;
  Constant radius;
};
/// The inner box [lo, hi] (size - 2 round), offset by `round`.
struct BoxShape {
  ConstantVec lo, hi;
  Constant round;
  ConstantVec center, half;  // of the outer box, for special points
};
struct CylinderShape {
  ConstantVec start, end, along;  // along = end - start
  Constant length, radius;
};
struct TorusShape {
  ConstantVec center, axis;  // unit axis
  Constant major, minor;
};
struct CapsuleShape {
  ConstantVec start, end, along;
  Constant radius;
  bool point = false;  // start == end
};
struct HalfSpaceShape {
  ConstantVec normal;  // as given
  Constant normal_length, offset;
};
enum class Combine { union_of, intersection_of, difference };
/// A shell's `side` (not `Side`: side.hpp defines that name in this namespace).
enum class ShellSide { center, inside, outside };
struct RotateShape {
  bool quaternion = false;
  ConstantVec axis;   // unit axis (axis and angle), or the unit quaternion's vector part
  Constant cos, sin;  // of the angle (axis and angle)
  Constant w;         // the unit quaternion's scalar part
};

struct FieldGeometry::Node {
  std::variant<SphereShape, BoxShape, CylinderShape, TorusShape, CapsuleShape, HalfSpaceShape, Combine> primitive;
  enum class Kind { primitive, combine, offset, shell, translate, rotate, scale, gyroid } kind = Kind::primitive;
  std::vector<Node> children;  // operands (a difference's `from` first), or the one shape
  NumberField number, second;  // offset distance / shell thickness / gyroid cell and thickness
  ShellSide side = ShellSide::center;
  ConstantVec vector;          // translate's by, the gyroid's origin
  RotateShape rotation;
  Constant factor;             // scale
  // Gyroid with a density-map cell: the map's box and its largest cell.
  ConstantVec hold_lo, hold_hi;
  Constant cell_max;
};

namespace {

using Node = FieldGeometry::Node;

Node read_node(const json& j, const std::string& path, DensityValues storage);

std::vector<Node> read_list(const Reader& r, const char* key, DensityValues storage) {
  const json& list = r.member(key);
  if (!list.is_array() || list.empty()) unreadable(r.path + "/" + key, "expected a non-empty list of shapes");
  std::vector<Node> out;
  for (std::size_t i = 0; i < list.size(); ++i)
    out.push_back(read_node(list[i], r.path + "/" + key + "/" + std::to_string(i), storage));
  return out;
}

Vec<HighPrecision> unit_of(const Vec<HighPrecision>& v, const std::string& where) {
  const HighPrecision n = norm(v);
  if (!(n > 0)) unreadable(where, "expected a non-zero direction");
  return {v[0] / n, v[1] / n, v[2] / n};
}

Node read_node(const json& j, const std::string& path, DensityValues storage) {
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string()) unreadable(path, "expected a shape object");
  const Reader r{j, path};
  Node node;
  const std::string type = j["type"].get<std::string>();
  if (type == "sphere") {
    node.primitive = SphereShape{constant_vec(r.vec("center")), Constant(HighPrecision(r.number("radius")))};
  } else if (type == "box") {
    const Vec<HighPrecision> c = r.vec("center"), size = r.vec("size");
    const HighPrecision round(r.number_or("round", 0));
    Vec<HighPrecision> lo, hi, half;
    for (std::size_t a = 0; a < 3; ++a) {
      half[a] = size[a] / 2;
      lo[a] = c[a] - (half[a] - round);
      hi[a] = c[a] + (half[a] - round);
    }
    node.primitive = BoxShape{constant_vec(lo), constant_vec(hi), Constant(round), constant_vec(c), constant_vec(half)};
  } else if (type == "cylinder") {
    const Vec<HighPrecision> a = r.vec("start"), b = r.vec("end"), along = sub(b, a);
    node.primitive = CylinderShape{constant_vec(a), constant_vec(b), constant_vec(along), Constant(norm(along)),
                                   Constant(HighPrecision(r.number("radius")))};
  } else if (type == "torus") {
    node.primitive = TorusShape{constant_vec(r.vec("center")), constant_vec(unit_of(r.vec_or("axis", {0, 0, 1}), path + "/axis")),
                                Constant(HighPrecision(r.number("major_radius"))),
                                Constant(HighPrecision(r.number("minor_radius")))};
  } else if (type == "capsule") {
    const Vec<HighPrecision> a = r.vec("start"), b = r.vec("end"), along = sub(b, a);
    node.primitive = CapsuleShape{constant_vec(a), constant_vec(b), constant_vec(along),
                                  Constant(HighPrecision(r.number("radius"))), dot(along, along) == 0};
  } else if (type == "halfspace") {
    const Vec<HighPrecision> n = r.vec("normal");
    if (!(norm(n) > 0)) unreadable(path + "/normal", "expected a non-zero normal");
    node.primitive = HalfSpaceShape{constant_vec(n), Constant(norm(n)), Constant(HighPrecision(r.number_or("offset", 0)))};
  } else if (type == "union" || type == "intersection") {
    node.kind = Node::Kind::combine;
    node.primitive = type == "union" ? Combine::union_of : Combine::intersection_of;
    node.children = read_list(r, "of", storage);
  } else if (type == "difference") {
    node.kind = Node::Kind::combine;
    node.primitive = Combine::difference;
    node.children.push_back(read_node(r.member("from"), path + "/from", storage));
    for (Node& s : read_list(r, "subtract", storage)) node.children.push_back(std::move(s));
  } else if (type == "offset") {
    node.kind = Node::Kind::offset;
    node.number = read_number(r.member("distance"), path + "/distance", storage);
    node.children.push_back(read_node(r.member("shape"), path + "/shape", storage));
  } else if (type == "shell") {
    node.kind = Node::Kind::shell;
    node.number = read_number(r.member("thickness"), path + "/thickness", storage);
    const std::string side = j.value("side", "center");
    if (side == "center")
      node.side = ShellSide::center;
    else if (side == "inside")
      node.side = ShellSide::inside;
    else if (side == "outside")
      node.side = ShellSide::outside;
    else
      unreadable(path + "/side", "expected center, inside or outside");
    node.children.push_back(read_node(r.member("shape"), path + "/shape", storage));
  } else if (type == "translate") {
    node.kind = Node::Kind::translate;
    node.vector = constant_vec(r.vec("by"));
    node.children.push_back(read_node(r.member("shape"), path + "/shape", storage));
  } else if (type == "rotate") {
    node.kind = Node::Kind::rotate;
    if (j.contains("quaternion")) {
      const json& q = j["quaternion"];
      if (!q.is_array() || q.size() != 4) unreadable(path + "/quaternion", "expected 4 numbers");
      std::array<HighPrecision, 4> v;
      for (std::size_t i = 0; i < 4; ++i) v[i] = HighPrecision(Reader::number_at(q[i], path + "/quaternion"));
      const HighPrecision n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
      if (!(n > 0)) unreadable(path + "/quaternion", "expected a non-zero quaternion");
      node.rotation.quaternion = true;
      node.rotation.w = Constant(v[0] / n);
      node.rotation.axis = constant_vec({v[1] / n, v[2] / n, v[3] / n});
    } else {
      const HighPrecision angle(r.number("angle"));
      node.rotation.axis = constant_vec(unit_of(r.vec("axis"), path + "/axis"));
      node.rotation.cos = Constant(cos(angle));
      node.rotation.sin = Constant(sin(angle));
    }
    node.children.push_back(read_node(r.member("shape"), path + "/shape", storage));
  } else if (type == "scale") {
    node.kind = Node::Kind::scale;
    node.factor = Constant(HighPrecision(r.number("factor")));
    node.children.push_back(read_node(r.member("shape"), path + "/shape", storage));
  } else if (type == "gyroid") {
    node.kind = Node::Kind::gyroid;
    node.number = read_number(r.member("cell"), path + "/cell", storage);
    node.second = read_number(r.member("thickness"), path + "/thickness", storage);
    node.vector = constant_vec(r.vec_or("origin", {0, 0, 0}));
    if (!node.number.constant) {
      Vec<HighPrecision> lo, hi;
      for (std::size_t a = 0; a < 3; ++a) {
        lo[a] = HighPrecision(node.number.map.lo[a]);
        hi[a] = HighPrecision(node.number.map.hi[a]);
      }
      node.hold_lo = constant_vec(lo);
      node.hold_hi = constant_vec(hi);
      node.cell_max = Constant(node.number.high_bound);
    }
  } else {
    unreadable(path + "/type", "unknown shape type \"" + type + "\"");
  }
  return node;
}

// ---- values -----------------------------------------------------------------------------

template <class T>
T distance(const SphereShape& s, const Vec<T>& p) {
  return norm(sub(p, as<T>(s.center))) - s.radius.as<T>();
}

// Nearest point of the inner box by clamping; inside it, the nearest face.
template <class T>
T distance(const BoxShape& b, const Vec<T>& p) {
  using std::sqrt;
  const Vec<T> lo = as<T>(b.lo), hi = as<T>(b.hi);
  T outside2 = 0;
  T nearest_face = 0;
  bool inside = true;
  for (std::size_t a = 0; a < 3; ++a) {
    const T clamped = std::clamp(p[a], lo[a], hi[a]);
    const T gap = p[a] - clamped;
    outside2 += gap * gap;
    if (gap != 0) inside = false;
    const T face = std::min(p[a] - lo[a], hi[a] - p[a]);
    nearest_face = a == 0 ? face : std::min(nearest_face, face);
  }
  return (inside ? -nearest_face : sqrt(outside2)) - b.round.as<T>();
}

// By cases: beside the side wall, beyond a cap's face, or beyond a cap's rim.
template <class T>
T distance(const CylinderShape& c, const Vec<T>& p) {
  using std::sqrt;
  const Vec<T> from_start = sub(p, as<T>(c.start)), along = as<T>(c.along);
  const T length = c.length.as<T>(), radius = c.radius.as<T>();
  const T t = dot(from_start, along) / length;        // position along the axis
  const T rho = norm(cross(from_start, along)) / length;  // distance from the axis
  const T beyond = t < 0 ? -t : (t > length ? t - length : T(0));
  if (beyond == 0) return rho <= radius ? -std::min({radius - rho, t, length - t}) : rho - radius;
  if (rho <= radius) return beyond;
  return sqrt(beyond * beyond + (rho - radius) * (rho - radius));
}

// Distance to the core circle (in the plane through the centre across the axis), less the tube.
template <class T>
T distance(const TorusShape& s, const Vec<T>& p) {
  using std::sqrt;
  const Vec<T> q = sub(p, as<T>(s.center)), axis = as<T>(s.axis);
  const T t = dot(q, axis);
  const T rho = norm(cross(q, axis));
  const T ring = rho - s.major.as<T>();
  return sqrt(ring * ring + t * t) - s.minor.as<T>();
}

// Nearest point of the segment: an end point when the point lies beyond it, else the line.
template <class T>
T distance(const CapsuleShape& c, const Vec<T>& p) {
  const Vec<T> a = as<T>(c.start), b = as<T>(c.end), along = as<T>(c.along);
  const Vec<T> from_a = sub(p, a);
  T d;
  if (c.point || dot(from_a, along) <= 0)
    d = norm(from_a);
  else if (dot(sub(p, b), along) >= 0)
    d = norm(sub(p, b));
  else
    d = norm(cross(from_a, along)) / norm(along);
  return d - c.radius.as<T>();
}

template <class T>
T distance(const HalfSpaceShape& h, const Vec<T>& p) {
  return dot(as<T>(h.normal), p) / h.normal_length.as<T>() - h.offset.as<T>();
}

/// R^-1 p: Rodrigues' formula with the angle negated, or q* p q.
template <class T>
Vec<T> inverse_rotation(const RotateShape& r, const Vec<T>& p) {
  const Vec<T> k = as<T>(r.axis);
  if (r.quaternion) {
    // q = (w, v) unit: q* p q = p - 2w (v x p) + 2 v x (v x p).
    const Vec<T> vp = cross(k, p), vvp = cross(k, vp);
    const T w2 = T(2) * r.w.as<T>();
    return {p[0] - w2 * vp[0] + T(2) * vvp[0], p[1] - w2 * vp[1] + T(2) * vvp[1], p[2] - w2 * vp[2] + T(2) * vvp[2]};
  }
  const T c = r.cos.as<T>(), s = r.sin.as<T>();
  const Vec<T> kp = cross(k, p);
  const T along = dot(k, p) * (T(1) - c);
  return {p[0] * c - kp[0] * s + k[0] * along, p[1] * c - kp[1] * s + k[1] * along,
          p[2] * c - kp[2] * s + k[2] * along};
}

/// R p (forward), for special points.
Vec<HighPrecision> forward_rotation(const RotateShape& r, const Vec<HighPrecision>& p) {
  const Vec<HighPrecision> k = as<HighPrecision>(r.axis);
  if (r.quaternion) {
    const Vec<HighPrecision> vp = cross(k, p), vvp = cross(k, vp);
    const HighPrecision w2 = 2 * r.w.high;
    return {p[0] + w2 * vp[0] + 2 * vvp[0], p[1] + w2 * vp[1] + 2 * vvp[1], p[2] + w2 * vp[2] + 2 * vvp[2]};
  }
  const HighPrecision c = r.cos.high, s = r.sin.high;
  const Vec<HighPrecision> kp = cross(k, p);
  const HighPrecision along = dot(k, p) * (1 - c);
  return {p[0] * c + kp[0] * s + k[0] * along, p[1] * c + kp[1] * s + k[1] * along,
          p[2] * c + kp[2] * s + k[2] * along};
}

template <class T>
const T& two_pi() {
  static const T value = T(2 * pi());
  return value;
}
template <class T>
const T& root3() {
  static const T value = T(sqrt(HighPrecision(3)));
  return value;
}

/// G(phi) = sin phi_x cos phi_y + sin phi_y cos phi_z + sin phi_z cos phi_x at p, and the cell there.
template <class T>
T gyroid_g(const Node& g, const Vec<T>& p, const T& cell) {
  using std::cos;
  using std::sin;
  const Vec<T> origin = as<T>(g.vector);
  Vec<T> phi;
  for (std::size_t a = 0; a < 3; ++a) {
    if (g.number.constant) {
      phi[a] = two_pi<T>() * (p[a] - origin[a]) / cell;
    } else {
      // Inside the map's box the local cell; beyond it the largest cell (docs/field-spec.md).
      const T q = std::clamp(p[a], g.hold_lo[a].as<T>(), g.hold_hi[a].as<T>());
      phi[a] = two_pi<T>() * ((q - origin[a]) / cell + (p[a] - q) / g.cell_max.as<T>());
    }
  }
  return sin(phi[0]) * cos(phi[1]) + sin(phi[1]) * cos(phi[2]) + sin(phi[2]) * cos(phi[0]);
}

// ---- membership ----------------------------------------------------------------------------
// Tests that do not go through the distance: squared distances against squared radii.

template <class T>
Side compare(const T& value, const T& limit) {  // value < limit: inside
  if (value < limit) return Side::inside;
  if (value > limit) return Side::outside;
  return Side::surface;
}

template <class T>
Side inside_of(const SphereShape& s, const Vec<T>& p) {
  const Vec<T> d = sub(p, as<T>(s.center));
  const T r = s.radius.as<T>();
  return compare(dot(d, d), T(r * r));
}

template <class T>
Side inside_of(const BoxShape& b, const Vec<T>& p) {
  const Vec<T> lo = as<T>(b.lo), hi = as<T>(b.hi);
  const T round = b.round.as<T>();
  if (round == 0) {
    bool all_inside = true;
    for (std::size_t a = 0; a < 3; ++a) {
      if (p[a] < lo[a] || p[a] > hi[a]) return Side::outside;
      all_inside = all_inside && p[a] > lo[a] && p[a] < hi[a];
    }
    return all_inside ? Side::inside : Side::surface;
  }
  T excess2 = 0;  // squared distance to the inner box
  for (std::size_t a = 0; a < 3; ++a) {
    const T gap = std::max({T(lo[a] - p[a]), T(p[a] - hi[a]), T(0)});
    excess2 += gap * gap;
  }
  return compare(excess2, T(round * round));
}

template <class T>
Side inside_of(const CylinderShape& c, const Vec<T>& p) {
  const Vec<T> from_start = sub(p, as<T>(c.start)), along = as<T>(c.along);
  const T t = dot(from_start, along), length2 = dot(along, along), r = c.radius.as<T>();
  const Vec<T> w = cross(from_start, along);
  const Side radial = compare(dot(w, w), T(r * r * length2));
  if (t < 0 || t > length2 || radial == Side::outside) return Side::outside;
  if (t > 0 && t < length2 && radial == Side::inside) return Side::inside;
  return Side::surface;
}

// (rho - R)^2 + t^2 < r^2  <=>  A = |q|^2 + R^2 - r^2 < 2 R rho, squared when A >= 0.
template <class T>
Side inside_of(const TorusShape& s, const Vec<T>& p) {
  const Vec<T> q = sub(p, as<T>(s.center));
  const T t = dot(q, as<T>(s.axis));
  const T rho2 = dot(q, q) - t * t;
  const T big = s.major.as<T>(), small = s.minor.as<T>();
  const T a = dot(q, q) + big * big - small * small;
  if (a < 0) return Side::inside;
  return compare(T(a * a), T(4 * big * big * rho2));
}

template <class T>
Side inside_of(const CapsuleShape& c, const Vec<T>& p) {
  const Vec<T> from_a = sub(p, as<T>(c.start)), along = as<T>(c.along), from_b = sub(p, as<T>(c.end));
  T d2;
  if (c.point || dot(from_a, along) <= 0) {
    d2 = dot(from_a, from_a);
  } else if (dot(from_b, along) >= 0) {
    d2 = dot(from_b, from_b);
  } else {
    const Vec<T> w = cross(from_a, along);
    d2 = dot(w, w) / dot(along, along);
  }
  const T r = c.radius.as<T>();
  return compare(d2, T(r * r));
}

template <class T>
Side inside_of(const HalfSpaceShape& h, const Vec<T>& p) {
  return compare(dot(as<T>(h.normal), p), T(h.offset.as<T>() * h.normal_length.as<T>()));
}

// ---- one pass: the value, and membership when asked for ---------------------------------

template <class T>
struct Evaluated {
  T value;
  Side membership = Side::surface;  ///< only when asked for
};

/// Side of a CSG node, gathered operand by operand (a difference's
/// subtracted ones complemented) so no evaluation allocates.
struct Combined {
  bool any_inside = false, any_outside = false, all_inside = true, all_outside = true;

  void add(Side m) {
    any_inside = any_inside || m == Side::inside;
    any_outside = any_outside || m == Side::outside;
    all_inside = all_inside && m == Side::inside;
    all_outside = all_outside && m == Side::outside;
  }
  Side of(Combine how) const {
    if (how == Combine::union_of)
      return any_inside ? Side::inside : (all_outside ? Side::outside : Side::surface);
    return any_outside ? Side::outside : (all_inside ? Side::inside : Side::surface);
  }
};

template <class T>
Evaluated<T> evaluate(const Node& node, const Vec<T>& p, bool sides) {
  using std::abs;
  switch (node.kind) {
    case Node::Kind::primitive:
      return std::visit(
          [&](const auto& shape) -> Evaluated<T> {
            if constexpr (std::is_same_v<std::decay_t<decltype(shape)>, Combine>)
              return {T(0)};  // not a primitive
            else
              return {distance(shape, p), sides ? inside_of(shape, p) : Side::surface};
          },
          node.primitive);
    case Node::Kind::combine: {
      const Combine how = std::get<Combine>(node.primitive);
      Combined membership;
      T result = 0;
      for (std::size_t c = 0; c < node.children.size(); ++c) {
        const Evaluated<T> e = evaluate(node.children[c], p, sides);
        membership.add(how == Combine::difference && c > 0 ? complement(e.membership) : e.membership);
        if (c == 0) result = e.value;
        else if (how == Combine::union_of) result = std::min(result, e.value);
        else if (how == Combine::intersection_of) result = std::max(result, e.value);
        else result = std::max(result, T(-e.value));
      }
      return {result, sides ? membership.of(how) : Side::surface};
    }
    case Node::Kind::offset: {
      const T g = evaluate(node.children[0], p, false).value, d = node.number.at(p);
      return {g - d, compare(g, d)};  // inside: within d of the shape
    }
    case Node::Kind::shell: {
      // The wall is an interval [below, above] of the shape's value g.
      const T g = evaluate(node.children[0], p, false).value, t = node.number.at(p);
      T value, below = -t / 2, above = t / 2;
      if (node.side == ShellSide::center) {
        value = abs(g) - t / 2;
      } else if (node.side == ShellSide::inside) {
        value = std::max(g, T(-g - t));
        below = -t;
        above = 0;
      } else {
        value = std::max(T(-g), T(g - t));
        below = 0;
        above = t;
      }
      const Side m = g < below || g > above ? Side::outside
                                                   : (g > below && g < above ? Side::inside : Side::surface);
      return {value, m};
    }
    case Node::Kind::translate: return evaluate(node.children[0], sub(p, as<T>(node.vector)), sides);
    case Node::Kind::rotate: return evaluate(node.children[0], inverse_rotation(node.rotation, p), sides);
    case Node::Kind::scale: {
      const T s = node.factor.as<T>();
      Evaluated<T> e = evaluate(node.children[0], Vec<T>{p[0] / s, p[1] / s, p[2] / s}, sides);
      e.value = s * e.value;
      return e;
    }
    case Node::Kind::gyroid: {
      const T cell = node.number.at(p), thickness = node.second.at(p);
      const T g = abs(gyroid_g(node, p, cell));
      // |G| c / (2 pi sqrt 3) < t / 2  <=>  |G| c < pi sqrt(3) t: the sign of the implicit function's wall.
      return {g * cell / (two_pi<T>() * root3<T>()) - thickness / 2,
              compare(T(g * cell), T(two_pi<T>() / 2 * root3<T>() * thickness))};
    }
  }
  return {T(0)};
}

// ---- Lipschitz bounds ---------------------------------------------------------------------

HighPrecision bound_of(const Node& node) {
  switch (node.kind) {
    case Node::Kind::primitive: return 1;
    case Node::Kind::combine: {
      HighPrecision most = 0;
      for (const Node& c : node.children) most = std::max(most, bound_of(c));
      return most;
    }
    case Node::Kind::offset: return bound_of(node.children[0]) + node.number.lipschitz;
    case Node::Kind::shell:
      return bound_of(node.children[0]) + (node.side == ShellSide::center ? node.number.lipschitz / 2 : node.number.lipschitz);
    case Node::Kind::translate:
    case Node::Kind::rotate:
    case Node::Kind::scale: return bound_of(node.children[0]);
    case Node::Kind::gyroid: {
      const HighPrecision thickness_term = node.second.lipschitz / 2;
      if (node.number.constant) return 1 + thickness_term;
      // 1 + E L(c) / c_min + (3/2) L(c) / (2 pi sqrt 3) + L(t) / 2, E the farthest box corner from the origin.
      HighPrecision e2 = 0;
      for (std::size_t a = 0; a < 3; ++a) {
        const HighPrecision e = std::max(abs(node.hold_lo[a].high - node.vector[a].high),
                                         abs(node.hold_hi[a].high - node.vector[a].high));
        e2 += e * e;
      }
      const HighPrecision lc = node.number.lipschitz;
      return 1 + sqrt(e2) * lc / node.number.low_bound + HighPrecision(1.5) * lc / (2 * pi() * root3<HighPrecision>()) +
             thickness_term;
    }
  }
  return 1;
}

// ---- special points -----------------------------------------------------------------------

/// Two unit vectors across a unit axis.
std::array<Vec<HighPrecision>, 2> across(const Vec<HighPrecision>& axis) {
  const Vec<HighPrecision> pick = abs(axis[0]) < HighPrecision(0.6) ? Vec<HighPrecision>{1, 0, 0} : Vec<HighPrecision>{0, 1, 0};
  const Vec<HighPrecision> w1 = unit_of(cross(axis, pick), "");
  return {w1, cross(axis, w1)};
}

void add_special(const Node& node, std::vector<Vec<HighPrecision>>& out);

void add_primitive_special(const SphereShape& s, std::vector<Vec<HighPrecision>>& out) {
  const Vec<HighPrecision> c = as<HighPrecision>(s.center);
  out.push_back(c);
  for (std::size_t a = 0; a < 3; ++a)
    for (int sign : {-1, 1}) {
      Vec<HighPrecision> q = c;
      q[a] += sign * s.radius.high;
      out.push_back(q);
    }
}

void add_primitive_special(const BoxShape& b, std::vector<Vec<HighPrecision>>& out) {
  const Vec<HighPrecision> c = as<HighPrecision>(b.center), half = as<HighPrecision>(b.half);
  out.push_back(c);
  // Corners, edge midpoints and face centres of the box (outer), and the inner box's corners.
  for (int x = -1; x <= 1; ++x)
    for (int y = -1; y <= 1; ++y)
      for (int z = -1; z <= 1; ++z) {
        if (x == 0 && y == 0 && z == 0) continue;
        out.push_back({c[0] + x * half[0], c[1] + y * half[1], c[2] + z * half[2]});
        if (b.round.high > 0 && x != 0 && y != 0 && z != 0) {
          const Vec<HighPrecision> inner{x < 0 ? b.lo[0].high : b.hi[0].high, y < 0 ? b.lo[1].high : b.hi[1].high,
                                         z < 0 ? b.lo[2].high : b.hi[2].high};
          out.push_back(inner);
          const HighPrecision k = b.round.high / root3<HighPrecision>();  // on the rounded corner
          out.push_back({inner[0] + x * k, inner[1] + y * k, inner[2] + z * k});
        }
      }
}

void add_primitive_special(const CylinderShape& c, std::vector<Vec<HighPrecision>>& out) {
  const Vec<HighPrecision> a = as<HighPrecision>(c.start), b = as<HighPrecision>(c.end);
  const Vec<HighPrecision> u = unit_of(as<HighPrecision>(c.along), "");
  const auto [w1, w2] = across(u);
  const HighPrecision r = c.radius.high;
  out.push_back(a);
  out.push_back(b);
  out.push_back(scaled(add(a, b), HighPrecision(0.5)));
  out.push_back(sub(a, scaled(u, r)));
  out.push_back(add(b, scaled(u, r)));
  for (const Vec<HighPrecision>& end : {a, b})
    for (const Vec<HighPrecision>& w : {w1, w2})
      for (int sign : {-1, 1}) out.push_back(add(end, scaled(w, HighPrecision(sign) * r)));  // cap rims
}

void add_primitive_special(const TorusShape& s, std::vector<Vec<HighPrecision>>& out) {
  const Vec<HighPrecision> c = as<HighPrecision>(s.center), u = as<HighPrecision>(s.axis);
  const auto [w1, w2] = across(u);
  const HighPrecision big = s.major.high, small = s.minor.high;
  out.push_back(c);
  for (int sign : {-1, 1}) {
    out.push_back(add(c, scaled(u, HighPrecision(sign) * small)));
    out.push_back(add(c, scaled(u, HighPrecision(sign) * big)));
  }
  for (const Vec<HighPrecision>& w : {w1, w2})
    for (int sign : {-1, 1})
      for (const HighPrecision& reach : {big, big + small, big - small}) out.push_back(add(c, scaled(w, sign * reach)));
  for (int sign : {-1, 1}) out.push_back(add(add(c, scaled(w1, big)), scaled(u, HighPrecision(sign) * small)));
}

void add_primitive_special(const CapsuleShape& c, std::vector<Vec<HighPrecision>>& out) {
  const Vec<HighPrecision> a = as<HighPrecision>(c.start), b = as<HighPrecision>(c.end);
  const HighPrecision r = c.radius.high;
  out.push_back(a);
  if (c.point) {
    for (std::size_t axis = 0; axis < 3; ++axis) {
      Vec<HighPrecision> q = a;
      q[axis] += r;
      out.push_back(q);
    }
    return;
  }
  const Vec<HighPrecision> u = unit_of(as<HighPrecision>(c.along), "");
  const auto [w1, w2] = across(u);
  out.push_back(b);
  out.push_back(scaled(add(a, b), HighPrecision(0.5)));
  out.push_back(sub(a, scaled(u, r)));
  out.push_back(add(b, scaled(u, r)));
  for (const Vec<HighPrecision>& end : {a, b})
    for (const Vec<HighPrecision>& w : {w1, w2}) out.push_back(add(end, scaled(w, r)));  // where cap meets side
}

void add_primitive_special(const HalfSpaceShape& h, std::vector<Vec<HighPrecision>>& out) {
  const Vec<HighPrecision> n = unit_of(as<HighPrecision>(h.normal), "");
  const auto [w1, w2] = across(n);
  const Vec<HighPrecision> foot = scaled(n, h.offset.high);
  out.push_back(foot);
  for (const Vec<HighPrecision>& w : {w1, w2})
    for (int sign : {-1, 1}) out.push_back(add(foot, scaled(w, HighPrecision(sign) * HighPrecision(0.3))));
}

void add_special(const Node& node, std::vector<Vec<HighPrecision>>& out) {
  const std::size_t first = out.size();
  switch (node.kind) {
    case Node::Kind::primitive:
      std::visit(
          [&](const auto& shape) {
            if constexpr (!std::is_same_v<std::decay_t<decltype(shape)>, Combine>) add_primitive_special(shape, out);
          },
          node.primitive);
      return;
    case Node::Kind::combine:
    case Node::Kind::offset:
    case Node::Kind::shell:
      for (const Node& c : node.children) add_special(c, out);
      return;
    case Node::Kind::translate:
    case Node::Kind::rotate:
    case Node::Kind::scale:
      add_special(node.children[0], out);
      for (std::size_t n = first; n < out.size(); ++n) {
        if (node.kind == Node::Kind::translate) out[n] = add(out[n], as<HighPrecision>(node.vector));
        if (node.kind == Node::Kind::rotate) out[n] = forward_rotation(node.rotation, out[n]);
        if (node.kind == Node::Kind::scale) out[n] = scaled(out[n], node.factor.high);
      }
      return;
    case Node::Kind::gyroid: {
      // G = 0 where every phase is a multiple of pi, and at phase (pi/2, pi/2, pi/2); for a
      // density-map cell, the map box's corners and centre.
      const Vec<HighPrecision> o = as<HighPrecision>(node.vector);
      if (node.number.constant) {
        const HighPrecision c = node.number.value.high;
        for (int x = 0; x <= 1; ++x)
          for (int y = 0; y <= 1; ++y)
            for (int z = 0; z <= 1; ++z) out.push_back({o[0] + c * x / 2, o[1] + c * y / 2, o[2] + c * z / 2});
        out.push_back({o[0] + c / 4, o[1] + c / 4, o[2] + c / 4});
      } else {
        out.push_back(o);
        Vec<HighPrecision> mid;
        for (std::size_t a = 0; a < 3; ++a) mid[a] = (node.hold_lo[a].high + node.hold_hi[a].high) / 2;
        out.push_back(mid);
        for (int corner = 0; corner < 8; ++corner)
          out.push_back({(corner & 1) ? node.hold_hi[0].high : node.hold_lo[0].high,
                         (corner & 2) ? node.hold_hi[1].high : node.hold_lo[1].high,
                         (corner & 4) ? node.hold_hi[2].high : node.hold_lo[2].high});
      }
      return;
    }
  }
}

Vec<HighPrecision> high_point(const FieldPoint& p) { return {HighPrecision(p[0]), HighPrecision(p[1]), HighPrecision(p[2])}; }

}  // namespace

FieldGeometry::FieldGeometry(const nlohmann::json& spec, DensityValues values)
    : root_(std::make_unique<Node>(read_node(spec, "", values))), lipschitz_(bound_of(*root_)) {}
FieldGeometry::~FieldGeometry() = default;
FieldGeometry::FieldGeometry(FieldGeometry&&) noexcept = default;
FieldGeometry& FieldGeometry::operator=(FieldGeometry&&) noexcept = default;

HighPrecision FieldGeometry::value(const FieldPoint& p) const { return evaluate(*root_, high_point(p), false).value; }
double FieldGeometry::value_double(const FieldPoint& p) const { return evaluate(*root_, p, false).value; }

Side FieldGeometry::membership(const FieldPoint& p) const { return evaluate(*root_, high_point(p), true).membership; }

FieldGeometry::Evaluation FieldGeometry::evaluate_with_membership(const FieldPoint& p) const {
  const Evaluated<HighPrecision> e = evaluate(*root_, high_point(p), true);
  return {e.value, e.membership};
}

HighPrecision FieldGeometry::lipschitz_bound() const { return lipschitz_; }

std::vector<FieldPoint> FieldGeometry::special_points() const {
  std::vector<Vec<HighPrecision>> high;
  add_special(*root_, high);
  std::vector<FieldPoint> out;
  for (const Vec<HighPrecision>& p : high) out.push_back({to_double(p[0]), to_double(p[1]), to_double(p[2])});
  return out;
}

}  // namespace distgrid::audit::reference
