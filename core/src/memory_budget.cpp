#include "distgrid/memory_budget.hpp"

#include <unistd.h>

#include <cstdio>

#include "distgrid/error.hpp"

namespace distgrid {

std::uint64_t default_memory_budget() noexcept {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return std::uint64_t{8} << 30;
  return static_cast<std::uint64_t>(pages) / 4 * 3 * static_cast<std::uint64_t>(page_size);
}

std::string format_bytes(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  auto value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", value, kUnits[unit]);
  return text;
}

void check_memory_budget(std::uint64_t stored, std::uint64_t inside, std::uint64_t brick_bytes,
                         std::uint64_t budget_bytes, const std::string& what) {
  const std::uint64_t need = planned_grid_bytes(stored, inside, brick_bytes);
  if (need <= budget_bytes) return;
  throw Error(ErrorCode::toolarge, what + ": " + std::to_string(stored) + " computed and " + std::to_string(inside) +
                                       " inside bricks need about " + format_bytes(need) +
                                       ", over the memory budget of " + format_bytes(budget_bytes) +
                                       " (raise it with --max-memory, or use a larger h)");
}

}  // namespace distgrid
