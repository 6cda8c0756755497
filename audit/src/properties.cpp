#include "distgrid/audit/properties.hpp"

#include <algorithm>

#include "distgrid/audit/report.hpp"
#include "distgrid/error.hpp"

namespace distgrid::audit {

using nlohmann::json;

json read_ctest_listing(const std::string& path) {
  json listing = read_json_file(path);
  if (!listing.is_object() || !listing.contains("tests") || !listing["tests"].is_array())
    throw Error(ErrorCode::badfile, path + ": not a 'ctest --show-only=json-v1' listing (no \"tests\" array)");
  return listing;
}

namespace {

/// The LABELS property of one test of the listing (empty when it has none).
std::vector<std::string> labels_of(const json& test) {
  std::vector<std::string> labels;
  if (!test.contains("properties") || !test["properties"].is_array()) return labels;
  for (const json& property : test["properties"]) {
    if (property.value("name", "") != "LABELS" || !property.contains("value")) continue;
    for (const json& label : property["value"])
      if (label.is_string()) labels.push_back(label.get<std::string>());
  }
  return labels;
}

}  // namespace

json property_coverage(const json& ctest_listing, std::string_view id) {
  if (ctest_listing.is_null())
    return {{"tests", json::array()},
            {"null_reason", "coverage not known: the run was given no CTest listing (--properties FILE)"}};
  const std::string wanted = "calc:" + std::string(id);
  json tests = json::array();
  for (const json& test : ctest_listing["tests"]) {
    const std::vector<std::string> labels = labels_of(test);
    const auto has = [&](const std::string& label) { return std::find(labels.begin(), labels.end(), label) != labels.end(); };
    if (has("property") && has(wanted) && test.contains("name") && test["name"].is_string()) tests.push_back(test["name"]);
  }
  json out = {{"tests", tests}};
  if (tests.empty()) out["null_reason"] = "no CTest test has the labels property and " + wanted;
  return out;
}

}  // namespace distgrid::audit
