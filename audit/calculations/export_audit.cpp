#include "export_audit.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>  // mkdtemp (POSIX)
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>
#include <nlohmann/json.hpp>
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/audit/reference/mesh_files.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/contour.hpp"
#include "distgrid/error.hpp"
#include "distgrid/mesh_io.hpp"

namespace distgrid::audit::calcs::export_audit {

namespace {

enum class Source { contour, far, random };
constexpr std::array<Source, 3> kSources{Source::contour, Source::far, Source::random};

const char* source_name(Source s) {
  return s == Source::contour ? "contour" : (s == Source::far ? "far" : "random");
}
const char* source_description(Source s) {
  switch (s) {
    case Source::contour: return "the first `inputs` triangles of the part's surface-nets mesh (at the origin)";
    case Source::far: return "the same triangles moved by the far offset (about 5e5 h per axis)";
    case Source::random:
      return "random corners: signs, significands and exponents 2^-16 .. 2^25 (|x|/h up to ~2e9), one in 16 a "
             "signed zero, with random normals; one mesh per run";
  }
  return "";
}

/// A scratch directory, removed with everything in it when this goes away.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "distgrid-audit-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr)
      throw Error(ErrorCode::badfile, "cannot create a temporary directory from " + pattern);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::badfile, path + ": cannot open the written file");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

reference::ParsedMesh parse(MeshFormat format, const std::string& bytes) {
  switch (format) {
    case MeshFormat::stl_binary: return reference::parse_binary_stl(bytes);
    case MeshFormat::stl_ascii: return reference::parse_ascii_stl(bytes);
    case MeshFormat::obj: return reference::parse_obj(bytes);
    case MeshFormat::ply_ascii:
    case MeshFormat::ply_binary: return reference::parse_ply(bytes);
  }
  throw Error(ErrorCode::badarg, "unknown mesh format");
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// The first `count` triangles of a mesh and the corners they use, renumbered
/// in order of first use (normals carried along).
TriangleMesh first_triangles(const TriangleMesh& mesh, std::size_t count) {
  TriangleMesh out;
  std::unordered_map<std::uint32_t, std::uint32_t> renumber;
  for (std::size_t t = 0; t < std::min(count, mesh.triangles.size()); ++t) {
    std::array<std::uint32_t, 3> tri{};
    for (std::size_t k = 0; k < 3; ++k) {
      const std::uint32_t old = mesh.triangles[t][k];
      auto [it, fresh] = renumber.emplace(old, static_cast<std::uint32_t>(out.positions.size()));
      if (fresh) {
        out.positions.push_back(mesh.positions[old]);
        if (!mesh.normals.empty()) out.normals.push_back(mesh.normals[old]);
      }
      tri[k] = it->second;
    }
    out.triangles.push_back(tri);
  }
  return out;
}

/// The random mesh: corner n from InputRng(seed, id, "random", n); triangles
/// (3m, 3m+1, 3m+2).
TriangleMesh random_mesh(std::uint64_t seed, std::string_view id, std::size_t inputs) {
  TriangleMesh mesh;
  const std::size_t corners = 3 * ((inputs + 2) / 3);
  for (std::size_t n = 0; n < corners; ++n) {
    InputRng rng(seed, id, "random", n);
    std::array<double, 3> p{}, normal{};
    for (double& x : p) {
      const double sign = rng.integer(0, 1) == 0 ? -1.0 : 1.0;
      const std::int64_t exponent = rng.integer(-16, 24);
      const double significand = 1 + rng.unit();
      x = rng.integer(0, 15) == 0 ? std::copysign(0.0, sign) : sign * std::ldexp(significand, static_cast<int>(exponent));
    }
    for (double& x : normal) x = rng.uniform(-1, 1);
    mesh.positions.push_back(p);
    mesh.normals.push_back(normal);
  }
  for (std::uint32_t m = 0; 3 * static_cast<std::size_t>(m) < corners; ++m) mesh.triangles.push_back({3 * m, 3 * m + 1, 3 * m + 2});
  return mesh;
}

/// One written number against its double: the position's error in h and ulps.
ErrorValue position_error(const std::array<double, 3>& read, const std::array<double, 3>& written, double h) {
  ErrorValue e;
  double sum = 0, worst = -1;
  for (std::size_t a = 0; a < 3; ++a) {
    const double d = std::fabs(read[a] - written[a]);
    sum += d * d;
    const double ulps = error_in_ulps(d, written[a], 0);
    e.ulps = std::fmax(e.ulps, ulps);
    if (d > worst) {
      worst = d;
      e.result = read[a];
      e.reference = written[a];
    }
  }
  e.abs = std::sqrt(sum);
  e.h = e.abs / h;
  return e;
}

/// Whether a facet normal read from an STL file is the unit normal of the triangle's
/// corners by the right-hand rule, (b - a) x (c - a) normalised, computed here in long
/// double. A near-degenerate triangle (|n| below 1e-8 of |b - a| |c - a|), whose
/// direction is rounding, passes; otherwise each component must agree within 1e-6
/// (float32 carries about 6e-8).
bool facet_normal_matches(const TriangleMesh& mesh, const std::array<std::uint32_t, 3>& t,
                          const std::array<double, 3>& read) {
  using L = long double;
  const auto& a = mesh.positions[t[0]];
  const auto& b = mesh.positions[t[1]];
  const auto& c = mesh.positions[t[2]];
  std::array<L, 3> u{}, v{};
  for (std::size_t k = 0; k < 3; ++k) {
    u[k] = static_cast<L>(b[k]) - static_cast<L>(a[k]);
    v[k] = static_cast<L>(c[k]) - static_cast<L>(a[k]);
  }
  const std::array<L, 3> n{u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
  const L length = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  const L scale = std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) * std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (!(length > 1e-8L * scale)) return true;
  for (std::size_t k = 0; k < 3; ++k)
    if (!(std::fabs(static_cast<L>(read[k]) - n[k] / length) <= 1e-6L)) return false;
  return true;
}

/// Comparison of one written file with the mesh it was written from.
struct FileCheck {
  std::vector<ErrorValue> errors;          ///< per position read (STL: per triangle corner) in the range
  std::vector<std::array<double, 3>> written;  ///< the mesh's position for each read one
  std::uint64_t mismatches = 0;            ///< numbers or indices that are not what an exact format must give
  std::uint64_t numbers = 0;               ///< numbers compared
  double max_h = 0;
};

/// The positions a file of `mesh` in `format` is compared at: STL writes each
/// triangle's corners, the indexed formats each position once.
std::size_t compared_positions(const TriangleMesh& mesh, MeshFormat format) {
  const bool stl = format == MeshFormat::stl_binary || format == MeshFormat::stl_ascii;
  return stl ? 3 * mesh.triangles.size() : mesh.positions.size();
}

/// Writes the whole mesh and reads it back, comparing the positions (and
/// normals) with index in `range` and, when `whole_file` is set, what belongs
/// to the file as a whole (the triangles, how many normals and positions were
/// read), so shards comparing disjoint ranges add up to one full comparison.
FileCheck check_file(const TriangleMesh& mesh, MeshFormat format, const TempDir& dir, double h,
                            InputRange range, bool whole_file) {
  const std::string path = dir.file("mesh");
  write_mesh(mesh, path, format);
  const reference::ParsedMesh read = parse(format, read_bytes(path));
  FileCheck check;
  const bool stl = format == MeshFormat::stl_binary || format == MeshFormat::stl_ascii;
  std::vector<std::array<double, 3>> expected;
  if (stl) {
    for (const auto& t : mesh.triangles)
      for (std::uint32_t corner : t) expected.push_back(mesh.positions[corner]);
    if (whole_file) {  // the facet normals, one per triangle
      if (read.normals.size() != mesh.triangles.size()) ++check.mismatches;
      for (std::size_t t = 0; t < std::min(read.normals.size(), mesh.triangles.size()); ++t) {
        check.numbers += 3;
        if (!facet_normal_matches(mesh, mesh.triangles[t], read.normals[t])) ++check.mismatches;
      }
    }
  } else {
    expected = mesh.positions;
    if (whole_file && read.triangles != mesh.triangles) ++check.mismatches;
    if (whole_file && read.normals.size() != mesh.normals.size()) ++check.mismatches;
    for (std::size_t v = range.first; v < std::min({range.last, read.normals.size(), mesh.normals.size()}); ++v)
      for (std::size_t a = 0; a < 3; ++a) {
        ++check.numbers;
        if (!same_bits(read.normals[v][a], mesh.normals[v][a])) ++check.mismatches;
      }
  }
  if (read.positions.size() != expected.size()) {
    if (whole_file) ++check.mismatches;
    return check;
  }
  for (std::size_t n = range.first; n < std::min(range.last, expected.size()); ++n) {
    for (std::size_t a = 0; a < 3; ++a) {
      ++check.numbers;
      const bool ok = format == MeshFormat::stl_binary
                          ? reference::nearest_float(expected[n][a], static_cast<float>(read.positions[n][a]))
                          : same_bits(read.positions[n][a], expected[n][a]);
      if (!ok) ++check.mismatches;
    }
    check.errors.push_back(position_error(read.positions[n], expected[n], h));
    check.max_h = std::fmax(check.max_h, *check.errors.back().h);
    check.written.push_back(expected[n]);
  }
  return check;
}

std::string stratum_name(Source source, const Format& format) {
  return std::string(source_name(source)) + "_" + format.name;
}

}  // namespace

std::vector<CalculationResult> run(const Spec& spec, RunContext& context) {
  const RunSettings& settings = context.settings();
  const TempDir dir;
  const TriangleMesh random = random_mesh(settings.seed, spec.id, settings.inputs);
  std::vector<CalculationResult> out;
  for (Storage storage : settings.storages) {
    CalculationResult r;
    r.storage = storage;
    r.error = ErrorStats(true, false);
    r.mismatches = 0;
    for (Source source : kSources)
      for (std::size_t f = 0; f < spec.format_count; ++f)
        r.strata.push_back({stratum_name(source, spec.formats[f]), source_description(source), 0, 0});
    nlohmann::json table = nlohmann::json::array();
    std::uint64_t numbers = 0;
    const auto add = [&](const TriangleMesh& mesh, Source source, std::size_t f, const std::string& part_name) {
      const Format& format = spec.formats[f];
      // Every shard writes and reads the whole file and compares its share of
      // the positions; shard 0 also counts the file's whole-file mismatches.
      const std::size_t count = compared_positions(mesh, format.format);
      const InputRange range = context.shard_inputs(count);
      const FileCheck check = check_file(mesh, format.format, dir, settings.h, range, settings.shard.index == 0);
      const std::string name = stratum_name(source, format);
      r.begin_unit(count);
      for (std::size_t k = 0; k < check.errors.size(); ++k)
        r.error.add(check.errors[k], [&] {
          const auto& p = check.written[k];
          return InputRecord{settings.seed, name, range.first + k, part_name,
                             {{"x", hex_float(p[0])}, {"y", hex_float(p[1])}, {"z", hex_float(p[2])}}};
        });
      *r.mismatches += check.mismatches;
      numbers += check.numbers;
      r.strata[static_cast<std::size_t>(source) * spec.format_count + f].count += check.errors.size();
      table.push_back({{"part", part_name.empty() ? nlohmann::json(nullptr) : nlohmann::json(part_name)},
                       {"generator", name},
                       {"positions", check.errors.size()},
                       {"numbers_compared", check.numbers},
                       {"mismatches", check.mismatches},
                       {"max_h", finite_or_null(check.max_h)}});
    };
    for (std::size_t p = 0; p < context.part_count(); ++p) {
      PartSubject& part = context.part(p);
      const TriangleMesh whole = with_storage(storage, [&]<class S>() { return contour(part.grid<S>(Placement::origin)).mesh; });
      const TriangleMesh near = first_triangles(whole, settings.inputs);
      TriangleMesh far = near;
      const std::array<double, 3> offset = part.far_offset();
      for (auto& q : far.positions)
        for (std::size_t a = 0; a < 3; ++a) q[a] += offset[a];
      for (std::size_t f = 0; f < spec.format_count; ++f) {
        add(near, Source::contour, f, part.part().name);
        add(far, Source::far, f, part.part().name);
      }
    }
    for (std::size_t f = 0; f < spec.format_count; ++f) add(random, Source::random, f, "");
    r.details = {{"by_part_and_generator", table},
                 {"numbers_compared", numbers},
                 {"facet_normals", "STL facet normals (derived by the writer from the corners) are checked "
                                   "against the unit normal of each triangle computed in long double: a component "
                                   "off by more than 1e-6 is a mismatch; near-degenerate triangles are not compared"},
                 {"null_means", "a NaN or infinite error; part null: the random mesh, which belongs to no part"}};
    out.push_back(std::move(r));
  }
  return out;
}

/// Writes the recorded position as a one-corner triangle in the generator's
/// format and reads it back: each number is formatted on its own, so this is
/// the run's number bit for bit.
std::vector<ReplayValue> replay(const Spec& spec, RunContext& context, const ReplayRequest& request) {
  const InputRecord& in = request.input;
  for (Source source : kSources)
    for (std::size_t f = 0; f < spec.format_count; ++f) {
      if (stratum_name(source, spec.formats[f]) != in.generator) continue;
      std::array<double, 3> p{};
      const char* names[3] = {"x", "y", "z"};
      for (std::size_t a = 0; a < 3; ++a) {
        bool found = false;
        for (const auto& [name, value] : in.values)
          if (name == names[a]) {
            p[a] = std::strtod(value.c_str(), nullptr);
            found = true;
          }
        if (!found) throw Error(ErrorCode::badarg, std::string(spec.id) + ": replay: the record has no " + names[a]);
      }
      TriangleMesh mesh;
      mesh.positions = {p};
      mesh.triangles = {{0, 0, 0}};
      const TempDir dir;
      const FileCheck check =
          check_file(mesh, spec.formats[f].format, dir, context.settings().h, {0, compared_positions(mesh, spec.formats[f].format)}, true);
      if (check.errors.empty()) throw Error(ErrorCode::badfile, std::string(spec.id) + ": replay: nothing read back");
      return {{"error", hex_float(check.errors[0].result), hex_float(check.errors[0].reference)}};
    }
  throw Error(ErrorCode::badarg, std::string(spec.id) + ": replay: unknown generator '" + in.generator + "'");
}

}  // namespace distgrid::audit::calcs::export_audit
