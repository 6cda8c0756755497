#pragma once
// Vector types of the GCC/Clang vector extension, operated on lane by lane: each
// lane does the same IEEE operation as scalar code would, so results are bit for bit
// those of the scalar code; only the instruction count drops. Functions take and
// give them through references: passing one by value would tie the ABI to AVX.
#include <cstdint>

namespace distgrid::detail {

/// Four doubles.
using Lanes = double __attribute__((vector_size(32)));
/// What comparing two Lanes gives (all ones in a lane where it holds, else zero),
/// and the bits of Lanes as four 64-bit integers, for masking lanes.
using LaneMask = std::int64_t __attribute__((vector_size(32)));

/// Eight doubles, and their comparison masks.
using Doubles8 = double __attribute__((vector_size(64)));
using Doubles8Mask = std::int64_t __attribute__((vector_size(64)));
/// Eight floats.
using Floats8 = float __attribute__((vector_size(32)));

/// Eight bytes or eight 16-bit words (rows of inside bits).
using Bytes8 = std::uint8_t __attribute__((vector_size(8)));
using Words8 = std::uint16_t __attribute__((vector_size(16)));

}  // namespace distgrid::detail
