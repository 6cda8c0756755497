#include "distgrid/audit/ratchet.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <utility>

#include "distgrid/audit/gate.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/error.hpp"
#include "distgrid/file_io.hpp"

namespace distgrid::audit {

using nlohmann::json;

namespace {

/// Byte range [begin, end) of a JSON value in a text.
struct Span {
  std::size_t begin = 0, end = 0;
};

/// Where the values of a JSON text are, for editing it in place. The text
/// must already have parsed as JSON (load_budgets did).
class Scanner {
 public:
  explicit Scanner(const std::string& text) : t_(text) {}

  std::size_t skip_space(std::size_t i) const {
    while (i < t_.size() && (t_[i] == ' ' || t_[i] == '\n' || t_[i] == '\r' || t_[i] == '\t')) ++i;
    return i;
  }

  Span value_at(std::size_t i) const {
    i = skip_space(i);
    if (t_[i] == '"') return {i, string_end(i)};
    if (t_[i] == '{' || t_[i] == '[') {
      int depth = 0;
      for (std::size_t k = i; k < t_.size(); ++k) {
        if (t_[k] == '"') k = string_end(k) - 1;
        else if (t_[k] == '{' || t_[k] == '[') ++depth;
        else if ((t_[k] == '}' || t_[k] == ']') && --depth == 0) return {i, k + 1};
      }
      throw Error(ErrorCode::badfile, "unbalanced JSON text");
    }
    std::size_t k = i;
    while (k < t_.size() && std::string_view(",]} \n\r\t").find(t_[k]) == std::string_view::npos) ++k;
    return {i, k};
  }

  /// The members of the object at `object`: each key (decoded) and its value's span.
  std::vector<std::pair<std::string, Span>> members(Span object) const {
    std::vector<std::pair<std::string, Span>> out;
    std::size_t i = object.begin + 1;
    for (;;) {
      i = skip_space(i);
      if (t_[i] == '}') return out;
      const Span key = value_at(i);
      i = skip_space(key.end) + 1;  // past ':'
      const Span value = value_at(i);
      out.emplace_back(json::parse(t_.substr(key.begin, key.end - key.begin)).get<std::string>(), value);
      i = skip_space(value.end);
      if (t_[i] == ',') ++i;
    }
  }

  std::vector<Span> items(Span array) const {
    std::vector<Span> out;
    std::size_t i = array.begin + 1;
    for (;;) {
      i = skip_space(i);
      if (t_[i] == ']') return out;
      out.push_back(value_at(i));
      i = skip_space(out.back().end);
      if (t_[i] == ',') ++i;
    }
  }

  std::size_t line_of(std::size_t offset) const {
    std::size_t line = 1;
    for (std::size_t k = 0; k < offset; ++k)
      if (t_[k] == '\n') ++line;
    return line;
  }

 private:
  std::size_t string_end(std::size_t i) const {
    for (std::size_t k = i + 1; k < t_.size(); ++k) {
      if (t_[k] == '\\') ++k;
      else if (t_[k] == '"') return k + 1;
    }
    throw Error(ErrorCode::badfile, "unterminated JSON string");
  }

  const std::string& t_;
};

/// x rounded up to two significant digits, as the shortest text that reads back at least x.
std::string two_digits_up(double x) {
  char text[40];
  std::snprintf(text, sizeof text, "%.1e", x);  // d.de+XX, to nearest
  if (std::strtod(text, nullptr) < x) {
    int mantissa = (text[0] - '0') * 10 + (text[2] - '0') + 1;
    int exponent = std::atoi(text + 4);
    if (mantissa == 100) {
      mantissa = 10;
      ++exponent;
    }
    std::snprintf(text, sizeof text, "%d.%de%d", mantissa / 10, mantissa % 10, exponent);
  }
  const double v = std::strtod(text, nullptr);
  std::snprintf(text, sizeof text, "%.2g", v);
  return text;
}

std::string number_text(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

/// The baseline's entry a budget gates; a pointer into `baseline`.
const json* baseline_entry(const json& baseline, const Budget& budget) {
  for (const json& entry : baseline.at("calculations"))
    if (entry.value("id", "") == budget.id && entry.value("storage", "") == budget.storage) return &entry;
  return nullptr;
}

}  // namespace

Ratchet ratchet_budgets(const std::string& budgets_path, const json& baseline, double margin_bits) {
  if (!std::isfinite(margin_bits) || margin_bits < 0)
    throw Error(ErrorCode::badarg, "the ratchet's margin must be a finite number of bits >= 0");
  if (!baseline.is_object() || baseline.value("schema", "") != kReportSchema ||
      !baseline.value("calculations", json()).is_array())
    throw Error(ErrorCode::badfile, std::string("the baseline is not a ") + kReportSchema + " report");
  const std::vector<Budget> budgets = load_budgets(budgets_path);
  const std::string text = read_file(budgets_path);
  const Scanner scan(text);
  std::vector<Span> objects;
  for (const auto& [key, value] : scan.members(scan.value_at(0)))
    if (key == "budgets") objects = scan.items(value);
  if (objects.size() != budgets.size()) throw Error(ErrorCode::badfile, budgets_path + ": /budgets could not be scanned");

  const std::string revision = baseline.value("build", json::object()).value("git_revision", std::string("unknown"));
  Ratchet out;
  out.budgets = budgets.size();
  // Edits from the last budget to the first, so earlier offsets stay valid.
  std::vector<std::pair<Span, std::string>> edits;
  for (std::size_t n = 0; n < budgets.size(); ++n) {
    const Budget& b = budgets[n];
    // A model follows the settings and an informational budget gates nothing:
    // neither is a number to lower.
    if (!b.model.empty() || !b.informational.empty()) continue;
    const json* entry = baseline_entry(baseline, b);
    json::json_pointer pointer;
    try {
      if (entry) pointer = resolve_metric(*entry, b.metric);
    } catch (const Error&) {
      entry = nullptr;  // a name the baseline does not have: not measured there
    }
    if (!entry || !entry->contains(pointer) || !(*entry)[pointer].is_number()) {
      ++out.not_measured;
      continue;
    }
    const double measured = (*entry)[pointer].get<double>();
    if (!(measured > 0) || !std::isfinite(measured) || !(b.max > 0)) continue;
    const double room = measured * std::exp2(margin_bits);
    if (!(b.max > room)) continue;
    const std::string max_text = two_digits_up(room);
    const double new_max = std::strtod(max_text.c_str(), nullptr);
    if (!(new_max < b.max)) continue;
    std::string why = b.why;
    if (const std::string::size_type earlier = why.find(" Ratcheted from "); earlier != std::string::npos)
      why.erase(earlier);
    if (!why.empty() && why.back() != '.') why += '.';
    why += " Ratcheted from " + number_text(b.max) + " to 2^" + number_text(margin_bits) + " x the " +
           number_text(measured) + " measured at revision " + revision + ".";
    Span max_span, why_span;
    for (const auto& [key, value] : scan.members(objects[n])) {
      if (key == "max") max_span = value;
      if (key == "why") why_span = value;
    }
    edits.push_back({max_span, max_text});
    edits.push_back({why_span, json(why).dump()});
    out.changes.push_back({n, b.id, b.storage, b.metric, measured, b.max, new_max, scan.line_of(objects[n].begin),
                           scan.line_of(objects[n].end)});
  }
  out.text = text;
  std::sort(edits.begin(), edits.end(), [](const auto& a, const auto& b) { return a.first.begin > b.first.begin; });
  for (const auto& [span, replacement] : edits) out.text.replace(span.begin, span.end - span.begin, replacement);
  return out;
}

std::string ratchet_diff(const std::string& before, const Ratchet& ratchet) {
  const auto lines = [](const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t end = text.find('\n', start);
      out.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
      if (end == std::string::npos) break;
      start = end + 1;
    }
    return out;
  };
  const std::vector<std::string> old_lines = lines(before), new_lines = lines(ratchet.text);
  std::string out;
  for (const RatchetChange& c : ratchet.changes) {
    out += "@@ budgets/" + std::to_string(c.index) + " " + c.id + " " + c.storage + " " + c.metric + ": " +
           number_text(c.old_max) + " -> " + number_text(c.new_max) + " (baseline " + number_text(c.measured) +
           "), lines " + std::to_string(c.first_line) + "-" + std::to_string(c.last_line) + " @@\n";
    for (std::size_t l = c.first_line; l <= c.last_line && l <= old_lines.size(); ++l) out += "-" + old_lines[l - 1] + "\n";
    for (std::size_t l = c.first_line; l <= c.last_line && l <= new_lines.size(); ++l) out += "+" + new_lines[l - 1] + "\n";
  }
  return out;
}

}  // namespace distgrid::audit
