// Replay recomputes a recorded input bit for bit: for the calculations with a
// replay hook, every kept worst input and decision input of a small run is
// replayed from its record and must give the values the report holds.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/audit/calculation.hpp"
#include "distgrid/audit/progress.hpp"
#include "distgrid/audit/run.hpp"

namespace distgrid::audit {
namespace {

InputRecord record_of(const nlohmann::json& kept) {
  InputRecord r;
  r.seed = kept["seed"].get<std::uint64_t>();
  r.generator = kept["generator"].get<std::string>();
  r.index = kept["index"].get<std::uint64_t>();
  if (kept.contains("part")) r.part = kept["part"].get<std::string>();
  for (const auto& [name, value] : kept["input"].items()) r.values.emplace_back(name, value.get<std::string>());
  return r;
}

bool replays_to(const std::vector<ReplayValue>& values, const std::string& name, const std::string& result,
                const std::string& reference) {
  for (const ReplayValue& v : values)
    if (v.name == name && v.result == result && v.reference == reference) return true;
  return false;
}

TEST(Replay, ReproducesEveryKeptInputOfTheNewCalculations) {
  RunSettings settings;
  settings.parts = {"sphere", "gyroid"};
  settings.inputs = 24;
  settings.threads = 2;
  settings.calculations = {"bake.plan",           "bake.node_values", "grid.gradient", "grid.world_box",
                           "field.density_store", "field.density_value", "field.eval"};
  settings.budgets_path = DISTGRID_AUDIT_GATES;
  settings.source_dir = DISTGRID_SOURCE_DIR;
  Progress progress;
  const nlohmann::json report = run_audit(settings, progress);
  RunContext context(settings, progress);
  std::size_t replayed = 0;
  for (const nlohmann::json& entry : report["calculations"]) {
    const std::string id = entry["id"].get<std::string>();
    const Calculation* calculation = find_calculation(id);
    ASSERT_NE(calculation, nullptr);
    ASSERT_NE(calculation->replay, nullptr) << id;
    const Storage storage = *parse_storage(entry["storage"].get<std::string>());
    const auto check = [&](const nlohmann::json& kept, const std::string& name, const std::string& result,
                           const std::string& reference) {
      const std::vector<ReplayValue> values = calculation->replay(context, {storage, record_of(kept)});
      EXPECT_TRUE(replays_to(values, name, result, reference))
          << id << " " << entry["storage"] << " " << name << " " << kept.dump();
      ++replayed;
    };
    for (const char* name : {"arithmetic", "storage", "method"}) {
      const nlohmann::json& stats = entry["errors"][name];
      if (stats.is_null()) continue;
      for (const nlohmann::json& w : stats["worst"]) check(w, name, w["result"], w["reference"]);
    }
    for (const nlohmann::json& w : entry["error"]["worst"]) check(w, "error", w["result"], w["reference"]);
    if (entry.contains("decisions"))
      for (const nlohmann::json& d : entry["decisions"])
        for (const nlohmann::json& kept : d["closest"]) check(kept, d["name"], kept["core"], kept["exact"]);
  }
  EXPECT_GT(replayed, 100u);
}

}  // namespace
}  // namespace distgrid::audit
