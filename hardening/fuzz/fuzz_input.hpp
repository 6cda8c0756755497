#pragma once
// Shared by the fuzz targets: what a target may throw. A reader given bad bytes
// must end in a typed distgrid::Error; anything else (another exception, a
// crash, a sanitizer report, a hang) is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "distgrid/error.hpp"

namespace distgrid::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) noexcept {
  return {reinterpret_cast<const char*>(data), size};
}

/// Runs body; a distgrid::Error is the expected outcome for bad input.
template <class Body>
void expect_typed_errors_only(Body&& body) {
  try {
    body();
  } catch (const Error&) {
  }
}

}  // namespace distgrid::fuzz
