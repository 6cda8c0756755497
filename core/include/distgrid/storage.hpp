#pragma once
// Brick storage: how a Grid<S> holds the 512 node values of a stored brick.
//
// A storage type S models BrickStorage through Storage<S>:
//   - encode(exact, codes): a brick's 512 exact clamped values (double) to what is
//     stored: the brick's decoding parameters (returned) and 512 codes (written to
//     `codes` when stores_codes(parameters), left alone otherwise);
//   - decode(code, parameters): a node's value, as a double (a multiply-add at most);
//   - node_bound(parameters, stored): the bound on |stored - exact| of a node whose
//     stored value is `stored` (for the linear encodings it is the brick's step / 2);
//   - brick_bytes(parameters): the bytes the brick's codes and parameters take.
// All arithmetic on node values stays double; only what is stored differs.
//
// The five models:
//   float, double  each node rounded to the nearest float (double: kept exactly),
//                  ties to even: the bound is half an ulp of S at the value;
//   Half           IEEE binary16 (its bits in a Binary16), correctly rounded from the
//                  double in software (no compiler's _Float16 is needed; never
//                  through float, which would round twice), ties to even: the bound
//                  is half an ulp of binary16 at the value;
//   float and Half keep every node on its side: a negative value too small for the
//   format, which would round to -0 (outside, as 0 is not < 0), is stored as the
//   format's negative subnormal nearest zero instead, and the bound of that stored
//   value is its whole magnitude (a full ulp there, not half).
//   Q16, Q8        per brick a step s and an offset in double, and 512 unsigned codes
//                  of 16 or 8 bits; node = offset + code * s.
//
// The linear encodings (Q16, Q8), exactly:
//   - lo, hi: the smallest and largest of the brick's values. lo == hi (every value
//     equal, as in a brick wholly at +-band*h): step 0, offset lo, no codes; every
//     node reads lo exactly.
//   - w = 2^max(e - 50, -1074), e the binary exponent of max(|lo|, |hi|); L = floor(lo
//     / w), H = ceil(hi / w) (integers, exact); K = ceil((H - L) / (2 C)) with C =
//     2^bits - 1 the largest code; the step is s = 2 K w, so (hi - lo) / s <= C.
//   - Rounding rule: a value v is stored as the centre of the interval
//     [n s, (n + 1) s) that holds it, n = floor(v / s) evaluated exactly: the code is
//     c = n - m with m = floor(lo / s), and offset = (m + 1/2) s. Equivalently: v goes
//     to the nearest of the points (n + 1/2) s, and a tie (v a multiple of s) to the
//     larger code. So |stored - v| <= s / 2, and stored < 0 exactly when v < 0: no node
//     changes sign (a value 0 reads +s/2).
//   - Every decoded value (2 (m + c) + 1) K w is an integer below 2^53 times a power of
//     two, so offset + code * s is exact in double: decoding rounds nothing, for every
//     code from 0 (offset) to C (offset + C s).
#include <algorithm>
#include <bit>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string_view>
#include <type_traits>

#include "distgrid/brick_key.hpp"
#include "distgrid/detail/lanes.hpp"

namespace distgrid {

/// The storage types that are not a node's own number type: IEEE binary16 (its
/// nodes' codes are Binary16) and the per-brick linear encodings with 16-bit and 8-bit
/// codes. float and double name their own storages.
struct Half {};
/// The bits of one IEEE binary16 number: Half's code. A type of its own, not
/// _Float16, so that every compiler the project supports (clang 14 has no _Float16 on
/// x86-64) stores and converts halves alike, and not a bare uint16_t, so that it is
/// never mistaken for a 16-bit linear code.
struct Binary16 {
  std::uint16_t bits;  // no initialiser: a brick's block of codes is not zeroed
  friend bool operator==(const Binary16&, const Binary16&) = default;
};
static_assert(sizeof(Binary16) == 2 && std::is_trivial_v<Binary16>);
struct Q16 {};
struct Q8 {};

/// Decoding parameters of a brick stored node by node (float, double, Half): none.
struct DirectBrick {};
/// Decoding parameters of a linearly encoded brick: node = offset + code * step.
/// step == 0: the brick stores no codes and every node reads offset.
struct LinearBrick {
  double offset = 0;
  double step = 0;
  friend bool operator==(const LinearBrick&, const LinearBrick&) = default;
};

template <class S>
struct Storage;  // the models, below

namespace detail {

/// Half an ulp of a floating-point format with `digits` significand bits and smallest
/// normal exponent `min_exponent` (of the form 2^e, 1 <= m < 2), at |value|.
inline double half_ulp(double value, int digits, int min_exponent) noexcept {
  const double a = value < 0 ? -value : value;
  int e = min_exponent;
  if (a >= std::ldexp(1.0, min_exponent)) e = std::ilogb(a);
  return std::ldexp(1.0, e - digits);  // ulp 2^(e - digits + 1), halved
}

/// The bits of v rounded to binary16, ties to even, directly from the double (one
/// rounding). |v| at or above 65520 gives infinity; NaN a NaN.
inline std::uint16_t half_bits(double v) noexcept {
  const auto bits = std::bit_cast<std::uint64_t>(v);
  const auto sign = static_cast<std::uint16_t>((bits >> 48) & 0x8000u);
  const std::uint64_t magnitude = bits & 0x7FFFFFFFFFFFFFFFull;
  if (magnitude > 0x7FF0000000000000ull) return static_cast<std::uint16_t>(sign | 0x7E00u);  // NaN
  const double a = std::bit_cast<double>(magnitude);
  if (!(a < 65520.0)) return static_cast<std::uint16_t>(sign | 0x7C00u);  // rounds to infinity
  // The ulp of binary16 at a is 2^(e - 10), e its exponent (at least -14, the
  // subnormals' spacing 2^-24 below 2^-14). Adding and removing 2^(e + 42), whose
  // ulp that is, rounds a to a multiple of it, ties to even, in one rounding.
  const int e = a >= 0x1p-14 ? static_cast<int>(magnitude >> 52) - 1023 : -14;
  const double big = std::bit_cast<double>(static_cast<std::uint64_t>(e + 42 + 1023) << 52);
  const double r = (a + big) - big;
  if (r < 0x1p-14) return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(r * 0x1p24));  // subnormal or 0
  const auto rb = std::bit_cast<std::uint64_t>(r);
  const auto exponent = static_cast<std::uint16_t>(((rb >> 52) & 0x7FF) - 1023 + 15);
  return static_cast<std::uint16_t>(std::uint64_t{sign} | (std::uint64_t{exponent} << 10) | ((rb >> 42) & 0x3FF));
}

/// half_bits, except that a negative value rounding to -0 gives -2^-24, binary16's
/// negative subnormal nearest zero: the node stays inside.
std::uint16_t half_bits_same_side(double v) noexcept;

/// The value of binary16 bits (not infinity or NaN), exactly: the bits moved into a
/// double's exponent and significand, then scaled by 2^(1023 - 15), which is exact
/// for normal and subnormal halves alike.
inline double half_value(std::uint16_t h) noexcept {
  const std::uint64_t bits = (std::uint64_t{h & 0x7FFFu} << 42) | (std::uint64_t{h & 0x8000u} << 48);
  return std::bit_cast<double>(bits) * 0x1p1008;
}

/// Shared by every linearly encoded brick that stores no codes (step 0).
template <class Code>
inline constexpr Code kZeroCodes[kBrickNodes] = {};

/// The linear encoding of the header comment, for codes of type Code.
template <class Code>
LinearBrick encode_linear(std::span<const double, kBrickNodes> exact, Code* codes) noexcept;

/// Eight consecutive node values from `codes` of a brick, as doubles (lane n = node n).
template <class S>
void decode_eight(const typename Storage<S>::Code* codes, const typename Storage<S>::Brick& brick,
                  Doubles8& out) noexcept;

}  // namespace detail

/// float: each node rounded to the nearest float, ties to even; a negative value
/// rounding to -0 is stored as -2^-149 (header comment).
template <>
struct Storage<float> {
  using Code = float;
  using Brick = DirectBrick;
  using FieldScalar = float;  ///< the scalar of the formula (Field) baked into it
  static constexpr std::string_view kName = "float";
  static constexpr std::uint32_t kFileId = 1;  ///< its id in .dgrid files
  static constexpr bool kDirect = true;        ///< codes are the values (Brick is empty)
  static Code encode_node(double v) noexcept;  // storage.cpp
  static double decode(Code c, const Brick&) noexcept { return static_cast<double>(c); }
  static double node_bound(const Brick&, double stored) noexcept {
    return stored == -0x1p-149 ? 0x1p-149 : detail::half_ulp(stored, 24, -126);
  }
};

/// double: each node kept exactly.
template <>
struct Storage<double> {
  using Code = double;
  using Brick = DirectBrick;
  using FieldScalar = double;
  static constexpr std::string_view kName = "double";
  static constexpr std::uint32_t kFileId = 2;
  static constexpr bool kDirect = true;
  static Code encode_node(double v) noexcept { return v; }
  static double decode(Code c, const Brick&) noexcept { return c; }
  static double node_bound(const Brick&, double) noexcept { return 0; }
};

/// IEEE binary16: each node correctly rounded from the double, ties to even; a
/// negative value rounding to -0 is stored as -2^-24 (header comment).
template <>
struct Storage<Half> {
  using Code = Binary16;
  using Brick = DirectBrick;
  using FieldScalar = double;
  static constexpr std::string_view kName = "half";
  static constexpr std::uint32_t kFileId = 3;
  static constexpr bool kDirect = true;
  /// Largest value a node may hold: binary16's largest finite number.
  static constexpr double kLargest = 65504.0;
  static Code encode_node(double v) noexcept;  // storage.cpp
  static double decode(Code c, const Brick&) noexcept { return detail::half_value(c.bits); }
  static double node_bound(const Brick&, double stored) noexcept {
    return stored == -0x1p-24 ? 0x1p-24 : detail::half_ulp(stored, 11, -14);
  }
};

/// The two linear encodings (header comment), codes of `Bits` bits.
template <class CodeType>
struct LinearStorage {
  using Code = CodeType;
  using Brick = LinearBrick;
  using FieldScalar = double;
  static constexpr bool kDirect = false;
  static constexpr std::uint32_t kLargestCode = std::numeric_limits<Code>::max();
  static Brick encode(std::span<const double, kBrickNodes> exact, Code* codes) noexcept {
    return detail::encode_linear<Code>(exact, codes);
  }
  static double decode(Code c, const Brick& b) noexcept { return b.offset + static_cast<double>(c) * b.step; }
  static double node_bound(const Brick& b, double) noexcept { return b.step * 0.5; }
  static bool stores_codes(const Brick& b) noexcept { return b.step != 0; }
  static std::size_t brick_bytes(const Brick& b) noexcept {
    return sizeof(Brick) + (stores_codes(b) ? kBrickNodes * sizeof(Code) : 0);
  }
};

template <>
struct Storage<Q16> : LinearStorage<std::uint16_t> {
  static constexpr std::string_view kName = "q16";
  static constexpr std::uint32_t kFileId = 4;
};

template <>
struct Storage<Q8> : LinearStorage<std::uint8_t> {
  static constexpr std::string_view kName = "q8";
  static constexpr std::uint32_t kFileId = 5;
};

/// What every direct model (float, double, Half) shares: a brick is its 512 codes, one
/// per node.
template <class S>
  requires Storage<S>::kDirect
struct DirectStorage {
  using Model = Storage<S>;
  static DirectBrick encode(std::span<const double, kBrickNodes> exact, typename Model::Code* codes) noexcept {
    for (std::size_t n = 0; n < kBrickNodes; ++n) codes[n] = Model::encode_node(exact[n]);
    return {};
  }
  static bool stores_codes(const DirectBrick&) noexcept { return true; }
  static std::size_t brick_bytes(const DirectBrick&) noexcept { return kBrickNodes * sizeof(typename Model::Code); }
};

namespace detail {
/// encode, stores_codes and brick_bytes of a model, from DirectStorage where S is direct.
template <class S>
struct Codec : Storage<S> {};
template <class S>
  requires Storage<S>::kDirect
struct Codec<S> : Storage<S>, DirectStorage<S> {};
}  // namespace detail

/// The storage interface, reached as StorageOf<S>: Storage<S> with encode,
/// stores_codes and brick_bytes filled in for the direct models.
template <class S>
using StorageOf = detail::Codec<S>;

template <class S>
concept BrickStorage = requires(std::span<const double, kBrickNodes> exact, typename StorageOf<S>::Code* codes,
                                typename StorageOf<S>::Code code, const typename StorageOf<S>::Brick& brick,
                                double stored) {
  typename StorageOf<S>::FieldScalar;
  requires std::is_trivially_copyable_v<typename StorageOf<S>::Code>;
  { StorageOf<S>::kName } -> std::convertible_to<std::string_view>;
  { StorageOf<S>::kFileId } -> std::convertible_to<std::uint32_t>;
  { StorageOf<S>::kDirect } -> std::convertible_to<bool>;
  { StorageOf<S>::encode(exact, codes) } -> std::same_as<typename StorageOf<S>::Brick>;
  { StorageOf<S>::decode(code, brick) } -> std::same_as<double>;
  { StorageOf<S>::node_bound(brick, stored) } -> std::same_as<double>;
  { StorageOf<S>::stores_codes(brick) } -> std::same_as<bool>;
  { StorageOf<S>::brick_bytes(brick) } -> std::same_as<std::size_t>;
};

static_assert(BrickStorage<float> && BrickStorage<double> && BrickStorage<Half> && BrickStorage<Q16> &&
              BrickStorage<Q8>);

/// The most bytes one stored brick takes in S: its codes and decoding parameters.
template <class S>
constexpr std::size_t kMaxBrickBytes =
    kBrickNodes * sizeof(typename Storage<S>::Code) + (Storage<S>::kDirect ? 0 : sizeof(LinearBrick));

/// "float", "double", "half", "q16", "q8".
template <class S>
constexpr std::string_view storage_name() noexcept {
  return Storage<S>::kName;
}

/// A stored brick as read: its codes and decoding parameters; [n] is node n's value.
template <class S>
struct BrickView {
  using Code = typename Storage<S>::Code;
  const Code* codes = nullptr;
  [[no_unique_address]] typename Storage<S>::Brick brick{};
  template <std::integral I>
  double operator[](I n) const noexcept {
    return Storage<S>::decode(codes[n], brick);
  }
  /// The view of the nodes from `n` on (for reading neighbours at fixed offsets).
  template <std::integral I>
  BrickView from(I n) const noexcept {
    return {codes + n, brick};
  }
};

/// f.template operator()<S>() for the storage named `name`, one of the five; returns
/// false (calling nothing) for any other name.
template <class F>
bool with_storage_named(std::string_view name, F&& f) {
  if (name == Storage<float>::kName) return f.template operator()<float>(), true;
  if (name == Storage<double>::kName) return f.template operator()<double>(), true;
  if (name == Storage<Half>::kName) return f.template operator()<Half>(), true;
  if (name == Storage<Q16>::kName) return f.template operator()<Q16>(), true;
  if (name == Storage<Q8>::kName) return f.template operator()<Q8>(), true;
  return false;
}

/// The five names, as usage and error messages list them.
inline constexpr std::string_view kStorageNames = "float, double, half, q16, q8";

namespace detail {

template <class S>
void decode_eight(const typename Storage<S>::Code* codes, const typename Storage<S>::Brick& brick,
                  Doubles8& out) noexcept {
  using Code = typename Storage<S>::Code;
  if constexpr (std::is_same_v<Code, double>) {
    std::memcpy(&out, codes, sizeof out);
  } else if constexpr (std::is_same_v<Code, float>) {
    Floats8 loaded;
    std::memcpy(&loaded, codes, sizeof loaded);
    out = __builtin_convertvector(loaded, Doubles8);
  } else if constexpr (std::is_same_v<Code, Binary16>) {
    // As half_value, through float (exact: every half is a float): the bits moved
    // into a float's exponent and significand, scaled by 2^(127 - 15), widened.
    using Words32 = std::uint32_t __attribute__((vector_size(32)));
    Words8 loaded;
    std::memcpy(&loaded, codes, sizeof loaded);
    const Words32 wide = __builtin_convertvector(loaded, Words32);
    const Words32 bits = ((wide & 0x7FFFu) << 13) | ((wide & 0x8000u) << 16);
    Floats8 scaled;
    std::memcpy(&scaled, &bits, sizeof scaled);
    out = __builtin_convertvector(scaled * 0x1p112f, Doubles8);
  } else {
    using Loaded = std::conditional_t<std::is_same_v<Code, std::uint8_t>, Bytes8, Words8>;
    Loaded loaded;
    std::memcpy(&loaded, codes, sizeof loaded);
    out = brick.offset + __builtin_convertvector(loaded, Doubles8) * brick.step;
  }
}

}  // namespace detail

}  // namespace distgrid
