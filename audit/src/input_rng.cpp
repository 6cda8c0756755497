#include "distgrid/audit/input_rng.hpp"

namespace distgrid::audit {

namespace {

constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ull;

/// SplitMix64's finaliser: a bijective mix of 64 bits.
constexpr std::uint64_t mix(std::uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// FNV-1a of a name, so streams are keyed by names rather than list positions.
constexpr std::uint64_t name_hash(std::string_view name) noexcept {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001B3ull;
  }
  return h;
}

}  // namespace

InputRng::InputRng(std::uint64_t seed, std::string_view calculation, std::string_view generator,
                   std::uint64_t index) noexcept
    : state_(mix(mix(mix(seed ^ name_hash(calculation)) ^ name_hash(generator)) + index * kGolden)) {}

std::uint64_t InputRng::next() noexcept {
  state_ += kGolden;
  return mix(state_);
}

double InputRng::unit() noexcept { return static_cast<double>(next() >> 11) * 0x1p-53; }

double InputRng::uniform(double lo, double hi) noexcept { return lo + (hi - lo) * unit(); }

std::int64_t InputRng::integer(std::int64_t lo, std::int64_t hi) noexcept {
  // Width in unsigned arithmetic (it may exceed INT64_MAX); the multiply-high
  // mapping has a bias below 2^-64 per value, far below anything measured here.
  const std::uint64_t width = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
  if (width == 0) return static_cast<std::int64_t>(next());  // the full 64-bit range
  __extension__ using Wide = unsigned __int128;
  const auto offset = static_cast<std::uint64_t>((static_cast<Wide>(next()) * width) >> 64);
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + offset);
}

}  // namespace distgrid::audit
