#pragma once
// A parallel loop over input indices. Which thread runs which index varies from
// run to run, so callers store each result at its index and combine them in
// index order afterwards: results never depend on the thread count.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include <mpfr.h>

#include "distgrid/audit/progress.hpp"

namespace distgrid::audit {

/// Calls body(index) once for every index in [0, count) on up to `threads`
/// threads (the calling thread included). The first exception thrown is
/// rethrown after all threads stop.
template <class Body>
void parallel_for(std::size_t count, unsigned threads, Progress& progress, Body&& body) {
  constexpr std::size_t kChunk = 8;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    for (;;) {
      const std::size_t first = next.fetch_add(kChunk);
      if (first >= count || failed.load()) return;
      const std::size_t last = std::min(count, first + kChunk);
      try {
        for (std::size_t i = first; i < last; ++i) body(i);
      } catch (...) {
        const std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
        failed = true;
        return;
      }
      progress.advance(last - first);
    }
  };
  const std::size_t helpers = std::min<std::size_t>(threads > 0 ? threads - 1 : 0, count / kChunk);
  std::vector<std::thread> pool;
  pool.reserve(helpers);
  for (std::size_t t = 0; t < helpers; ++t)
    pool.emplace_back([&] {
      work();
      mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);  // MPFR's per-thread constant caches outlive the thread otherwise
    });
  work();
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace distgrid::audit
