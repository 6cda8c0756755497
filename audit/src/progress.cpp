#include "distgrid/audit/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace distgrid::audit {

Progress::Progress() : enabled_(::isatty(STDERR_FILENO) != 0) {}

void Progress::begin(std::string label, std::size_t total) {
  label_ = std::move(label);
  total_ = total;
  done_ = 0;
  last_print_ = {};
  if (enabled_) print(0);
}

void Progress::advance(std::size_t done) {
  const std::size_t now_done = done_.fetch_add(done) + done;
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  std::unique_lock lock(print_mutex_, std::try_to_lock);
  if (!lock.owns_lock() || now - last_print_ < std::chrono::milliseconds(200)) return;
  last_print_ = now;
  print(now_done);
}

void Progress::end() {
  if (!enabled_) return;
  const std::lock_guard lock(print_mutex_);
  print(total_);
  std::fputc('\n', stderr);
}

void Progress::print(std::size_t done) {
  std::fprintf(stderr, "\r\033[K%s %zu / %zu", label_.c_str(), done, total_);
  std::fflush(stderr);
}

}  // namespace distgrid::audit
