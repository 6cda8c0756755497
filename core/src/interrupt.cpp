#include "distgrid/interrupt.hpp"

#include <signal.h>

#include <atomic>

#include "distgrid/error.hpp"

namespace distgrid {

namespace {

std::atomic<bool> stop_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler needs a lock-free flag");

extern "C" void on_stop_signal(int signal_number) {
  stop_requested.store(true, std::memory_order_relaxed);
  // Back to the default action, so a second Ctrl-C ends a run that does not stop.
  ::signal(signal_number, SIG_DFL);
}

}  // namespace

void install_interrupt_handlers() noexcept {
  struct sigaction action{};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocking read returns EINTR
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

bool interrupt_requested() noexcept { return stop_requested.load(std::memory_order_relaxed); }

void throw_if_interrupted() {
  if (interrupt_requested()) throw Error(ErrorCode::interrupted, "stopped by a signal (Ctrl-C or SIGTERM); no output written");
}

}  // namespace distgrid
