// .dgrid layout, version 3, all numbers little-endian:
//   offset  size      field
//   0       8         magic "DGRID\r\n\x1a" (catches text-mode and truncation mangling)
//   8       4  u32    format version (3)
//   12      4  u32    storage id (Storage<S>::kFileId): 1 float, 2 double, 3 half, 4 q16, 5 q8
//   16      8  f64    h
//   24      8  f64    band (voxels)
//   32      8  u64    stored brick count B
//   40      8  u64    inside brick count I
//   48      8  u64    origin length N (bytes)
//   56      N         origin: where the grid came from (the tools write JSON), not interpreted here
//   ...     8B i64    stored brick keys (slot order)
//   ...     8I i64    inside brick keys
//   ...     16B       q16 and q8 only: each stored brick's offset and step (f64 each), slot order
//   ...               node codes, brick after brick, n = i + 8j + 64k, 512 codes of the
//                     storage's code size (4, 8, 2, 2, 1 bytes) per brick; q16 and q8
//                     write none for a brick whose step is 0
//   end-8   8  u64    FNV-1a 64 checksum of every byte before it
// Versions 1 and 2 are still read: byte 12 holds the scalar's size (4 float, 8
// double) and version 1 has no origin length and text (keys from byte 48).
#include "distgrid/grid_io.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <optional>
#include <span>
#include <string_view>
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
constexpr std::uint32_t kVersion = 3;
constexpr std::size_t kHeaderBytes = 48;  // up to the counts; versions 2 and 3 add the origin after it

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

/// Where a grid's body starts and what the header says about it.
struct Header {
  double h, band;
  std::uint64_t stored, inside;
  std::size_t keys_at;
};

template <class S>
AnyGrid read_grid_body(std::span<const unsigned char> bytes, const std::string& path, const Header& header) {
  using Model = StorageOf<S>;
  using Code = typename Model::Code;
  Grid<S> grid = [&] {
    try {
      return Grid<S>(header.h, header.band);
    } catch (const Error& e) {
      bad_file(path, std::string("header at byte 16: ") + e.what());
    }
  }();
  const double band_width = grid.band_width();
  const std::uint64_t stored = header.stored, inside = header.inside;
  // Sizes, checked against the file before anything is sized from the counts: first
  // up to the codes, then (once the linear bricks' parameters say which store codes)
  // the whole.
  const std::uint64_t size = bytes.size();
  const std::uint64_t parameter_bytes = Model::kDirect ? 0 : sizeof(LinearBrick);
  // A stored brick takes its key, parameters and (direct storages always) its codes.
  const std::uint64_t per_brick = 8 + parameter_bytes + (Model::kDirect ? kBrickNodes * sizeof(Code) : 0);
  const auto disagree = [&] {
    bad_file(path, "brick counts at bytes 32-47 (" + std::to_string(stored) + " stored, " + std::to_string(inside) +
                       " inside) disagree with the file size " + std::to_string(size) + " (truncated or corrupt)");
  };
  if (stored > size / per_brick || inside > size / 8 || header.keys_at + stored * per_brick + inside * 8 + 8 > size)
    disagree();  // (the counts are below the size, so nothing here wraps)
  const std::size_t parameters_at = header.keys_at + static_cast<std::size_t>(8 * (stored + inside));
  std::size_t at = parameters_at + static_cast<std::size_t>(parameter_bytes * stored);
  std::uint64_t coded = stored;  // bricks that store codes
  if constexpr (!Model::kDirect) {
    coded = 0;
    for (std::uint64_t n = 0; n < stored; ++n)
      coded += get<double>(bytes, parameters_at + static_cast<std::size_t>(16 * n) + 8) != 0 ? 1u : 0u;
  }
  if (at + coded * kBrickNodes * sizeof(Code) + 8 != size) disagree();
  check_memory_budget(stored, inside, kMaxBrickBytes<S>, default_memory_budget(), path);
  const auto checksum = get<std::uint64_t>(bytes, static_cast<std::size_t>(size - 8));
  if (checksum != fnv1a(bytes.data(), static_cast<std::size_t>(size - 8)))
    bad_file(path, "checksum at byte " + std::to_string(size - 8) + " does not match the content (corrupt)");

  grid.reserve(stored, inside);
  std::size_t key_at = header.keys_at;
  auto read_key = [&](const char* what) {
    const auto key = get<std::int64_t>(bytes, key_at);
    if (!brick_key_valid(key))
      bad_file(path, std::string("invalid ") + what + " key " + std::to_string(key) + " at byte " + std::to_string(key_at));
    return key;
  };
  std::array<Code, kBrickNodes> codes;  // every entry read before use
  try {
    for (std::uint64_t n = 0; n < stored; ++n, key_at += 8) {
      typename Model::Brick brick{};
      const std::size_t brick_at = parameters_at + static_cast<std::size_t>(16 * n);
      if constexpr (!Model::kDirect) {
        brick = {get<double>(bytes, brick_at), get<double>(bytes, brick_at + 8)};
        if (!std::isfinite(brick.offset) || !std::isfinite(brick.step) || !(brick.step >= 0))
          bad_file(path, "brick parameters at byte " + std::to_string(brick_at) +
                             " are not a finite offset and a finite step >= 0");
      }
      const std::size_t codes_at = at;
      const bool has_codes = Model::stores_codes(brick);
      if (has_codes) {
        std::memcpy(codes.data(), bytes.data() + at, sizeof(Code) * kBrickNodes);
        at += sizeof(Code) * kBrickNodes;
      }
      for (int m = 0; m < kBrickNodes; ++m) {
        const Code code = has_codes ? codes[static_cast<std::size_t>(m)] : Code{};
        bool number = true;
        if constexpr (std::is_same_v<S, Half>) number = (code.bits & 0x7C00u) != 0x7C00u;
        const double v = Model::decode(code, brick);
        // A linear brick reads each node within its step / 2, also beyond the clamp.
        if (!number || !(std::fabs(v) <= band_width * (1 + 1e-6) + (Model::kDirect ? 0 : Model::node_bound(brick, v))))
          bad_file(path, "node value " + std::to_string(v) + " at byte " +
                             (has_codes ? std::to_string(codes_at + static_cast<std::size_t>(m) * sizeof(Code))
                                        : std::to_string(brick_at)) +
                             " is not a number within +-band*h");
      }
      grid.add_encoded_brick(read_key("brick"), brick,
                             has_codes ? std::span<const Code>(codes) : std::span<const Code>());
    }
    for (std::uint64_t n = 0; n < inside; ++n, key_at += 8) grid.add_inside(read_key("inside brick"));
    grid.pack();  // reserve() made room for every brick's codes
  } catch (const Error& e) {
    if (e.code() == ErrorCode::badfile) throw;
    bad_file(path, std::string("before byte ") + std::to_string(key_at) + ": " + e.what());
  }
  return AnyGrid(std::move(grid));
}

}  // namespace

template <class S>
void save_grid(const Grid<S>& grid, const std::string& path, std::string_view origin) {
  using Model = StorageOf<S>;
  using Code = typename Model::Code;
  check_output_path(path);
  std::vector<unsigned char> bytes;
  const std::size_t stored = grid.stored_brick_count(), inside = grid.inside_brick_count();
  bytes.reserve(kHeaderBytes + 8 + origin.size() + 8 * (stored + inside) + grid.brick_bytes() + 8);
  bytes.insert(bytes.end(), kMagic, kMagic + 8);
  put<std::uint32_t>(bytes, kVersion);
  put<std::uint32_t>(bytes, Model::kFileId);
  put<double>(bytes, grid.h());
  put<double>(bytes, grid.band());
  put<std::uint64_t>(bytes, stored);
  put<std::uint64_t>(bytes, inside);
  put<std::uint64_t>(bytes, origin.size());
  bytes.insert(bytes.end(), origin.begin(), origin.end());
  for (std::int64_t key : grid.stored_keys()) put<std::int64_t>(bytes, key);
  for (std::int64_t key : grid.inside_keys()) put<std::int64_t>(bytes, key);
  if constexpr (!Model::kDirect)
    for (std::size_t slot = 0; slot < stored; ++slot) {
      put<double>(bytes, grid.brick_parameters(slot).offset);
      put<double>(bytes, grid.brick_parameters(slot).step);
    }
  for (std::size_t slot = 0; slot < stored; ++slot) {
    if (!Model::stores_codes(grid.brick_parameters(slot))) continue;
    const auto* codes = reinterpret_cast<const unsigned char*>(grid.brick_codes(slot));
    bytes.insert(bytes.end(), codes, codes + kBrickNodes * sizeof(Code));
  }
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
  if (version < 1 || version > kVersion)
    bad_file(path, "format version " + std::to_string(version) + " at byte 8 (this build reads versions 1 to 3)");
  // Versions 1 and 2 name the storage by its scalar's size.
  const auto storage = get<std::uint32_t>(bytes, 12);
  std::uint32_t id = storage;
  if (version < 3) {
    if (storage != 4 && storage != 8)
      bad_file(path, "storage size " + std::to_string(storage) + " at byte 12 (4 float or 8 double)");
    id = storage == 4 ? Storage<float>::kFileId : Storage<double>::kFileId;
  }
  Header header{get<double>(bytes, 16), get<double>(bytes, 24), get<std::uint64_t>(bytes, 32),
                get<std::uint64_t>(bytes, 40), kHeaderBytes};
  if (version >= 2) {
    if (size < kHeaderBytes + 16) bad_file(path, "truncated: " + std::to_string(size) + " bytes, shorter than the header");
    const auto origin_bytes = get<std::uint64_t>(bytes, kHeaderBytes);
    if (origin_bytes > size - kHeaderBytes - 16)
      bad_file(path, "origin length " + std::to_string(origin_bytes) + " at byte 48 runs past the end of the file (" +
                         std::to_string(size) + " bytes)");
    header.keys_at = kHeaderBytes + 8 + static_cast<std::size_t>(origin_bytes);
    if (origin) origin->assign(file_bytes.substr(kHeaderBytes + 8, static_cast<std::size_t>(origin_bytes)));
  } else if (origin) {
    origin->clear();
  }
  std::optional<AnyGrid> grid;
  const auto read = [&]<class S>() {
    if (Storage<S>::kFileId == id) grid.emplace(read_grid_body<S>(bytes, path, header));
  };
  read.template operator()<float>();
  read.template operator()<double>();
  read.template operator()<Half>();
  read.template operator()<Q16>();
  read.template operator()<Q8>();
  if (!grid)
    bad_file(path, "storage id " + std::to_string(id) + " at byte 12 (1 float, 2 double, 3 half, 4 q16, 5 q8)");
  return std::move(*grid);
}

AnyGrid load_grid(const std::string& path, std::string* origin) { return parse_grid(read_file(path), path, origin); }

template void save_grid<float>(const Grid<float>&, const std::string&, std::string_view);
template void save_grid<double>(const Grid<double>&, const std::string&, std::string_view);
template void save_grid<Half>(const Grid<Half>&, const std::string&, std::string_view);
template void save_grid<Q16>(const Grid<Q16>&, const std::string&, std::string_view);
template void save_grid<Q8>(const Grid<Q8>&, const std::string&, std::string_view);

}  // namespace distgrid
