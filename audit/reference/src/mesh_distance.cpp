#include "distgrid/audit/reference/mesh_distance.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>

#include <mpfr.h>

namespace distgrid::audit::reference {

Rational to_rational(const HighPrecision& x) {
  using boost::multiprecision::mpz_int;
  if (x == 0) return Rational(0);
  mpz_int mantissa;
  const mpfr_exp_t exponent = mpfr_get_z_2exp(mantissa.backend().data(), x.backend().data());
  Rational r(mantissa);
  if (exponent > 0) mpq_mul_2exp(r.backend().data(), r.backend().data(), static_cast<mp_bitcnt_t>(exponent));
  if (exponent < 0) mpq_div_2exp(r.backend().data(), r.backend().data(), static_cast<mp_bitcnt_t>(-exponent));
  return r;
}

namespace {

constexpr double kUnitRoundoff = 0x1p-53;
constexpr double kInfinity = std::numeric_limits<double>::infinity();
/// The most cells of either grid per axis: bounds the memory of a large mesh at a small reach.
constexpr std::int64_t kMostCellsPerAxis = 1024;

/// Whether ab x ac is exactly zero (a zero-area triangle).
bool zero_area(const TriangleCorners& t) {
  RationalPoint ab, ac;
  for (std::size_t a = 0; a < 3; ++a) {
    ab[a] = Rational(t[1][a]) - Rational(t[0][a]);
    ac[a] = Rational(t[2][a]) - Rational(t[0][a]);
  }
  return ab[1] * ac[2] == ab[2] * ac[1] && ab[2] * ac[0] == ab[0] * ac[2] && ab[0] * ac[1] == ab[1] * ac[0];
}

/// Six times the enclosed volume, exactly: the sum of a . (b x c) over the triangles.
Rational six_volume(const std::vector<TriangleCorners>& triangles) {
  Rational sum(0);
  for (const TriangleCorners& t : triangles) {
    const RationalPoint a = to_rational(t[0]), b = to_rational(t[1]), c = to_rational(t[2]);
    sum += a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
  }
  return sum;
}

/// One axis of a uniform grid: the cell of a coordinate, clamped to the grid.
struct Axis {
  double origin = 0, width = 1;
  std::int64_t count = 1;
  std::int64_t cell(double x) const {
    const double c = std::floor((x - origin) / width);
    return static_cast<std::int64_t>(std::clamp(c, 0.0, static_cast<double>(count - 1)));
  }
};

Axis make_axis(double lo, double hi, double width) {
  Axis a;
  a.origin = lo;
  a.width = std::max(width, (hi - lo) / static_cast<double>(kMostCellsPerAxis - 1));
  a.count = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor((hi - lo) / a.width)) + 1);
  return a;
}

}  // namespace

MeshDistance::MeshDistance(std::vector<TriangleCorners> triangles, double reach)
    : triangles_(std::move(triangles)), reach_(reach) {
  if (!(reach > 0) || !std::isfinite(reach)) throw std::invalid_argument("MeshDistance: reach must be finite and > 0");
  if (triangles_.empty()) throw std::invalid_argument("MeshDistance: no triangles");
  lo_ = {kInfinity, kInfinity, kInfinity};
  hi_ = {-kInfinity, -kInfinity, -kInfinity};
  zero_area_.reserve(triangles_.size());
  for (const TriangleCorners& t : triangles_) {
    for (const Point& p : t)
      for (std::size_t a = 0; a < 3; ++a) {
        lo_[a] = std::min(lo_[a], p[a]);
        hi_[a] = std::max(hi_[a], p[a]);
      }
    zero_area_.push_back(zero_area(t));
    std::array<double, 4> ball{};
    for (std::size_t a = 0; a < 3; ++a) ball[a] = (t[0][a] + t[1][a] + t[2][a]) / 3;
    for (const Point& c : t) {
      double squared = 0;
      for (std::size_t a = 0; a < 3; ++a) squared += (c[a] - ball[a]) * (c[a] - ball[a]);
      ball[3] = std::max(ball[3], std::sqrt(squared));
    }
    // Rounded up by far more than the centroid's and the radius's rounding.
    ball[3] = ball[3] * (1 + 1e-9) + 1e-12 * (std::fabs(ball[0]) + std::fabs(ball[1]) + std::fabs(ball[2]));
    balls_.push_back(ball);
  }
  outward_ = six_volume(triangles_) >= 0;

  for (std::size_t a = 0; a < 3; ++a) size_ = std::max({size_, std::fabs(lo_[a]), std::fabs(hi_[a])});

  // Coarse cells a little wider than reach over the box grown by reach, so the
  // 27 cells around a point list every triangle within reach of it; fine cells
  // about two triangles wide (but no narrower than an eighth of reach).
  double edges = 0;
  for (const TriangleCorners& t : triangles_)
    for (std::size_t c = 0; c < 3; ++c) {
      double squared = 0;
      for (std::size_t a = 0; a < 3; ++a) squared += (t[(c + 1) % 3][a] - t[c][a]) * (t[(c + 1) % 3][a] - t[c][a]);
      edges += std::sqrt(squared);
    }
  const double mean_edge = edges / static_cast<double>(3 * triangles_.size());
  fill_cells(coarse_, reach * (1 + 0x1p-20));
  fill_cells(fine_, std::max(reach / 8, 2 * mean_edge));

  // The ray grid: columns over (y, z) of the box, each listing the triangles
  // whose (y, z) box meets it.
  std::array<Axis, 2> columns;
  for (std::size_t a = 0; a < 2; ++a) {
    columns[a] = make_axis(lo_[a + 1], hi_[a + 1], reach);
    columns_[a] = columns[a].count;
  }
  column_width_ = {columns[0].width, columns[1].width};
  const auto for_columns = [&](const TriangleCorners& t, auto&& visit) {
    std::array<std::int64_t, 2> from{}, to{};
    for (std::size_t a = 0; a < 2; ++a) {
      from[a] = columns[a].cell(std::min({t[0][a + 1], t[1][a + 1], t[2][a + 1]}));
      to[a] = columns[a].cell(std::max({t[0][a + 1], t[1][a + 1], t[2][a + 1]}));
    }
    for (std::int64_t z = from[1]; z <= to[1]; ++z)
      for (std::int64_t y = from[0]; y <= to[0]; ++y) visit(static_cast<std::size_t>(z * columns_[0] + y));
  };
  column_start_.assign(static_cast<std::size_t>(columns_[0] * columns_[1]) + 1, 0);
  for (const TriangleCorners& t : triangles_) for_columns(t, [&](std::size_t c) { ++column_start_[c + 1]; });
  for (std::size_t c = 1; c < column_start_.size(); ++c) column_start_[c] += column_start_[c - 1];
  column_triangles_.resize(column_start_.back());
  {
    std::vector<std::uint32_t> fill(column_start_.begin(), column_start_.end() - 1);
    for (std::size_t n = 0; n < triangles_.size(); ++n)
      for_columns(triangles_[n], [&](std::size_t c) { column_triangles_[fill[c]++] = static_cast<std::uint32_t>(n); });
  }
}

void MeshDistance::fill_cells(Cells& cells, double width) const {
  std::array<Axis, 3> axes;
  for (std::size_t a = 0; a < 3; ++a) {
    axes[a] = make_axis(lo_[a] - reach_, hi_[a] + reach_, width);
    cells.origin[a] = axes[a].origin;
    cells.count[a] = axes[a].count;
  }
  // One width for every axis: the widest any axis needed for its cell limit.
  cells.width = std::max({axes[0].width, axes[1].width, axes[2].width});
  for (std::size_t a = 0; a < 3; ++a) {
    axes[a].width = cells.width;
    axes[a].count = std::max<std::int64_t>(
        1, static_cast<std::int64_t>(std::floor((hi_[a] + reach_ - axes[a].origin) / cells.width)) + 1);
    cells.count[a] = axes[a].count;
  }
  const auto for_cells = [&](const TriangleCorners& t, auto&& visit) {
    std::array<std::int64_t, 3> from{}, to{};
    for (std::size_t a = 0; a < 3; ++a) {
      from[a] = axes[a].cell(std::min({t[0][a], t[1][a], t[2][a]}));
      to[a] = axes[a].cell(std::max({t[0][a], t[1][a], t[2][a]}));
    }
    for (std::int64_t z = from[2]; z <= to[2]; ++z)
      for (std::int64_t y = from[1]; y <= to[1]; ++y)
        for (std::int64_t x = from[0]; x <= to[0]; ++x) visit(cells.index(x, y, z));
  };
  cells.start.assign(static_cast<std::size_t>(cells.count[0] * cells.count[1] * cells.count[2]) + 1, 0);
  for (const TriangleCorners& t : triangles_) for_cells(t, [&](std::size_t c) { ++cells.start[c + 1]; });
  for (std::size_t c = 1; c < cells.start.size(); ++c) cells.start[c] += cells.start[c - 1];
  cells.items.resize(cells.start.back());
  std::vector<std::uint32_t> fill(cells.start.begin(), cells.start.end() - 1);
  for (std::size_t n = 0; n < triangles_.size(); ++n)
    for_cells(triangles_[n], [&](std::size_t c) { cells.items[fill[c]++] = static_cast<std::uint32_t>(n); });
}

double MeshDistance::nearest(const Point& p, double slack,
                             std::vector<std::pair<std::uint32_t, double>>* within) const {
  const auto cell_of = [&](const Cells& cells, std::size_t a) {
    return std::floor((p[a] - cells.origin[a]) / cells.width);
  };
  // Any triangle within reach lies in the 27 coarse cells around p.
  bool any = false;
  {
    std::array<std::int64_t, 3> from{}, to{};
    for (std::size_t a = 0; a < 3; ++a) {
      const double c = cell_of(coarse_, a);
      if (!(c >= -1) || !(c <= static_cast<double>(coarse_.count[a]))) return kInfinity;
      from[a] = std::max<std::int64_t>(0, static_cast<std::int64_t>(c) - 1);
      to[a] = std::min<std::int64_t>(coarse_.count[a] - 1, static_cast<std::int64_t>(c) + 1);
    }
    for (std::int64_t z = from[2]; z <= to[2] && !any; ++z)
      for (std::int64_t y = from[1]; y <= to[1] && !any; ++y)
        for (std::int64_t x = from[0]; x <= to[0] && !any; ++x) {
          const std::size_t c = coarse_.index(x, y, z);
          any = coarse_.start[c + 1] > coarse_.start[c];
        }
  }
  if (!any) return kInfinity;
  // Rings of fine cells around p's: after ring m, every triangle not yet seen
  // is at least m cell widths away.
  thread_local std::vector<std::pair<std::uint32_t, double>> seen;
  seen.clear();
  const std::array<std::int64_t, 3> centre{static_cast<std::int64_t>(cell_of(fine_, 0)),
                                           static_cast<std::int64_t>(cell_of(fine_, 1)),
                                           static_cast<std::int64_t>(cell_of(fine_, 2))};
  double least = kInfinity;
  const auto visit = [&](std::int64_t x, std::int64_t y, std::int64_t z) {
    if (x < 0 || y < 0 || z < 0 || x >= fine_.count[0] || y >= fine_.count[1] || z >= fine_.count[2]) return;
    const std::size_t c = fine_.index(x, y, z);
    for (std::uint32_t k = fine_.start[c]; k < fine_.start[c + 1]; ++k) {
      const std::uint32_t n = fine_.items[k];
      const std::array<double, 4>& ball = balls_[n];
      const double cx = p[0] - ball[0], cy = p[1] - ball[1], cz = p[2] - ball[2];
      const double bound = least + slack + ball[3];
      if (cx * cx + cy * cy + cz * cz > bound * bound * (1 + 1e-9)) continue;  // farther than least + slack
      const TriangleCorners& t = triangles_[n];
      const double d = std::sqrt(approximate_distance_squared(p, t[0], t[1], t[2]));
      least = std::min(least, d);
      if (within) seen.emplace_back(n, d);
    }
  };
  const auto rings = static_cast<std::int64_t>(std::ceil((reach_ + slack) / fine_.width)) + 1;
  for (std::int64_t m = 0; m <= rings; ++m) {
    for (std::int64_t dz = -m; dz <= m; ++dz)
      for (std::int64_t dy = -m; dy <= m; ++dy) {
        const bool face = dz == -m || dz == m || dy == -m || dy == m;
        if (face) {
          for (std::int64_t dx = -m; dx <= m; ++dx) visit(centre[0] + dx, centre[1] + dy, centre[2] + dz);
        } else {
          visit(centre[0] - m, centre[1] + dy, centre[2] + dz);
          if (m > 0) visit(centre[0] + m, centre[1] + dy, centre[2] + dz);
        }
      }
    if (least + slack <= static_cast<double>(m) * fine_.width) break;
  }
  if (!(least <= reach_ * (1 + 0x1p-20))) return kInfinity;
  if (within) {
    within->clear();
    for (const auto& [n, d] : seen)
      if (d <= least + slack) within->emplace_back(n, d);
  }
  return least;
}

Side MeshDistance::parity_side(const RationalPoint* q, const Point& rounded) const {
  // A ray outside the box's (y, z) extent meets no triangle.
  for (std::size_t a = 1; a < 3; ++a)
    if (rounded[a] < lo_[a] || rounded[a] > hi_[a]) {
      if (std::nextafter(rounded[a], -kInfinity) > hi_[a] || std::nextafter(rounded[a], kInfinity) < lo_[a])
        return Side::outside;
    }
  // The columns the exact (y, z) may lie in: the rounded value's neighbours bracket it.
  std::array<std::int64_t, 2> from{}, to{};
  for (std::size_t a = 0; a < 2; ++a) {
    const double origin = lo_[a + 1];
    const auto cell = [&](double x) {
      const double c = std::floor((x - origin) / column_width_[a]);
      return static_cast<std::int64_t>(std::clamp(c, 0.0, static_cast<double>(columns_[a] - 1)));
    };
    from[a] = cell(std::nextafter(rounded[a + 1], -kInfinity));
    to[a] = cell(std::nextafter(rounded[a + 1], kInfinity));
  }
  std::vector<std::uint32_t> listed;
  for (std::int64_t z = from[1]; z <= to[1]; ++z)
    for (std::int64_t y = from[0]; y <= to[0]; ++y) {
      const auto c = static_cast<std::size_t>(z * columns_[0] + y);
      listed.insert(listed.end(), column_triangles_.begin() + column_start_[c],
                    column_triangles_.begin() + column_start_[c + 1]);
    }
  std::sort(listed.begin(), listed.end());
  listed.erase(std::unique(listed.begin(), listed.end()), listed.end());

  // How far the rounded point may be from q per axis (0 for a point of doubles).
  Point slack{};
  if (q)
    for (std::size_t a = 0; a < 3; ++a) {
      const Rational off = (*q)[a] - Rational(rounded[a]);
      slack[a] = off == 0 ? 0 : std::fabs(off.convert_to<double>()) * (1 + 0x1p-40);
    }
  const double qy = rounded[1], qz = rounded[2], qx = rounded[0];
  const double gamma = 4 * kUnitRoundoff;  // above Shewchuk's (3 + 16 u) u for a 2 x 2 determinant
  std::size_t beyond = 0;
  // A triangle the doubles cannot decide is decided exactly, alone: the
  // perturbation of exact_crossings is the same per triangle, and where every
  // edge function is clearly non-zero the perturbed signs are the plain ones.
  std::optional<RationalPoint> exact_q;
  const auto exactly = [&](const TriangleCorners& t) {
    if (!exact_q) exact_q = q ? *q : to_rational(rounded);
    for (const Rational& x : exact_crossings((*exact_q)[1], (*exact_q)[2], {t})) {
      if (x == (*exact_q)[0]) return false;  // on the surface: reported below
      if (x > (*exact_q)[0]) ++beyond;
    }
    return true;
  };
  bool on_surface = false;
  for (std::uint32_t n : listed) {
    const TriangleCorners& t = triangles_[n];
    std::array<double, 3> w{}, bound{};
    for (std::size_t e = 0; e < 3; ++e) {
      const Point& b = t[(e + 1) % 3];
      const Point& c = t[(e + 2) % 3];
      const double by = b[1] - qy, bz = b[2] - qz, cy = c[1] - qy, cz = c[2] - qz;
      w[e] = by * cz - bz * cy;
      const double size = std::fabs(by * cz) + std::fabs(bz * cy);
      // The error of w in double, and how much w can move between the rounded point and q.
      bound[e] = 2 * (gamma * size + slack[1] * (std::fabs(bz) + std::fabs(cz) + slack[2]) +
                      slack[2] * (std::fabs(by) + std::fabs(cy) + slack[1])) +
                 0x1p-1000;
    }
    if (std::fabs(w[0]) <= bound[0] || std::fabs(w[1]) <= bound[1] || std::fabs(w[2]) <= bound[2]) {
      on_surface = on_surface || !exactly(t);
      continue;
    }
    if ((w[0] > 0) != (w[1] > 0) || (w[1] > 0) != (w[2] > 0)) continue;  // the ray misses the triangle
    // w[e] weighs the corner opposite edge e, that is corner e: x = sum w_e x_e / sum w_e.
    const double total = w[0] + w[1] + w[2];
    const double numerator = w[0] * t[0][0] + w[1] * t[1][0] + w[2] * t[2][0];
    const double x = numerator / total;
    double numerator_error = 0, total_error = 0, terms = 0;
    for (std::size_t e = 0; e < 3; ++e) {
      numerator_error += bound[e] * std::fabs(t[e][0]);
      total_error += bound[e];
      terms += std::fabs(w[e] * t[e][0]);
    }
    numerator_error += 4 * kUnitRoundoff * terms;
    total_error += 4 * kUnitRoundoff * std::fabs(total);
    const double x_error =
        2 * ((numerator_error + std::fabs(x) * total_error) / (std::fabs(total) - total_error) +
             kUnitRoundoff * std::fabs(x)) + slack[0];
    if (!(std::fabs(total) > 2 * total_error) || !(std::fabs(x - qx) > x_error)) {
      on_surface = on_surface || !exactly(t);
      continue;
    }
    if (x > qx) ++beyond;
  }
  if (on_surface) return Side::surface;
  return beyond % 2 == 1 ? Side::inside : Side::outside;
}

double MeshDistance::approximate(const Point& p) const {
  const double least = nearest(p, 0, nullptr);
  const Side side = parity_side(nullptr, p);
  if (side == Side::surface) return 0;
  const double magnitude = least <= reach_ ? least : 2 * reach_;
  return side == Side::inside ? -magnitude : magnitude;
}

void MeshDistance::approximate_brick(std::int64_t i0, std::int64_t j0, std::int64_t k0, double h, double* out) const {
  // The triangles within reach of the brick's box: in the coarse cells it meets, grown by one.
  std::array<std::int64_t, 3> from{}, to{};
  std::array<double, 3> lo{}, hi{};
  const std::array<std::int64_t, 3> first{i0, j0, k0};
  bool any_cell = true;
  for (std::size_t a = 0; a < 3; ++a) {
    lo[a] = static_cast<double>(first[a]) * h;
    hi[a] = static_cast<double>(first[a] + 7) * h;
    const double c_lo = std::floor((lo[a] - coarse_.origin[a]) / coarse_.width) - 1;
    const double c_hi = std::floor((hi[a] - coarse_.origin[a]) / coarse_.width) + 1;
    from[a] = static_cast<std::int64_t>(std::max(c_lo, 0.0));
    to[a] = static_cast<std::int64_t>(std::min(c_hi, static_cast<double>(coarse_.count[a] - 1)));
    any_cell = any_cell && c_hi >= 0 && c_lo <= static_cast<double>(coarse_.count[a] - 1);
  }
  std::vector<std::uint32_t> near;
  if (any_cell)
    for (std::int64_t z = from[2]; z <= to[2]; ++z)
      for (std::int64_t y = from[1]; y <= to[1]; ++y)
        for (std::int64_t x = from[0]; x <= to[0]; ++x) {
          const std::size_t c = coarse_.index(x, y, z);
          near.insert(near.end(), coarse_.items.begin() + coarse_.start[c], coarse_.items.begin() + coarse_.start[c + 1]);
        }
  std::sort(near.begin(), near.end());
  near.erase(std::unique(near.begin(), near.end()), near.end());
  // Nearest to the brick's centre first, so the balls soon spare most of the others.
  const Point centre{(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2};
  const auto centre_distance = [&](std::uint32_t n) {
    const std::array<double, 4>& b = balls_[n];
    return (centre[0] - b[0]) * (centre[0] - b[0]) + (centre[1] - b[1]) * (centre[1] - b[1]) +
           (centre[2] - b[2]) * (centre[2] - b[2]);
  };
  std::sort(near.begin(), near.end(),
            [&](std::uint32_t a, std::uint32_t b) { return centre_distance(a) < centre_distance(b); });
  for (std::int64_t n = 0; n < 512; ++n) {
    const Point p{static_cast<double>(i0 + (n & 7)) * h, static_cast<double>(j0 + ((n >> 3) & 7)) * h,
                  static_cast<double>(k0 + (n >> 6)) * h};
    double least = kInfinity;
    for (std::uint32_t t : near) {
      const std::array<double, 4>& ball = balls_[t];
      const double cx = p[0] - ball[0], cy = p[1] - ball[1], cz = p[2] - ball[2];
      const double bound = least + ball[3];
      if (cx * cx + cy * cy + cz * cz > bound * bound * (1 + 1e-9)) continue;
      const TriangleCorners& tri = triangles_[t];
      least = std::min(least, std::sqrt(approximate_distance_squared(p, tri[0], tri[1], tri[2])));
    }
    // As approximate(): beyond reach (nothing within it in the 27 coarse cells around p) is 2 reach.
    if (!(least <= reach_ * (1 + 0x1p-20))) least = kInfinity;
    const Side side = parity_side(nullptr, p);
    out[n] = side == Side::surface ? 0.0 : (side == Side::inside ? -1.0 : 1.0) * (least <= reach_ ? least : 2 * reach_);
  }
}

HighPrecision MeshDistance::exact(const RationalPoint& q) const {
  const Point rounded{q[0].convert_to<double>(), q[1].convert_to<double>(), q[2].convert_to<double>()};
  const auto beyond_reach = [&] {
    const Side side = parity_side(&q, rounded);
    return HighPrecision(side == Side::inside ? -2 * reach_ : 2 * reach_);
  };
  // Far wider than the double distances' rounding (a few 1e-16 of the mesh's
  // size) and than rounding q to doubles.
  const double slack = 1e-9 * (reach_ + size_);
  thread_local std::vector<std::pair<std::uint32_t, double>> near;
  const double least = nearest(rounded, slack, &near);
  if (!(least <= reach_ * (1 + 0x1p-20))) return beyond_reach();
  // The candidates, each once (a triangle is listed in every cell it meets).
  std::vector<std::uint32_t> candidates;
  for (const auto& [n, d] : near)
    if (!zero_area_[n]) candidates.push_back(n);  // a zero-area triangle's points lie on its neighbours' edges
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  HighPrecision best(-1);
  std::size_t best_triangle = 0;
  Feature best_feature = Feature::face;
  for (std::uint32_t n : candidates) {
    const TriangleCorners& t = triangles_[n];
    const ExactClosestPoint closest = exact_closest_point(q, t[0], t[1], t[2]);
    if (best < 0 || closest.distance_squared < best) {
      best = closest.distance_squared;
      best_triangle = n;
      best_feature = closest.feature;
    }
  }
  if (best < 0) return beyond_reach();
  if (best == 0) return HighPrecision(0);
  const HighPrecision distance = sqrt(best);
  if (distance > HighPrecision(reach_)) return beyond_reach();
  Side side;
  if (best_feature == Feature::face) {
    // Inside the face: p - a along the normal says the side exactly.
    const TriangleCorners& t = triangles_[best_triangle];
    const RationalPoint a = to_rational(t[0]);
    RationalPoint ab, ac, ap;
    for (std::size_t axis = 0; axis < 3; ++axis) {
      ab[axis] = Rational(t[1][axis]) - a[axis];
      ac[axis] = Rational(t[2][axis]) - a[axis];
      ap[axis] = q[axis] - a[axis];
    }
    const Rational along = ap[0] * (ab[1] * ac[2] - ab[2] * ac[1]) + ap[1] * (ab[2] * ac[0] - ab[0] * ac[2]) +
                           ap[2] * (ab[0] * ac[1] - ab[1] * ac[0]);
    side = (along > 0) == outward_ ? Side::outside : Side::inside;
  } else {
    side = parity_side(&q, rounded);
  }
  return side == Side::inside ? HighPrecision(-distance) : distance;
}


}  // namespace distgrid::audit::reference
