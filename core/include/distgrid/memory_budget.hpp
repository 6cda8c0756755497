#pragma once
// The memory a bake will need, checked against a budget before anything is
// allocated, so an over-budget part fails early with Error(toolarge) instead of
// being killed by the system midway.
#include <cstdint>
#include <string>

namespace distgrid {

/// Upper estimate of the bytes a Grid of `stored` computed and `inside` inside
/// bricks occupies: `brick_bytes` per stored brick (its codes and parameters in the
/// grid's storage, kMaxBrickBytes<S>: 512 values of 4 bytes for float), its key, and
/// the index at its largest (load 3/8, 16-byte entries).
constexpr std::uint64_t planned_grid_bytes(std::uint64_t stored, std::uint64_t inside,
                                           std::uint64_t brick_bytes) noexcept {
  constexpr std::uint64_t kKeyAndIndexBytes = 8 + 16 * 8 / 3;
  return stored * (brick_bytes + kKeyAndIndexBytes) + inside * kKeyAndIndexBytes;
}

/// Three quarters of the machine's physical memory; 8 GiB when it cannot be read.
std::uint64_t default_memory_budget() noexcept;

/// "1.5 GiB", "640 MiB", "512 B".
std::string format_bytes(std::uint64_t bytes);

/// Throws Error(toolarge) naming `what` (the part), the brick counts, the bytes
/// needed and the budget when planned_grid_bytes exceeds `budget_bytes`.
void check_memory_budget(std::uint64_t stored, std::uint64_t inside, std::uint64_t brick_bytes,
                         std::uint64_t budget_bytes, const std::string& what);

}  // namespace distgrid
