#include "distgrid/audit/comparison.hpp"

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace distgrid::audit {
namespace {

using nlohmann::json;

/// One storage against double with every check passing: one part at two h,
/// ratios of 1e-3 of the method error, no sign flips, both meshes unchanged.
json passing(const std::string& storage, double bytes_per_brick) {
  json cells = json::array();
  for (double h : {0.03125, 0.015625})
    cells.push_back({{"part", "sphere"},
                     {"h", h},
                     {"sample", {{"storage_h", 1e-4}, {"method_h", 0.1}, {"ratio", 1e-3}}},
                     {"volume", {{"storage_relative", 1e-7}, {"method_relative", 1e-4}, {"ratio", 1e-3}}},
                     {"sign_flips", 0},
                     {"nodes_compared", 512},
                     {"memory_bytes", 4096}});
  const json same = {{"same_topology", true}};
  return {{"storage", storage},
          {"memory_bytes", 4096},
          {"memory_bytes_per_brick", bytes_per_brick},
          {"nodes_compared", 512},
          {"sign_flips", 0},
          {"contours", json::array({{{"part", "sphere"}, {"surface_nets", same}, {"marching_cubes", same}}})},
          {"per_part_and_h", cells}};
}

json storages_of(const json& by_storage) { return {{"h", 0.015625}, {"by_storage", by_storage}}; }

const json kScope = {{"parts", {"sphere"}}, {"h", {0.03125, 0.015625}}, {"band", 3}};

const json* find_storage(const json& verdict, const std::string& name) {
  for (const json& s : verdict["per_storage"])
    if (s["storage"] == name) return &s;
  return nullptr;
}

TEST(StorageVerdict, NamesThePassingStorageWithTheFewestBytesPerBrick) {
  const json by = json::array({passing("float", 2100), passing("q8", 550), passing("half", 1080)});
  const json v = storage_verdict(storages_of(by), json::array(), kScope);
  EXPECT_EQ(v["decision"], "q8");
  ASSERT_EQ(v["per_storage"].size(), 3u);
  EXPECT_EQ(v["per_storage"][0]["storage"], "q8");  // smallest first
  EXPECT_NE(v["summary"].get<std::string>().find("sphere"), std::string::npos);
}

TEST(StorageVerdict, EachCheckRulesAStorageOutAndIsNamed) {
  json sample = passing("q8", 550), volume = passing("q8", 550), signs = passing("q8", 550),
       mesh = passing("q8", 550), row_ruled = passing("q8", 550);
  sample["per_part_and_h"][1]["sample"]["ratio"] = 0.05;
  volume["per_part_and_h"][0]["volume"]["ratio"] = nullptr;  // no method error to weigh it against
  signs["per_part_and_h"][0]["sign_flips"] = 3;
  mesh["contours"][0]["marching_cubes"]["same_topology"] = false;
  const json rows = json::array({{{"id", "grid.gradient"}, {"quantity", "Gradient at a point"}, {"part", "all"},
                                  {"h", 0.015625}, {"unit", "h"}, {"q8", {{"ratio", 0.02}}}}});
  const struct {
    json storage;
    json rows;
    const char* quantity;
  } cases[] = {{sample, json::array(), "sample"},
               {volume, json::array(), "volume"},
               {signs, json::array(), "node signs"},
               {mesh, json::array(), "contour topology (marching_cubes)"},
               {row_ruled, rows, "Gradient at a point"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.quantity);
    const json v = storage_verdict(storages_of(json::array({c.storage, passing("float", 2100)})), c.rows, kScope);
    EXPECT_EQ(v["decision"], "float");
    const json* q8 = find_storage(v, "q8");
    ASSERT_NE(q8, nullptr);
    EXPECT_FALSE((*q8)["safe"].get<bool>());
    ASSERT_EQ((*q8)["ruled_out_by"].size(), 1u);
    EXPECT_EQ((*q8)["ruled_out_by"][0]["quantity"], c.quantity);
    EXPECT_NE(v["summary"].get<std::string>().find(c.quantity), std::string::npos);
  }
}

TEST(StorageVerdict, KeepsTheWorstCaseOfAQuantityAndCountsTheOthers) {
  json q8 = passing("q8", 550);
  q8["per_part_and_h"][0]["sample"]["ratio"] = 0.02;
  q8["per_part_and_h"][1]["sample"]["ratio"] = 0.07;
  const json v = storage_verdict(storages_of(json::array({q8})), json::array(), kScope);
  const json& ruled = (*find_storage(v, "q8"))["ruled_out_by"][0];
  EXPECT_EQ(ruled["measured"], 0.07);
  EXPECT_EQ(ruled["cases"], 2);
  EXPECT_EQ(ruled["worst_at"], "sphere at h = 0.0156");
}

TEST(StorageVerdict, IsDoubleWhenNoneIsSafeAndNoVerdictWithNothingMeasured) {
  json q8 = passing("q8", 550);
  q8["per_part_and_h"][0]["sign_flips"] = 1;
  EXPECT_EQ(storage_verdict(storages_of(json::array({q8})), json::array(), kScope)["decision"], "double");
  json empty = passing("q8", 550);
  empty["per_part_and_h"] = json::array();
  EXPECT_EQ(storage_verdict(storages_of(json::array({empty})), json::array(), kScope)["decision"], "no verdict");
}

}  // namespace
}  // namespace distgrid::audit
