#pragma once
// Random draws for audit inputs that depend only on (seed, calculation,
// generator, index): each input starts its own stream, so the inputs of a run do
// not change with the thread count, with sharding, or with how many inputs
// another generator draws. A smaller run's inputs are the first ones of a larger.
#include <cstdint>
#include <string_view>

namespace distgrid::audit {

class InputRng {
 public:
  InputRng(std::uint64_t seed, std::string_view calculation, std::string_view generator,
           std::uint64_t index) noexcept;

  /// Next 64 random bits (SplitMix64 over the input's own counter).
  std::uint64_t next() noexcept;
  /// Uniform in [0, 1) on the 2^-53 lattice, so every draw is exact in double.
  double unit() noexcept;
  /// lo + (hi - lo) * unit(), rounded once.
  double uniform(double lo, double hi) noexcept;
  /// Uniform integer in [lo, hi] (inclusive). Precondition: lo <= hi.
  std::int64_t integer(std::int64_t lo, std::int64_t hi) noexcept;

 private:
  std::uint64_t state_;
};

}  // namespace distgrid::audit
