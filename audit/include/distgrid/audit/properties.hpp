#pragma once
// Which property tests cover a calculation, read from CTest's own listing
// (`ctest --show-only=json-v1`): a test covers calculation <id> when its labels
// include both `property` and `calc:<id>`.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace distgrid::audit {

/// Reads a `ctest --show-only=json-v1` document. Throws distgrid::Error(badfile)
/// naming the path when it is missing, not JSON, or has no "tests" array.
nlohmann::json read_ctest_listing(const std::string& path);

/// {"tests": [names, in CTest's order]} for the calculation, with a
/// "null_reason" when the list is empty. A null listing (none was given) gives
/// no tests and says so.
nlohmann::json property_coverage(const nlohmann::json& ctest_listing, std::string_view id);

}  // namespace distgrid::audit
