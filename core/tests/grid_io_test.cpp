#include "distgrid/grid_io.hpp"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstdio>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

#include "distgrid/error.hpp"
#include "support/scratch_dir.hpp"

namespace distgrid {
namespace {

namespace fs = std::filesystem;

class GridIoTest : public distgrid::test_support::ScratchDirTest {
 protected:
  static std::vector<char> read_bytes(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  static void write_bytes(const std::string& p, const std::vector<char>& bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }

  template <class S>
  static Grid<S> sample_grid() {
    Grid<S> grid(0.0625, 3);
    for (std::int64_t b = -2; b < 2; ++b) {
      S* values = grid.add_brick(brick_key(b, -b, 1));
      for (int n = 0; n < kBrickNodes; ++n)
        values[n] = static_cast<S>(0.1875 * std::sin(0.1 * n + static_cast<double>(b)));
    }
    grid.add_inside(brick_key(7, 7, 7));
    return grid;
  }

  static void expect_badfile(const std::string& p, const std::string& needle) {
    try {
      (void)load_grid(p);
      FAIL() << "loaded " << p;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::badfile);
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
    }
  }

};

std::uint64_t fnv1a(const std::vector<char>& bytes, std::size_t size);

/// Codes and parameters of every stored brick equal, bit for bit.
template <class S>
void expect_same_encoding(const Grid<S>& a, const Grid<S>& b) {
  EXPECT_EQ(a.h(), b.h());
  EXPECT_EQ(a.band(), b.band());
  ASSERT_EQ(a.stored_keys(), b.stored_keys());
  EXPECT_EQ(a.inside_keys(), b.inside_keys());
  for (std::size_t slot = 0; slot < a.stored_brick_count(); ++slot) {
    if constexpr (!Grid<S>::kDirect) {
      EXPECT_EQ(std::bit_cast<std::uint64_t>(a.brick_parameters(slot).offset),
                std::bit_cast<std::uint64_t>(b.brick_parameters(slot).offset)) << slot;
      EXPECT_EQ(std::bit_cast<std::uint64_t>(a.brick_parameters(slot).step),
                std::bit_cast<std::uint64_t>(b.brick_parameters(slot).step)) << slot;
    }
    EXPECT_EQ(std::memcmp(a.brick_codes(slot), b.brick_codes(slot), kBrickNodes * sizeof(typename Grid<S>::Code)), 0) << slot;
  }
  EXPECT_EQ(a.brick_bytes(), b.brick_bytes());
}

TEST_F(GridIoTest, SaveAndLoadRoundTripsFloatAndDoubleBitForBit) {
  const Grid<float> f = sample_grid<float>();
  const Grid<double> d = sample_grid<double>();
  save_grid(f, path("f.dgrid"));
  save_grid(d, path("d.dgrid"));
  AnyGrid lf = load_grid(path("f.dgrid"));
  AnyGrid ld = load_grid(path("d.dgrid"));
  ASSERT_TRUE(std::holds_alternative<Grid<float>>(lf));
  ASSERT_TRUE(std::holds_alternative<Grid<double>>(ld));
  expect_same_encoding(f, std::get<Grid<float>>(lf));
  expect_same_encoding(d, std::get<Grid<double>>(ld));
  EXPECT_EQ(std::get<Grid<double>>(ld).volume(), d.volume());
}

template <class S>
class GridIoStorageTest : public GridIoTest {};
using Storages = ::testing::Types<float, double, Half, Q16, Q8>;
TYPED_TEST_SUITE(GridIoStorageTest, Storages);

TYPED_TEST(GridIoStorageTest, EveryStorageRoundTripsBitForBitAndKeepsItsId) {
  Grid<TypeParam> grid(0.0625, 3);
  std::array<double, kBrickNodes> values;
  for (std::int64_t b = -2; b < 2; ++b) {
    for (int n = 0; n < kBrickNodes; ++n)
      values[static_cast<std::size_t>(n)] = 0.1875 * std::sin(0.1 * n + static_cast<double>(b));
    grid.add_brick(brick_key(b, -b, 1), values);
  }
  values.fill(0.1875);  // all equal: q16 and q8 store no codes
  grid.add_brick(brick_key(5, 5, 5), values);
  grid.add_inside(brick_key(7, 7, 7));
  const std::string file = this->path("g.dgrid");
  save_grid(grid, file);
  const std::vector<char> bytes = this->read_bytes(file);
  std::uint32_t version = 0, id = 0;
  std::memcpy(&version, bytes.data() + 8, 4);
  std::memcpy(&id, bytes.data() + 12, 4);
  EXPECT_EQ(version, 3u);
  EXPECT_EQ(id, Storage<TypeParam>::kFileId);
  const AnyGrid loaded = load_grid(file);
  ASSERT_TRUE(std::holds_alternative<Grid<TypeParam>>(loaded));
  const Grid<TypeParam>& back = std::get<Grid<TypeParam>>(loaded);
  expect_same_encoding(grid, back);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(back.volume()), std::bit_cast<std::uint64_t>(grid.volume()));
  EXPECT_EQ(std::bit_cast<std::uint64_t>(back.sample(0.1, -0.3, 0.7)), std::bit_cast<std::uint64_t>(grid.sample(0.1, -0.3, 0.7)));
  // Saving what was loaded writes the same bytes.
  save_grid(back, this->path("again.dgrid"));
  EXPECT_EQ(this->read_bytes(this->path("again.dgrid")), bytes);
}

TYPED_TEST(GridIoStorageTest, RefusesCorruptCodesAndParameters) {
  Grid<TypeParam> grid(0.0625, 3);
  std::array<double, kBrickNodes> values;
  for (int n = 0; n < kBrickNodes; ++n) values[static_cast<std::size_t>(n)] = 0.1875 * std::cos(0.3 * n);
  grid.add_brick(brick_key(0, 0, 0), values);
  save_grid(grid, this->path("g.dgrid"));
  std::vector<char> bytes = this->read_bytes(this->path("g.dgrid"));
  const std::size_t body = 56 + 8;  // no origin, one key
  if constexpr (Grid<TypeParam>::kDirect) {
    // The first node's code set to a large number (float, double) or infinity (half).
    const std::size_t code = sizeof(typename Grid<TypeParam>::Code);
    for (std::size_t k = 0; k < code; ++k) bytes[body + k] = 0;
    bytes[body + code - 1] = static_cast<char>(0x7C);  // exponent bits high in every format
  } else {
    const double huge = 1e300;
    std::memcpy(bytes.data() + body + 8, &huge, 8);  // the step
  }
  const std::uint64_t checksum = fnv1a(bytes, bytes.size() - 8);
  std::memcpy(bytes.data() + bytes.size() - 8, &checksum, 8);
  this->write_bytes(this->path("bad.dgrid"), bytes);
  this->expect_badfile(this->path("bad.dgrid"), "not a number within +-band*h");
  // A linear brick whose step is 0 stores no codes: a file with them is the wrong size.
  if constexpr (!Grid<TypeParam>::kDirect) {
    std::vector<char> flat = this->read_bytes(this->path("g.dgrid"));
    const double zero = 0;
    std::memcpy(flat.data() + body + 8, &zero, 8);
    const std::uint64_t sum = fnv1a(flat, flat.size() - 8);
    std::memcpy(flat.data() + flat.size() - 8, &sum, 8);
    this->write_bytes(this->path("flat.dgrid"), flat);
    this->expect_badfile(this->path("flat.dgrid"), "disagree with the file size");
  }
}

TEST_F(GridIoTest, SavingLeavesNoTemporaryFileBehind) {
  save_grid(sample_grid<float>(), path("g.dgrid"));
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    ++files;
    EXPECT_EQ(entry.path().filename(), "g.dgrid");
  }
  EXPECT_EQ(files, 1u);
}

TEST_F(GridIoTest, SavingIntoAMissingDirectoryFailsAsBadFile) {
  try {
    save_grid(sample_grid<float>(), path("missing/g.dgrid"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::badfile);
  }
  EXPECT_FALSE(fs::exists(path("missing")));
}

TEST_F(GridIoTest, AFailedSaveKeepsTheOldFile) {
  save_grid(sample_grid<float>(), path("g.dgrid"));
  const std::vector<char> before = read_bytes(path("g.dgrid"));
  // A directory where the temporary file would go makes the write fail.
  fs::create_directories(path("g.dgrid") + ".tmp." + std::to_string(::getpid()));
  EXPECT_THROW(save_grid(sample_grid<double>(), path("g.dgrid")), Error);
  EXPECT_EQ(read_bytes(path("g.dgrid")), before);
}

TEST_F(GridIoTest, RefusesMissingTruncatedAndCorruptFiles) {
  expect_badfile(path("none.dgrid"), "cannot open");
  save_grid(sample_grid<float>(), path("good.dgrid"));
  const std::vector<char> good = read_bytes(path("good.dgrid"));

  write_bytes(path("empty.dgrid"), {});
  expect_badfile(path("empty.dgrid"), "truncated");

  std::vector<char> cut(good.begin(), good.end() - 100);
  write_bytes(path("cut.dgrid"), cut);
  expect_badfile(path("cut.dgrid"), "disagree with the file size");

  std::vector<char> magic = good;
  magic[0] = 'X';
  write_bytes(path("magic.dgrid"), magic);
  expect_badfile(path("magic.dgrid"), "magic");

  std::vector<char> version = good;
  version[8] = 9;
  write_bytes(path("version.dgrid"), version);
  expect_badfile(path("version.dgrid"), "version 9");

  std::vector<char> storage = good;
  storage[12] = 9;
  write_bytes(path("storage.dgrid"), storage);
  expect_badfile(path("storage.dgrid"), "storage id 9");

  std::vector<char> huge = good;
  huge[39] = 0x7f;  // stored count's top byte: a count no file could hold
  write_bytes(path("huge.dgrid"), huge);
  expect_badfile(path("huge.dgrid"), "disagree with the file size");

  std::vector<char> flipped = good;
  flipped[good.size() / 2] ^= 0x10;
  write_bytes(path("flipped.dgrid"), flipped);
  expect_badfile(path("flipped.dgrid"), "checksum");
}

/// FNV-1a 64 over the bytes, the checksum a .dgrid ends with.
std::uint64_t fnv1a(const std::vector<char>& bytes, std::size_t size) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (std::size_t n = 0; n < size; ++n) {
    hash ^= static_cast<unsigned char>(bytes[n]);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

TEST_F(GridIoTest, KeepsTheOriginTextAndStillReadsVersionOneFiles) {
  const std::string origin = R"({"tool": "distgrid test", "from": "part", "input": "sphere"})";
  save_grid(sample_grid<float>(), path("g.dgrid"), origin);
  std::string read_back = "not set";
  expect_same_encoding(sample_grid<float>(), std::get<Grid<float>>(load_grid(path("g.dgrid"), &read_back)));
  EXPECT_EQ(read_back, origin);
  // The same grid as version 1 wrote it: no origin length and text after the counts.
  std::vector<char> bytes = read_bytes(path("g.dgrid"));
  bytes.erase(bytes.begin() + 48, bytes.begin() + 56 + static_cast<std::ptrdiff_t>(origin.size()));
  bytes[8] = 1;
  bytes[12] = 4;  // the scalar's size, where version 3 writes the storage id
  const std::uint64_t checksum = fnv1a(bytes, bytes.size() - 8);
  std::memcpy(bytes.data() + bytes.size() - 8, &checksum, 8);
  write_bytes(path("v1.dgrid"), bytes);
  expect_same_encoding(sample_grid<float>(), std::get<Grid<float>>(load_grid(path("v1.dgrid"), &read_back)));
  EXPECT_EQ(read_back, "");
}

TEST_F(GridIoTest, StillReadsVersionTwoFilesAndTheirScalarSizes) {
  const std::string origin = R"({"tool": "distgrid test"})";
  for (const bool single : {true, false}) {
    const std::string file = path(single ? "f.dgrid" : "d.dgrid");
    if (single)
      save_grid(sample_grid<float>(), file, origin);
    else
      save_grid(sample_grid<double>(), file, origin);
    // Version 2 wrote the same layout for float and double, with the scalar's size
    // (4 or 8) where version 3 writes the storage id.
    std::vector<char> bytes = read_bytes(file);
    bytes[8] = 2;
    bytes[12] = single ? 4 : 8;
    const std::uint64_t checksum = fnv1a(bytes, bytes.size() - 8);
    std::memcpy(bytes.data() + bytes.size() - 8, &checksum, 8);
    write_bytes(path("v2.dgrid"), bytes);
    std::string read_back;
    const AnyGrid loaded = load_grid(path("v2.dgrid"), &read_back);
    EXPECT_EQ(read_back, origin);
    if (single)
      expect_same_encoding(sample_grid<float>(), std::get<Grid<float>>(loaded));
    else
      expect_same_encoding(sample_grid<double>(), std::get<Grid<double>>(loaded));
    // A version 2 file names no other scalar size.
    bytes[12] = 2;
    const std::uint64_t again = fnv1a(bytes, bytes.size() - 8);
    std::memcpy(bytes.data() + bytes.size() - 8, &again, 8);
    write_bytes(path("v2bad.dgrid"), bytes);
    expect_badfile(path("v2bad.dgrid"), "storage size 2");
  }
}

TEST_F(GridIoTest, RefusesAnOriginLengthPastTheEnd) {
  save_grid(sample_grid<double>(), path("g.dgrid"), "origin");
  std::vector<char> bytes = read_bytes(path("g.dgrid"));
  bytes[48 + 6] = 0x10;  // the length's seventh byte: far beyond the file
  write_bytes(path("long.dgrid"), bytes);
  expect_badfile(path("long.dgrid"), "origin length");
}

TEST_F(GridIoTest, RefusesAFolderAsTheFileToWriteOrRead) {
  fs::create_directories(path("folder"));
  for (const std::string& target : {path("folder"), path("folder") + "/"}) {
    try {
      save_grid(sample_grid<float>(), target);
      ADD_FAILURE() << target;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::badarg) << target;
      EXPECT_NE(std::string(e.what()).find("is a folder"), std::string::npos) << e.what();
    }
  }
  try {
    (void)load_grid(path("folder"));
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::badarg);
    EXPECT_NE(std::string(e.what()).find(path("folder") + ": is a folder"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace distgrid
