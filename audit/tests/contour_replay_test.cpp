// Replaying a recorded input of the contour and export calculations gives the
// values the run recorded, bit for bit.
#include <gtest/gtest.h>

#include <string>

#include "distgrid/audit/calculation.hpp"
#include "distgrid/audit/run.hpp"
#include "distgrid/error.hpp"

namespace distgrid::audit {
namespace {

/// The replayed value named `name`; fails the test when there is none.
ReplayValue named(const std::vector<ReplayValue>& values, const std::string& name) {
  for (const ReplayValue& v : values)
    if (v.name == name) return v;
  ADD_FAILURE() << "no replayed value named " << name;
  return {};
}

class ContourReplay : public ::testing::Test {
 protected:
  ContourReplay() {
    settings_.parts = {"sphere"};
    settings_.storages = {Storage::float32};
    settings_.inputs = 30;
    settings_.threads = 2;
  }
  RunSettings settings_;
  Progress progress_;
};

TEST_F(ContourReplay, WorstVertexAndClosestDecisionReplayBitForBit) {
  for (const char* id : {"contour.surface_nets", "contour.marching_cubes"}) {
    const Calculation* calc = find_calculation(id);
    ASSERT_NE(calc, nullptr);
    ASSERT_NE(calc->replay, nullptr);
    RunContext context(settings_, progress_);
    const std::vector<CalculationResult> results = calc->run(context);
    ASSERT_EQ(results.size(), 1u);
    const CalculationResult& r = results[0];
    ASSERT_FALSE(r.storage_error->worst().empty());
    const WorstInput& worst = r.storage_error->worst()[0];
    const auto replayed = calc->replay(context, {Storage::float32, worst.input});
    const ReplayValue storage = named(replayed, "storage");
    EXPECT_EQ(storage.result, hex_float(worst.error.result)) << id;
    EXPECT_EQ(storage.reference, hex_float(worst.error.reference)) << id;

    ASSERT_FALSE(r.decisions.empty());
    ASSERT_FALSE(r.decisions[0].closest().empty());
    const DecisionInput& closest = r.decisions[0].closest()[0];
    const auto decision = calc->replay(context, {Storage::float32, closest.input});
    ASSERT_EQ(decision.size(), 1u);
    EXPECT_EQ(decision[0].result, closest.core) << id;
    EXPECT_EQ(decision[0].reference, closest.exact) << id;
  }
}

TEST_F(ContourReplay, WorstBinaryStlNumberReplaysBitForBit) {
  const Calculation* calc = find_calculation("export.stl");
  ASSERT_NE(calc, nullptr);
  RunContext context(settings_, progress_);
  const std::vector<CalculationResult> results = calc->run(context);
  const WorstInput& worst = results.at(0).error.worst().at(0);
  EXPECT_NE(worst.input.generator.find("stl_binary"), std::string::npos);
  const ReplayValue error = named(calc->replay(context, {Storage::float32, worst.input}), "error");
  EXPECT_EQ(error.result, hex_float(worst.error.result));
  EXPECT_EQ(error.reference, hex_float(worst.error.reference));
  EXPECT_THROW(calc->replay(context, {Storage::float32, InputRecord{1, "no_such_generator", 0, "", {}}}), Error);
}

}  // namespace
}  // namespace distgrid::audit
