#include "distgrid/audit/calculation.hpp"

#include <cerrno>
#include <cstdlib>

#include "distgrid/error.hpp"

namespace distgrid::audit {

std::string_view precision_name(PrecisionClass c) noexcept {
  switch (c) {
    case PrecisionClass::exact: return "exact";
    case PrecisionClass::bits64: return "64-bit";
    case PrecisionClass::bits32_in_part: return "32-bit in part";
    case PrecisionClass::bits16_in_part: return "16-bit in part";
    case PrecisionClass::bits8_in_part: return "8-bit in part";
    case PrecisionClass::inexact: return "inexact";
  }
  return "inexact";
}

PrecisionClass measured_class(double max_ulps, std::uint64_t mismatches, PrecisionClass declared,
                              int storage_bits) noexcept {
  if (mismatches > 0) return PrecisionClass::inexact;
  if (max_ulps == 0) return PrecisionClass::exact;
  if (declared == PrecisionClass::exact) return PrecisionClass::inexact;
  if (max_ulps <= kSixtyFourBitMaxUlps) return PrecisionClass::bits64;
  if (storage_bits <= 8) return PrecisionClass::bits8_in_part;
  return storage_bits <= 16 ? PrecisionClass::bits16_in_part : PrecisionClass::bits32_in_part;
}

void CalculationResult::begin_unit(std::uint64_t run_inputs) noexcept {
  error.begin_unit(run_inputs);
  for (std::optional<ErrorStats>* stats : {&arithmetic, &storage_error, &method})
    if (*stats) (*stats)->begin_unit(run_inputs);
  for (DecisionStats& d : decisions) d.begin_unit();
}

const std::string& replay_text(const ReplayRequest& request, std::string_view name) {
  for (const auto& [key, value] : request.input.values)
    if (key == name) return value;
  throw Error(ErrorCode::badarg, "the recorded input has no value \"" + std::string(name) + "\"");
}

double replay_double(const ReplayRequest& request, std::string_view name) {
  const std::string& text = replay_text(request, name);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE)
    throw Error(ErrorCode::badarg, "the recorded input \"" + std::string(name) + "\" is not a number: " + text);
  return v;
}

std::int64_t replay_integer(const ReplayRequest& request, std::string_view name) {
  const std::string& text = replay_text(request, name);
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE)
    throw Error(ErrorCode::badarg, "the recorded input \"" + std::string(name) + "\" is not a whole number: " + text);
  return v;
}

const Calculation* find_calculation(std::string_view id) {
  for (const Calculation& c : calculations())
    if (c.id == id) return &c;
  return nullptr;
}

std::vector<std::string> page_sampling_range_ids() {
  std::vector<std::string> ids;
  for (const Calculation& c : calculations())
    if (c.page_sampling_range) ids.emplace_back(c.id);
  return ids;
}

}  // namespace distgrid::audit
