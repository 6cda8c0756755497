#pragma once
// The brick storage scalars the audit compares.
#include <optional>
#include <string_view>

namespace distgrid::audit {

enum class Storage { float32, float64 };

/// "float" or "double", as the command line and the report spell them.
constexpr std::string_view storage_name(Storage s) noexcept { return s == Storage::float32 ? "float" : "double"; }

constexpr std::optional<Storage> parse_storage(std::string_view name) noexcept {
  if (name == "float") return Storage::float32;
  if (name == "double") return Storage::float64;
  return std::nullopt;
}

/// f.template operator()<S>() with S the storage's scalar: code written once for
/// every storage type.
template <class F>
decltype(auto) with_storage_scalar(Storage s, F&& f) {
  if (s == Storage::float32) return f.template operator()<float>();
  return f.template operator()<double>();
}

template <class S>
constexpr Storage storage_of() noexcept {
  static_assert(sizeof(S) == 4 || sizeof(S) == 8);
  return sizeof(S) == 4 ? Storage::float32 : Storage::float64;
}

}  // namespace distgrid::audit
