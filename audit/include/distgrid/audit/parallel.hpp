#pragma once
// A parallel loop over input indices. Which thread runs which index varies from
// run to run, so callers store each result at its index and combine them in
// index order afterwards: results never depend on the thread count.
#include <cstddef>

#include <mpfr.h>

#include "distgrid/audit/progress.hpp"
#include "distgrid/detail/parallel.hpp"

namespace distgrid::audit {

/// Calls body(index) once for every index in [0, count) on up to `threads`
/// threads (the calling thread included). The first exception thrown is
/// rethrown after all threads stop.
template <class Body>
void parallel_for(std::size_t count, unsigned threads, Progress& progress, Body&& body) {
  std::size_t reported = 0;  // guarded by parallel_chunks' lock
  detail::parallel_chunks(
      count, threads == 0 ? 1 : threads, 8,
      [&](std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) body(i);
      },
      [&](std::size_t done) {
        progress.advance(done - reported);
        reported = done;
      },
      // MPFR's per-thread constant caches outlive the thread otherwise.
      [] { mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE); });
}

}  // namespace distgrid::audit
