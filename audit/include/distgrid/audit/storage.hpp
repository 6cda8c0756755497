#pragma once
// The brick storages the audit compares: the five models of core's storage.hpp.
#include <array>
#include <optional>
#include <string_view>
#include <type_traits>

#include "distgrid/storage.hpp"

namespace distgrid::audit {

enum class Storage { float32, float64, half, q16, q8 };

/// Every storage, in the order `--storage all` audits them.
inline constexpr std::array<Storage, 5> kAllStorages{Storage::float32, Storage::float64, Storage::half, Storage::q16,
                                                     Storage::q8};

/// f.template operator()<S>() with S core's storage type of `s` (double, float,
/// Half, Q16, Q8): code written once for every storage.
template <class F>
constexpr decltype(auto) with_storage(Storage s, F&& f) {
  switch (s) {
    case Storage::float32: return f.template operator()<float>();
    case Storage::half: return f.template operator()<Half>();
    case Storage::q16: return f.template operator()<Q16>();
    case Storage::q8: return f.template operator()<Q8>();
    case Storage::float64: break;
  }
  return f.template operator()<double>();
}

template <class S>
constexpr Storage storage_of() noexcept {
  if constexpr (std::is_same_v<S, float>) return Storage::float32;
  else if constexpr (std::is_same_v<S, double>) return Storage::float64;
  else if constexpr (std::is_same_v<S, Half>) return Storage::half;
  else if constexpr (std::is_same_v<S, Q16>) return Storage::q16;
  else {
    static_assert(std::is_same_v<S, Q8>, "not a brick storage");
    return Storage::q8;
  }
}

/// "float", "double", "half", "q16" or "q8", as the command line and the report spell them.
constexpr std::string_view storage_name(Storage s) noexcept {
  return with_storage(s, []<class S>() { return distgrid::storage_name<S>(); });
}

constexpr std::optional<Storage> parse_storage(std::string_view name) noexcept {
  for (Storage s : kAllStorages)
    if (storage_name(s) == name) return s;
  return std::nullopt;
}

/// The bits of the narrowest numbers a node of S goes through: 32 for float and
/// double bricks (their chain holds a float), 16 for half and q16, 8 for q8.
constexpr int narrowest_bits(Storage s) noexcept {
  return s == Storage::q8 ? 8 : (s == Storage::half || s == Storage::q16) ? 16 : 32;
}

/// The largest error of a stored node relative to band h: u for the bound
/// |stored - exact| <= u band h that every node of a grid in S keeps (the
/// budgets' `u`), with band_width = band h:
///   float, double: half an ulp relative, 2^-24 and 2^-53 (|value| <= band h);
///     float's subnormals round by at most 2^-150 absolutely, and its negative
///     subnormal nearest zero holds the negative values too small for float (kept
///     inside), up to 2^-149 away: u = 2^-24 + 2^-149 / (band h) for float;
///   half: 2^-11 relative; below 2^-14 binary16's subnormal spacing rounds by at
///     most 2^-25 absolutely, and -2^-24 holds every negative value above -2^-25,
///     up to 2^-24 away, so u = 2^-11 + 2^-24 / (band h);
///   q16, q8: half the brick's step s, and s / 2 <= (hi - lo) / (2 C) + w (1 + 1 / C)
///     with hi - lo <= 2 band h, C the largest code and w <= 2^-50 band h (the
///     encoding in storage.hpp), so u = 1 / C + 2^-48 (2^-49 would do).
inline double storage_unit_roundoff(Storage s, double band_width) noexcept {
  switch (s) {
    case Storage::float32: return 0x1p-24 + 0x1p-149 / band_width;
    case Storage::float64: return 0x1p-53;
    case Storage::half: return 0x1p-11 + 0x1p-24 / band_width;
    case Storage::q16: return 1.0 / 65535 + 0x1p-48;
    case Storage::q8: return 1.0 / 255 + 0x1p-48;
  }
  return 0;
}

}  // namespace distgrid::audit
