#pragma once
// Formula specs in JSON, compiled into a Field<S>. The format is documented in
// docs/field-spec.md. Every malformed spec fails with Error(badspec) naming the
// JSON path of the offending value (for example "/of/1/radius").
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "distgrid/field.hpp"

namespace distgrid {

template <class S>
Field<S> compile_field(const nlohmann::json& spec);

/// Parses JSON text first; a syntax error is badspec naming `source` and the byte offset.
template <class S>
Field<S> compile_field_text(std::string_view json_text, std::string_view source);

}  // namespace distgrid
