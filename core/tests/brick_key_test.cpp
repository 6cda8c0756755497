#include "distgrid/brick_key.hpp"

#include <gtest/gtest.h>

#include <cstdint>

#include "distgrid/error.hpp"

namespace distgrid {
namespace {

TEST(BrickKey, RoundTripsAtEveryRangeEdge) {
  const std::int64_t edges[] = {kMinBrickCoord, kMinBrickCoord + 1, -1, 0, 1, kMaxBrickCoord - 1,
                                kMaxBrickCoord};
  for (std::int64_t x : edges)
    for (std::int64_t y : edges)
      for (std::int64_t z : edges) {
        const std::int64_t key = brick_key(x, y, z);
        EXPECT_TRUE(brick_key_valid(key));
        EXPECT_EQ(brick_of(key), (BrickCoord{x, y, z})) << x << ' ' << y << ' ' << z;
      }
}

TEST(BrickKey, IsBelowTwoToThe51AndExactAsADouble) {
  const std::int64_t top = brick_key(kMaxBrickCoord, kMaxBrickCoord, kMaxBrickCoord);
  EXPECT_EQ(top, (std::int64_t{1} << 51) - 1);
  EXPECT_EQ(static_cast<std::int64_t>(static_cast<double>(top)), top);
  EXPECT_EQ(brick_key(kMinBrickCoord, kMinBrickCoord, kMinBrickCoord), 0);
}

TEST(BrickKey, OrdersByXThenYThenZ) {
  EXPECT_LT(brick_key(0, 5, 5), brick_key(1, -5, -5));
  EXPECT_LT(brick_key(0, 0, 5), brick_key(0, 1, -5));
  EXPECT_LT(brick_key(0, 0, 0), brick_key(0, 0, 1));
}

TEST(BrickKey, RefusesCoordinatesOutsideTheRangeAsTooLarge) {
  for (std::int64_t bad : {kMinBrickCoord - 1, kMaxBrickCoord + 1, std::int64_t{1} << 40}) {
    try {
      (void)brick_key_checked(0, bad, 0);
      FAIL() << "accepted " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::toolarge);
      EXPECT_NE(std::string(e.what()).find(std::to_string(bad)), std::string::npos);
    }
  }
  EXPECT_EQ(brick_key_checked(kMaxBrickCoord, 0, kMinBrickCoord),
            brick_key(kMaxBrickCoord, 0, kMinBrickCoord));
}

TEST(BrickKey, NodeToBrickIsFloorDivisionByEight) {
  EXPECT_EQ(brick_of_node(0), 0);
  EXPECT_EQ(brick_of_node(7), 0);
  EXPECT_EQ(brick_of_node(8), 1);
  EXPECT_EQ(brick_of_node(-1), -1);
  EXPECT_EQ(brick_of_node(-8), -1);
  EXPECT_EQ(brick_of_node(-9), -2);
}

}  // namespace
}  // namespace distgrid
