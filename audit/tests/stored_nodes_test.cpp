// The audit's own decoding of stored codes and its bounds on a node's rounding,
// checked against values written out by hand (not against the core's decode).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>

#include "distgrid/audit/reference/stored_nodes.hpp"
#include "distgrid/audit/storage.hpp"
#include "distgrid/grid.hpp"

namespace distgrid::audit::reference {
namespace {

TEST(ReferenceDecode, ReadsBinary16BitsByHand) {
  EXPECT_EQ(reference_decode(Binary16{0x3C00}, DirectBrick{}), 1.0);         // exponent 15, significand 0
  EXPECT_EQ(reference_decode(Binary16{0xC000}, DirectBrick{}), -2.0);        // sign, exponent 16
  EXPECT_EQ(reference_decode(Binary16{0x3555}, DirectBrick{}), 0x1.554p-2);  // 1 + 0x155/1024, 2^-2
  EXPECT_EQ(reference_decode(Binary16{0x7BFF}, DirectBrick{}), 65504.0);     // the largest finite
  EXPECT_EQ(reference_decode(Binary16{0x0001}, DirectBrick{}), 0x1p-24);     // the smallest subnormal
  EXPECT_EQ(reference_decode(Binary16{0x03FF}, DirectBrick{}), 0x3FFp-24);   // the largest subnormal
  EXPECT_EQ(reference_decode(Binary16{0x0400}, DirectBrick{}), 0x1p-14);     // the smallest normal
  EXPECT_TRUE(std::signbit(reference_decode(Binary16{0x8000}, DirectBrick{})));
}

TEST(ReferenceDecode, ReadsALinearCodeAsOffsetPlusCodeSteps) {
  const LinearBrick brick{-0x1.8p-3, 0x1p-10};
  EXPECT_EQ(reference_decode(std::uint16_t{0}, brick), -0x1.8p-3);
  EXPECT_EQ(reference_decode(std::uint16_t{3}, brick), -0x1.8p-3 + 3 * 0x1p-10);
  EXPECT_EQ(reference_decode(std::uint8_t{255}, brick), -0x1.8p-3 + 255 * 0x1p-10);
  EXPECT_EQ(reference_decode(std::uint8_t{0}, LinearBrick{0.25, 0}), 0.25);  // a brick without codes
}

TEST(ReferenceNodeBound, IsHalfTheSpacingAtTheStoredValue) {
  EXPECT_EQ(reference_node_bound(1.0f, DirectBrick{}), 0x1p-24);  // float spacing 2^-23 in [1, 2)
  EXPECT_EQ(reference_node_bound(1.9f, DirectBrick{}), 0x1p-24);
  EXPECT_EQ(reference_node_bound(-0.75f, DirectBrick{}), 0x1p-25);
  EXPECT_EQ(reference_node_bound(0.0f, DirectBrick{}), 0x1p-150);   // within float's smallest spacing
  EXPECT_EQ(reference_node_bound(0x1p-140f, DirectBrick{}), 0x1p-150);  // subnormal
  EXPECT_EQ(reference_node_bound(Binary16{0x3C00}, DirectBrick{}), 0x1p-11);  // binary16 spacing 2^-10 at 1
  EXPECT_EQ(reference_node_bound(Binary16{0x0001}, DirectBrick{}), 0x1p-25);  // subnormal spacing 2^-24
  // The negative subnormal nearest zero holds the negative values too small for the
  // format (kept inside): its whole spacing.
  EXPECT_EQ(reference_node_bound(Binary16{0x8001}, DirectBrick{}), 0x1p-24);
  EXPECT_EQ(reference_node_bound(-0x1p-149f, DirectBrick{}), 0x1p-149);
  EXPECT_EQ(reference_node_bound(0x1p-149f, DirectBrick{}), 0x1p-150);
  EXPECT_EQ(reference_node_bound(0.5, DirectBrick{}), 0.0);                   // double keeps the value
  EXPECT_EQ(reference_node_bound(std::uint8_t{7}, LinearBrick{0, 0x1p-9}), 0x1p-10);
}

TEST(StorageUnitRoundoff, BoundsEveryStoragesRoundingRelativeToBandH) {
  const double band_width = 3.0 / 64;
  EXPECT_EQ(storage_unit_roundoff(Storage::float32, band_width), 0x1p-24 + 0x1p-149 / band_width);
  EXPECT_EQ(storage_unit_roundoff(Storage::float64, band_width), 0x1p-53);
  // Half: the relative 2^-11, and the subnormals' absolute 2^-24 over band h (at
  // -2^-24, which holds the negative values too small for binary16).
  EXPECT_EQ(storage_unit_roundoff(Storage::half, band_width), 0x1p-11 + 0x1p-24 / band_width);
  EXPECT_GT(storage_unit_roundoff(Storage::half, 0x1p-20), 0x1p-6);
  // Linear: half a step, the step at most (hi - lo) / C <= 2 band h / C.
  EXPECT_GT(storage_unit_roundoff(Storage::q16, band_width), 1.0 / 65535);
  EXPECT_LT(storage_unit_roundoff(Storage::q16, band_width), 1.0 / 65535 * (1 + 1e-9));
  EXPECT_GT(storage_unit_roundoff(Storage::q8, band_width), 1.0 / 255);
}

TEST(StorageNames, ParseWhatTheyPrintForEveryStorage) {
  for (Storage s : kAllStorages) EXPECT_EQ(parse_storage(storage_name(s)), s);
  EXPECT_EQ(storage_name(Storage::half), "half");
  EXPECT_EQ(storage_name(Storage::q8), "q8");
  EXPECT_FALSE(parse_storage("half16").has_value());
  EXPECT_FALSE(parse_storage("both").has_value());
}

TEST(StoredNodes, ReadsAQuantizedGridThroughTheReferenceDecoding) {
  Grid<Q8> grid(0.125, 3);
  std::array<double, kBrickNodes> values{};
  for (std::size_t n = 0; n < kBrickNodes; ++n) values[n] = -0.375 + 0.75 * static_cast<double>(n) / 511;
  grid.add_brick(brick_key(0, 0, 0), values);
  const StoredNodes<Q8> nodes(grid);
  const LinearBrick brick = grid.brick_parameters(0);
  for (std::size_t n = 0; n < kBrickNodes; n += 37) {
    const auto i = static_cast<std::int64_t>(n % 8), j = static_cast<std::int64_t>(n / 8 % 8),
               k = static_cast<std::int64_t>(n / 64);
    const double read = nodes.value(i, j, k);
    EXPECT_EQ(read, brick.offset + brick.step * grid.brick_codes(0)[n]) << "node " << n;
    EXPECT_LE(std::fabs(read - values[n]), brick.step / 2) << "node " << n;
  }
  EXPECT_EQ(nodes.value(8, 0, 0), 0.375);  // no brick: +band h
}

}  // namespace
}  // namespace distgrid::audit::reference
