#include "grid_report.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <span>

#include "distgrid/brick_key.hpp"
#include "distgrid/interrupt.hpp"
#include "distgrid/memory_budget.hpp"
#include "tool_output.hpp"

namespace distgrid::tools {
namespace {

std::string interval_text(const nlohmann::json& lo, const nlohmann::json& hi) {
  std::string text;
  for (std::size_t a = 0; a < 3; ++a)
    text += (a == 0 ? "[" : " x [") + table_number(lo[a].get<double>()) + ", " + table_number(hi[a].get<double>()) + "]";
  return text;
}

std::string origin_text(const nlohmann::json& origin) {
  if (origin.is_null()) return "not recorded (a version 1 file)";
  if (origin.is_string()) return origin.get<std::string>();
  if (!origin.is_object()) return origin.dump();
  const auto text_of = [&](const char* key) {
    return origin.contains(key) && origin[key].is_string() ? origin[key].get<std::string>() : std::string();
  };
  std::string text = text_of("from") + " " + text_of("input");
  if (origin.contains("triangles") && origin["triangles"].is_number())
    text += " (" + std::to_string(origin["triangles"].get<std::uint64_t>()) + " triangles)";
  if (origin.contains("clip") && origin["clip"].is_array() && origin["clip"].size() == 6) {
    const nlohmann::json& c = origin["clip"];
    text += ", clipped to " + interval_text({c[0], c[1], c[2]}, {c[3], c[4], c[5]});
  }
  if (origin.contains("solid") && origin["solid"] == false) text += ", not a solid (baked with --allow-open)";
  if (!text_of("tool").empty()) text += ", by " + text_of("tool");
  return text;
}

}  // namespace

template <class S>
nlohmann::json grid_summary(const Grid<S>& grid) {
  nlohmann::json out;
  out["storage"] = storage_name<S>();
  out["h"] = grid.h();
  out["band"] = grid.band();
  out["band_width"] = grid.band_width();
  // The bound on each stored node's rounding (Grid::storage_bound): half an ulp at
  // band*h for float and half, 0 for double, the largest step / 2 for q16 and q8.
  out["stored_value_bound"] = {{"magnitude", grid.band_width()}, {"rounding", grid.storage_bound()}};
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (std::size_t slot = 0; slot < grid.stored_brick_count(); ++slot) {
    if (slot % 4096 == 0) throw_if_interrupted();
    const BrickView<S> values = grid.brick(slot);
    for (int n = 0; n < kBrickNodes; ++n) {
      lo = std::min(lo, values[n]);
      hi = std::max(hi, values[n]);
    }
  }
  out["value_range"] = grid.stored_brick_count() == 0 ? nlohmann::json(nullptr) : nlohmann::json{lo, hi};
  // Extent over stored and inside bricks; absent bricks are the rest of it.
  const std::optional<BrickExtent> extent = grid.extent();
  std::uint64_t in_extent = 0;
  if (extent) {
    in_extent = 1;
    for (std::size_t a = 0; a < 3; ++a) in_extent *= static_cast<std::uint64_t>(extent->hi[a] - extent->lo[a] + 1);
  }
  const std::uint64_t stored = grid.stored_brick_count(), inside = grid.inside_brick_count();
  out["bricks"] = {{"stored", stored}, {"inside", inside}, {"absent_in_extent", in_extent - stored - inside}};
  if (extent) {
    out["extent"] = {{"lo", extent->lo}, {"hi", extent->hi}};
    const Box world = *grid.world_box();
    out["world_box"] = {{"lo", world.lo}, {"hi", world.hi}};
  } else {
    out["extent"] = nullptr;
    out["world_box"] = nullptr;
  }
  out["memory_bytes"] = grid.memory_bytes();
  out["brick_bytes"] = grid.brick_bytes();
  return out;
}

std::string describe_grid(const nlohmann::json& info) {
  std::string text;
  auto line = [&](const char* label, const std::string& value) {
    char head[16];
    std::snprintf(head, sizeof head, "%-10s", label);
    text += head + value + "\n";
  };
  line("file", info["file"].get<std::string>());
  line("origin", origin_text(info["origin"]));
  line("storage", info["storage"].get<std::string>() + ", " + format_bytes(info["memory_bytes"].get<std::uint64_t>()) + " in memory");
  line("h", table_number(info["h"].get<double>()));
  line("band", table_number(info["band"].get<double>()) + " (band*h = " + table_number(info["band_width"].get<double>()) + ")");
  const double rounding = info["stored_value_bound"]["rounding"].get<double>();
  const std::string storage = info["storage"].get<std::string>();
  const std::string bound_rule = storage == "float"  ? "half a float ulp at band*h"
                                 : storage == "half" ? "half a binary16 ulp at band*h"
                                                     : "half the largest step of any brick";
  line("values", "stored within +-" + table_number(info["band_width"].get<double>()) + ", each " +
                     (rounding == 0 && storage == "double" ? std::string("exactly as computed (double)")
                      : rounding == 0 ? std::string("exactly as computed (every brick constant)")
                                      : "rounded by at most " + table_number(rounding) + " = " + hex_number(rounding) +
                                            " (" + bound_rule + ")"));
  const nlohmann::json& range = info["value_range"];
  line("range", range.is_null() ? std::string("no stored values")
                                : table_number(range[0].get<double>()) + " to " + table_number(range[1].get<double>()));
  const nlohmann::json& bricks = info["bricks"];
  line("bricks", std::to_string(bricks["stored"].get<std::uint64_t>()) + " stored, " +
                     std::to_string(bricks["inside"].get<std::uint64_t>()) + " inside, " +
                     std::to_string(bricks["absent_in_extent"].get<std::uint64_t>()) + " absent within the extent");
  if (info["extent"].is_null()) {
    line("extent", "empty");
  } else {
    const nlohmann::json &lo = info["extent"]["lo"], &hi = info["extent"]["hi"];
    std::string extent = "bricks";
    for (std::size_t a = 0; a < 3; ++a)
      extent += (a == 0 ? " [" : " x [") + std::to_string(lo[a].get<std::int64_t>()) + ", " +
                std::to_string(hi[a].get<std::int64_t>()) + "]";
    line("extent", extent);
    line("world box", interval_text(info["world_box"]["lo"], info["world_box"]["hi"]));
  }
  return text;
}

template <class S>
SampleMarks sample_marks(const Grid<S>& grid, const std::array<double, 3>& p, double value) {
  SampleMarks marks;
  // Stored nodes hold the clamp as the storage rounds it (within storage_bound of
  // band*h; float and half round it once, the same in every brick), absent and inside
  // bricks read band*h itself.
  double stored_clamp = grid.band_width() - grid.storage_bound();
  if constexpr (Grid<S>::kDirect)
    stored_clamp = std::fabs(Grid<S>::Model::decode(Grid<S>::Model::encode_node(grid.band_width()), {}));
  marks.clamped = std::fabs(value) >= std::min(grid.band_width(), stored_clamp);
  // The bricks of the eight corner nodes: floor(p / h) and the node after it, per axis.
  std::array<std::array<std::int64_t, 2>, 3> bricks{};
  for (std::size_t a = 0; a < 3; ++a) {
    const double f = p[a] / grid.h();
    if (!(std::fabs(f) < 4.0e15)) {
      marks.absent = true;  // beyond every brick
      return marks;
    }
    const auto node = static_cast<std::int64_t>(std::floor(f));
    bricks[a] = {brick_of_node(node), brick_of_node(node + 1)};
  }
  for (std::int64_t bx : bricks[0])
    for (std::int64_t by : bricks[1])
      for (std::int64_t bz : bricks[2]) {
        if (!brick_coord_in_range(bx) || !brick_coord_in_range(by) || !brick_coord_in_range(bz)) {
          marks.absent = true;
          continue;
        }
        const std::int64_t key = brick_key(bx, by, bz);
        if (grid.is_inside(key)) marks.inside = true;
        else if (!grid.find_slot(key)) marks.absent = true;
      }
  return marks;
}

namespace {

/// Writes the marks joined by commas, or "-" for none.
void put_marks(const SampleMarks& m, std::FILE* out) {
  const char* separator = "";
  for (const auto& [set, word] : {std::pair{m.clamped, "clamped"}, {m.absent, "absent"}, {m.inside, "inside"}})
    if (set) {
      std::fprintf(out, "%s%s", separator, word);
      separator = ",";
    }
  if (*separator == '\0') std::fputc('-', out);
}

}  // namespace

template <class S>
void write_samples(const Grid<S>& grid, const std::vector<std::array<double, 3>>& points, bool gradient, std::FILE* out) {
  // Chunks of the batch sampler, with a check for an interrupt between them.
  constexpr std::size_t kChunk = 65536;
  std::vector<double> values(points.size());
  for (std::size_t begin = 0; begin < points.size(); begin += kChunk) {
    throw_if_interrupted();
    const std::size_t count = std::min(kChunk, points.size() - begin);
    grid.sample_many(std::span<const std::array<double, 3>>(points).subspan(begin, count),
                     std::span<double>(values).subspan(begin, count));
  }
  GridAccessor<S> accessor(grid);
  for (std::size_t n = 0; n < points.size(); ++n) {
    if (n % kChunk == 0) throw_if_interrupted();
    std::fprintf(out, "%.17g ", values[n]);
    if (gradient) {
      const std::array<double, 3> g = accessor.gradient(points[n][0], points[n][1], points[n][2]);
      std::fprintf(out, "%.17g %.17g %.17g ", g[0], g[1], g[2]);
    }
    put_marks(sample_marks(grid, points[n], values[n]), out);
    std::fputc('\n', out);
  }
}

template <class S>
void print_sample(const Grid<S>& grid, const std::array<double, 3>& p, std::FILE* out) {
  const double value = grid.sample(p[0], p[1], p[2]);
  const std::array<double, 3> g = grid.gradient(p[0], p[1], p[2]);
  std::fprintf(out, "value     %s  (%s)\n", table_number(value).c_str(), hex_number(value).c_str());
  std::fprintf(out, "gradient  %s %s %s  (%s %s %s)\n", table_number(g[0]).c_str(), table_number(g[1]).c_str(),
               table_number(g[2]).c_str(), hex_number(g[0]).c_str(), hex_number(g[1]).c_str(), hex_number(g[2]).c_str());
  const SampleMarks m = sample_marks(grid, p, value);
  const std::string band = table_number(grid.band_width());
  if (m.clamped)
    std::fprintf(out, "note      clamped: |value| = band*h = %s; the surface is at least that far, the true distance is not stored\n",
                 band.c_str());
  if (m.absent)
    std::fprintf(out, "note      read from an absent brick (no surface within its band): it reads +band*h = %s\n", band.c_str());
  if (m.inside)
    std::fprintf(out, "note      read from an inside brick (wholly inside, deeper than the band): it reads -band*h = -%s\n",
                 band.c_str());
}

template nlohmann::json grid_summary<float>(const Grid<float>&);
template SampleMarks sample_marks<float>(const Grid<float>&, const std::array<double, 3>&, double);
template void write_samples<float>(const Grid<float>&, const std::vector<std::array<double, 3>>&, bool, std::FILE*);
template void print_sample<float>(const Grid<float>&, const std::array<double, 3>&, std::FILE*);
template nlohmann::json grid_summary<double>(const Grid<double>&);
template SampleMarks sample_marks<double>(const Grid<double>&, const std::array<double, 3>&, double);
template void write_samples<double>(const Grid<double>&, const std::vector<std::array<double, 3>>&, bool, std::FILE*);
template void print_sample<double>(const Grid<double>&, const std::array<double, 3>&, std::FILE*);
template nlohmann::json grid_summary<Half>(const Grid<Half>&);
template SampleMarks sample_marks<Half>(const Grid<Half>&, const std::array<double, 3>&, double);
template void write_samples<Half>(const Grid<Half>&, const std::vector<std::array<double, 3>>&, bool, std::FILE*);
template void print_sample<Half>(const Grid<Half>&, const std::array<double, 3>&, std::FILE*);
template nlohmann::json grid_summary<Q16>(const Grid<Q16>&);
template SampleMarks sample_marks<Q16>(const Grid<Q16>&, const std::array<double, 3>&, double);
template void write_samples<Q16>(const Grid<Q16>&, const std::vector<std::array<double, 3>>&, bool, std::FILE*);
template void print_sample<Q16>(const Grid<Q16>&, const std::array<double, 3>&, std::FILE*);
template nlohmann::json grid_summary<Q8>(const Grid<Q8>&);
template SampleMarks sample_marks<Q8>(const Grid<Q8>&, const std::array<double, 3>&, double);
template void write_samples<Q8>(const Grid<Q8>&, const std::vector<std::array<double, 3>>&, bool, std::FILE*);
template void print_sample<Q8>(const Grid<Q8>&, const std::array<double, 3>&, std::FILE*);

}  // namespace distgrid::tools
