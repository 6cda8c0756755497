// Replay of the mesh calculations: a recorded worst input and a recorded
// decision input, drawn again from (seed, generator, index), give back the
// values the run reported, bit for bit.
#include <gtest/gtest.h>

#include <string>

#include "distgrid/audit/calculation.hpp"
#include "distgrid/audit/run.hpp"

namespace distgrid::audit {
namespace {

const ReplayValue* find_value(const std::vector<ReplayValue>& values, const std::string& name) {
  for (const ReplayValue& v : values)
    if (v.name == name) return &v;
  return nullptr;
}

class MeshReplay : public testing::TestWithParam<const char*> {};

TEST_P(MeshReplay, ReproducesTheRecordedWorstInputAndDecision) {
  RunSettings settings;
  settings.inputs = 40;
  settings.seed = 7;
  settings.threads = 2;
  settings.calculations = {GetParam()};
  Progress progress;
  RunContext context(settings, progress);
  const Calculation* calculation = find_calculation(GetParam());
  ASSERT_NE(calculation, nullptr);
  ASSERT_NE(calculation->replay, nullptr);
  const std::vector<CalculationResult> results = calculation->run(context);
  for (const CalculationResult& result : results) {
    ASSERT_FALSE(result.error.worst().empty());
    const WorstInput& worst = result.error.worst().front();
    const std::vector<ReplayValue> again = calculation->replay(context, {result.storage, worst.input});
    const ReplayValue* error = find_value(again, "error");
    ASSERT_NE(error, nullptr);
    EXPECT_EQ(error->result, hex_float(worst.error.result));
    EXPECT_EQ(error->reference, hex_float(worst.error.reference));
    for (const DecisionStats& decision : result.decisions) {
      ASSERT_FALSE(decision.closest().empty());
      const DecisionInput& kept = decision.closest().front();
      // The replayed values are kept alive for as long as `value` points into them.
      const std::vector<ReplayValue> replayed = calculation->replay(context, {result.storage, kept.input});
      const ReplayValue* value = find_value(replayed, decision.name());
      ASSERT_NE(value, nullptr) << decision.name();
      EXPECT_EQ(value->result, kept.core);
      EXPECT_EQ(value->reference, kept.exact);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryMeshCalculation, MeshReplay,
                         testing::Values("mesh.weld", "mesh.normals", "mesh.node_distance", "mesh.closest_point",
                                         "mesh.ray_parity", "mesh.edge_key"),
                         [](const testing::TestParamInfo<const char*>& param) {
                           std::string name = param.param;
                           for (char& c : name)
                             if (c == '.') c = '_';
                           return name;
                         });

}  // namespace
}  // namespace distgrid::audit
