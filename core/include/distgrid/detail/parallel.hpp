#pragma once
// Work split over threads for loops whose items are independent. Each item is
// computed by the same code whatever the thread count, so results do not depend
// on it; only the order in which items finish does.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "distgrid/interrupt.hpp"

namespace distgrid::detail {

inline unsigned resolve_thread_count(unsigned requested) noexcept {
  if (requested != 0) return requested;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

/// Calls body(state, begin, end) on chunks of [0, count) from up to `threads` threads
/// (0: all hardware threads; the calling thread is one of them), where `state` is
/// the calling thread's own, made by make_state(worker) on that thread before its
/// first chunk (worker 0 is the calling thread, the others 1, 2, ...). After each
/// chunk it calls on_chunk_done(items done so far) under a lock, and on_worker_exit()
/// on each extra thread before it ends (for per-thread caches of libraries). The
/// first exception thrown by make_state or a body is rethrown after all threads stop;
/// a requested interrupt (interrupt.hpp) stops the loop between chunks with
/// Error(interrupted).
template <class MakeState, class Body, class OnChunkDone, class OnWorkerExit>
void parallel_chunks_with_state(std::size_t count, unsigned threads, std::size_t chunk, MakeState&& make_state,
                                Body&& body, OnChunkDone&& on_chunk_done, OnWorkerExit&& on_worker_exit) {
  if (count == 0) return;
  chunk = std::max<std::size_t>(chunk, 1);
  const std::size_t chunks = (count + chunk - 1) / chunk;
  const auto workers = static_cast<unsigned>(
      std::min<std::size_t>(resolve_thread_count(threads), chunks));
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex mutex;
  std::size_t done = 0;
  auto work = [&](unsigned worker) {
    using State = decltype(make_state(worker));
    std::optional<State> state;
    for (;;) {
      if (failed.load(std::memory_order_relaxed)) return;
      const std::size_t c = next.fetch_add(1);
      if (c >= chunks) return;
      const std::size_t begin = c * chunk, end = std::min(count, begin + chunk);
      try {
        throw_if_interrupted();
        if (!state) state.emplace(make_state(worker));
        body(*state, begin, end);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!error) error = std::current_exception();
        failed = true;
        return;
      }
      std::lock_guard<std::mutex> lock(mutex);
      done += end - begin;
      on_chunk_done(done);
    }
  };
  if (workers <= 1) {
    work(0);
  } else {
    std::vector<std::thread> pool;
    pool.reserve(workers - 1);
    for (unsigned t = 1; t < workers; ++t)
      pool.emplace_back([&, t] {
        work(t);
        on_worker_exit();
      });
    work(0);
    for (std::thread& t : pool) t.join();
  }
  if (error) std::rethrow_exception(error);
}

/// Calls body(begin, end) on chunks of [0, count), as parallel_chunks_with_state
/// without a state.
template <class Body, class OnChunkDone, class OnWorkerExit>
void parallel_chunks(std::size_t count, unsigned threads, std::size_t chunk, Body&& body,
                     OnChunkDone&& on_chunk_done, OnWorkerExit&& on_worker_exit) {
  parallel_chunks_with_state(
      count, threads, chunk, [](unsigned) { return 0; },
      [&](int, std::size_t begin, std::size_t end) { body(begin, end); }, std::forward<OnChunkDone>(on_chunk_done),
      std::forward<OnWorkerExit>(on_worker_exit));
}

template <class Body, class OnChunkDone>
void parallel_chunks(std::size_t count, unsigned threads, std::size_t chunk, Body&& body,
                     OnChunkDone&& on_chunk_done) {
  parallel_chunks(count, threads, chunk, std::forward<Body>(body), std::forward<OnChunkDone>(on_chunk_done),
                  [] {});
}

}  // namespace distgrid::detail
