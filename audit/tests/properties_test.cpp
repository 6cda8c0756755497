#include "distgrid/audit/properties.hpp"

#include <gtest/gtest.h>

namespace distgrid::audit {
namespace {

using nlohmann::json;

json test_with_labels(const char* name, json labels) {
  return {{"name", name}, {"properties", {{{"name", "LABELS"}, {"value", labels}}, {{"name", "TIMEOUT"}, {"value", 60}}}}};
}

TEST(PropertyCoverage, ListsTheTestsLabelledPropertyAndTheCalculation) {
  const json listing = {{"tests",
                         {test_with_labels("GridSample.a", {"property", "calc:grid.sample"}),
                          test_with_labels("GridSample.unit", {"calc:grid.sample"}),
                          test_with_labels("GridKey.b", {"property", "calc:grid.key"}),
                          test_with_labels("GridSample.c", {"calc:grid.sample", "property"}),
                          {{"name", "NoLabels"}}}}};
  EXPECT_EQ(property_coverage(listing, "grid.sample"), (json{{"tests", {"GridSample.a", "GridSample.c"}}}));
  EXPECT_EQ(property_coverage(listing, "grid.key"), (json{{"tests", {"GridKey.b"}}}));
}

TEST(PropertyCoverage, GivesANullReasonWhenNoTestOrNoListingCovers) {
  const json listing = {{"tests", {test_with_labels("GridKey.b", {"property", "calc:grid.key"})}}};
  const json none = property_coverage(listing, "grid.volume");
  EXPECT_TRUE(none["tests"].empty());
  EXPECT_NE(none["null_reason"].get<std::string>().find("calc:grid.volume"), std::string::npos);
  EXPECT_TRUE(property_coverage(json(), "grid.key").contains("null_reason"));
}

}  // namespace
}  // namespace distgrid::audit
