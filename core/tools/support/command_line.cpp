#include "distgrid/command_line.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace distgrid::command_line {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  // Optimal string alignment: Levenshtein plus swaps of neighbouring letters.
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  std::vector<std::pair<std::size_t, std::string>> near;
  for (const std::string& candidate : candidates) {
    const std::size_t distance = edit_distance(word, candidate);
    if (distance <= 2 && std::none_of(near.begin(), near.end(), [&](const auto& n) { return n.second == candidate; }))
      near.emplace_back(distance, candidate);
  }
  if (near.empty()) return "";
  std::stable_sort(near.begin(), near.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  const std::size_t shown = std::min<std::size_t>(near.size(), 3);
  std::string text = " (did you mean ";
  for (std::size_t n = 0; n < shown; ++n) {
    if (n > 0) text += n + 1 == shown ? " or " : ", ";
    text += near[n].second;
  }
  return text + "?)";
}

Progress::Progress(const char* tool)
    : tool_(tool),
      terminal_(::isatty(2) != 0),
      log_phases_(std::getenv("DISTGRID_PHASE_LOG") != nullptr && *std::getenv("DISTGRID_PHASE_LOG") != '\0'),
      started_(Clock::now()),
      phase_started_(started_) {}

Progress::~Progress() { finish(); }

void Progress::phase(const char* name, std::size_t total, const char* unit) {
  name_ = name;
  unit_ = unit;
  total_ = total;
  done_ = 0;
  phase_started_ = Clock::now();
  if (log_phases_) {
    if (line_shown_) std::fputs("\r\033[K", stderr);
    std::fprintf(stderr, "%s: phase %s\n", tool_, name);
    std::fflush(stderr);
    line_shown_ = false;
  }
  draw(true);
}

void Progress::update(std::size_t done) {
  done_ = done;
  draw(false);
}

void Progress::operator()(const char* name, std::size_t done, std::size_t total, const char* unit) {
  if (name_ != name) phase(name, total, unit);
  total_ = total;
  update(done);
}

void Progress::finish() {
  if (line_shown_) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
  }
  line_shown_ = false;
}

void Progress::draw(bool force) {
  if (!terminal_) return;
  const Clock::time_point now = Clock::now();
  const double running = std::chrono::duration<double>(now - started_).count();
  if (running < 1.0) return;
  if (!force && line_shown_ && now - drawn_ < std::chrono::milliseconds(100)) return;
  drawn_ = now;
  const double in_phase = std::chrono::duration<double>(now - phase_started_).count();
  char line[160];
  if (total_ != 0) {
    const double fraction = static_cast<double>(done_) / static_cast<double>(total_);
    const double rate = in_phase > 0 ? static_cast<double>(done_) / in_phase : 0;
    std::snprintf(line, sizeof line, "%s: %-10s %3.0f%%  %zu / %zu%s%s, %.3g/s  %.1f s", tool_, name_.c_str(),
                  100 * fraction, done_, total_, unit_.empty() ? "" : " ", unit_.c_str(), rate, running);
  } else {
    std::snprintf(line, sizeof line, "%s: %-10s %.1f s", tool_, name_.c_str(), running);
  }
  std::fprintf(stderr, "\r\033[K%s", line);
  std::fflush(stderr);
  line_shown_ = true;
}

}  // namespace distgrid::command_line
