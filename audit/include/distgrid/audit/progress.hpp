#pragma once
// A progress line on stderr, shown only while stderr is a terminal, so logs and
// CI output stay clean. advance() may be called from any thread.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

namespace distgrid::audit {

class Progress {
 public:
  /// Enabled when stderr is a terminal.
  Progress();

  void begin(std::string label, std::size_t total);
  void advance(std::size_t done = 1);
  void end();

 private:
  void print(std::size_t done);

  bool enabled_;
  std::string label_;
  std::size_t total_ = 0;
  std::atomic<std::size_t> done_{0};
  std::mutex print_mutex_;
  std::chrono::steady_clock::time_point last_print_{};
};

}  // namespace distgrid::audit
