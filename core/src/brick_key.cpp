#include "distgrid/brick_key.hpp"

#include <string>

#include "distgrid/error.hpp"

namespace distgrid {

std::int64_t brick_key_checked(std::int64_t bx, std::int64_t by, std::int64_t bz) {
  if (!brick_coord_in_range(bx) || !brick_coord_in_range(by) || !brick_coord_in_range(bz)) {
    throw Error(ErrorCode::toolarge,
                "brick (" + std::to_string(bx) + ", " + std::to_string(by) + ", " +
                    std::to_string(bz) + ") is outside the key range [" +
                    std::to_string(kMinBrickCoord) + ", " + std::to_string(kMaxBrickCoord) +
                    "] on some axis");
  }
  return brick_key(bx, by, bz);
}

}  // namespace distgrid
