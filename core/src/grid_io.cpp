// .dgrid layout, version 2, all numbers little-endian:
//   offset  size      field
//   0       8         magic "DGRID\r\n\x1a" (catches text-mode and truncation mangling)
//   8       4  u32    format version (2)
//   12      4  u32    storage scalar size in bytes: 4 float, 8 double
//   16      8  f64    h
//   24      8  f64    band (voxels)
//   32      8  u64    stored brick count B
//   40      8  u64    inside brick count I
//   48      8  u64    origin length N (bytes)
//   56      N         origin: where the grid came from (the tools write JSON), not interpreted here
//   ...     8B i64    stored brick keys (slot order)
//   ...     8I i64    inside brick keys
//   ...     512*B*s   node values, brick after brick, n = i + 8j + 64k
//   end-8   8  u64    FNV-1a 64 checksum of every byte before it
// Version 1 is the same without the origin length and text (keys from byte 48); it
// is still read.
#include "distgrid/grid_io.hpp"

#include <bit>
#include <span>
#include <string_view>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

#include "distgrid/error.hpp"
#include "distgrid/file_io.hpp"
#include "distgrid/interrupt.hpp"
#include "distgrid/memory_budget.hpp"

namespace distgrid {

namespace {

constexpr char kMagic[8] = {'D', 'G', 'R', 'I', 'D', '\r', '\n', '\x1a'};
constexpr std::uint32_t kVersion = 2;
constexpr std::size_t kHeaderBytes = 48;  // up to the counts; version 2 adds the origin after it

static_assert(std::endian::native == std::endian::little,
              "grid_io writes the host's bytes; add byte swapping for big-endian hosts");

/// Checks for an interrupt every MiB: a large grid takes a second to hash.
std::uint64_t fnv1a(const unsigned char* data, std::size_t size) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (std::size_t n = 0; n < size; ++n) {
    if (n % (std::size_t{1} << 20) == 0) throw_if_interrupted();
    hash ^= data[n];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

template <class T>
void put(std::vector<unsigned char>& out, T value) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.insert(out.end(), bytes, bytes + sizeof(T));
}

template <class T>
T get(std::span<const unsigned char> in, std::size_t offset) {
  T value;
  std::memcpy(&value, in.data() + offset, sizeof(T));
  return value;
}

[[noreturn]] void bad_file(const std::string& path, const std::string& what) {
  throw Error(ErrorCode::badfile, path + ": " + what);
}

template <class S>
AnyGrid read_grid_body(std::span<const unsigned char> bytes, const std::string& path, double h,
                       double band, std::uint64_t stored, std::uint64_t inside, std::size_t keys_at) {
  Grid<S> grid = [&] {
    try {
      return Grid<S>(h, band);
    } catch (const Error& e) {
      bad_file(path, std::string("header at byte 16: ") + e.what());
    }
  }();
  const double band_width = grid.band_width();
  grid.reserve(stored, inside);
  std::size_t at = keys_at;
  std::vector<S*> targets;
  targets.reserve(stored);
  auto read_key = [&](const char* what) {
    const auto key = get<std::int64_t>(bytes, at);
    if (!brick_key_valid(key))
      bad_file(path, std::string("invalid ") + what + " key " + std::to_string(key) + " at byte " + std::to_string(at));
    return key;
  };
  try {
    for (std::uint64_t n = 0; n < stored; ++n, at += 8) targets.push_back(grid.add_brick_for_overwrite(read_key("brick")));
    for (std::uint64_t n = 0; n < inside; ++n, at += 8) grid.add_inside(read_key("inside brick"));
  } catch (const Error& e) {
    if (e.code() == ErrorCode::badfile) throw;
    bad_file(path, std::string("before byte ") + std::to_string(at) + ": " + e.what());
  }
  for (S* target : targets) {
    std::memcpy(target, bytes.data() + at, sizeof(S) * kBrickNodes);
    for (int n = 0; n < kBrickNodes; ++n) {
      const auto v = static_cast<double>(target[n]);
      if (!(std::fabs(v) <= band_width * (1 + 1e-6)))
        bad_file(path, "node value " + std::to_string(v) + " at byte " +
                           std::to_string(at + static_cast<std::size_t>(n) * sizeof(S)) +
                           " is not a number within +-band*h");
    }
    at += sizeof(S) * kBrickNodes;
  }
  return AnyGrid(std::move(grid));
}

}  // namespace

template <class S>
void save_grid(const Grid<S>& grid, const std::string& path, std::string_view origin) {
  check_output_path(path);
  std::vector<unsigned char> bytes;
  const std::size_t stored = grid.stored_brick_count(), inside = grid.inside_brick_count();
  bytes.reserve(kHeaderBytes + 8 + origin.size() + 8 * (stored + inside) + stored * kBrickNodes * sizeof(S) + 8);
  bytes.insert(bytes.end(), kMagic, kMagic + 8);
  put<std::uint32_t>(bytes, kVersion);
  put<std::uint32_t>(bytes, sizeof(S));
  put<double>(bytes, grid.h());
  put<double>(bytes, grid.band());
  put<std::uint64_t>(bytes, stored);
  put<std::uint64_t>(bytes, inside);
  put<std::uint64_t>(bytes, origin.size());
  bytes.insert(bytes.end(), origin.begin(), origin.end());
  for (std::int64_t key : grid.stored_keys()) put<std::int64_t>(bytes, key);
  for (std::int64_t key : grid.inside_keys()) put<std::int64_t>(bytes, key);
  const auto* values = reinterpret_cast<const unsigned char*>(grid.brick_values(0));
  bytes.insert(bytes.end(), values, values + stored * kBrickNodes * sizeof(S));
  put<std::uint64_t>(bytes, fnv1a(bytes.data(), bytes.size()));

  replace_file(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

AnyGrid parse_grid(std::string_view file_bytes, const std::string& path, std::string* origin) {
  const std::span<const unsigned char> bytes(reinterpret_cast<const unsigned char*>(file_bytes.data()),
                                             file_bytes.size());
  const std::uint64_t size = bytes.size();
  if (size < kHeaderBytes + 8)
    bad_file(path, "truncated: " + std::to_string(size) + " bytes, shorter than the 48-byte header and checksum");

  if (std::memcmp(bytes.data(), kMagic, 8) != 0) bad_file(path, "not a .dgrid file (magic at byte 0)");
  const auto version = get<std::uint32_t>(bytes, 8);
  if (version != 1 && version != 2)
    bad_file(path, "format version " + std::to_string(version) + " at byte 8 (this build reads versions 1 and 2)");
  const auto scalar = get<std::uint32_t>(bytes, 12);
  if (scalar != 4 && scalar != 8)
    bad_file(path, "storage size " + std::to_string(scalar) + " at byte 12 (4 float or 8 double)");
  const auto stored = get<std::uint64_t>(bytes, 32);
  const auto inside = get<std::uint64_t>(bytes, 40);
  std::uint64_t keys_at = kHeaderBytes;
  if (version == 2) {
    if (size < kHeaderBytes + 16) bad_file(path, "truncated: " + std::to_string(size) + " bytes, shorter than the header");
    const auto origin_bytes = get<std::uint64_t>(bytes, kHeaderBytes);
    if (origin_bytes > size - kHeaderBytes - 16)
      bad_file(path, "origin length " + std::to_string(origin_bytes) + " at byte 48 runs past the end of the file (" +
                         std::to_string(size) + " bytes)");
    keys_at = kHeaderBytes + 8 + origin_bytes;
    if (origin) origin->assign(file_bytes.substr(kHeaderBytes + 8, static_cast<std::size_t>(origin_bytes)));
  } else if (origin) {
    origin->clear();
  }
  // Expected size, checked against the file before anything is sized from the counts.
  const std::uint64_t brick_bytes = 8 + std::uint64_t{kBrickNodes} * scalar;
  const std::uint64_t limit = size;
  if (stored > limit / brick_bytes || inside > limit / 8 ||
      keys_at + stored * brick_bytes + inside * 8 + 8 != size)
    bad_file(path, "brick counts at bytes 32-47 (" + std::to_string(stored) + " stored, " +
                       std::to_string(inside) + " inside) disagree with the file size " +
                       std::to_string(size) + " (truncated or corrupt)");
  check_memory_budget(stored, inside, scalar, default_memory_budget(), path);
  const auto checksum = get<std::uint64_t>(bytes, static_cast<std::size_t>(size - 8));
  if (checksum != fnv1a(bytes.data(), static_cast<std::size_t>(size - 8)))
    bad_file(path, "checksum at byte " + std::to_string(size - 8) + " does not match the content (corrupt)");
  const auto h = get<double>(bytes, 16);
  const auto band = get<double>(bytes, 24);
  const auto at = static_cast<std::size_t>(keys_at);
  return scalar == 4 ? read_grid_body<float>(bytes, path, h, band, stored, inside, at)
                     : read_grid_body<double>(bytes, path, h, band, stored, inside, at);
}

AnyGrid load_grid(const std::string& path, std::string* origin) { return parse_grid(read_file(path), path, origin); }

template void save_grid<float>(const Grid<float>&, const std::string&, std::string_view);
template void save_grid<double>(const Grid<double>&, const std::string&, std::string_view);

}  // namespace distgrid
