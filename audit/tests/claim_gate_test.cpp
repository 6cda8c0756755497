#include "distgrid/audit/claim_gate.hpp"

#include <gtest/gtest.h>

namespace distgrid::audit {
namespace {

using nlohmann::json;

json report_with(const char* id, const char* verdict) {
  return {{"claims", {{{"id", id}, {"verdict", verdict}, {"evidence", "numbers"}}}}};
}

const std::vector<ClaimGate> kGates{{"key.exact_below_2_51", "verified by the default run"}};

TEST(ClaimGate, FailsAVerifiedClaimThatTurnsRefuted) {
  const std::vector<GateFailure> failures = check_claims(report_with("key.exact_below_2_51", "refuted"), kGates);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].id, "key.exact_below_2_51");
  EXPECT_EQ(failures[0].storage, "claim");
}

TEST(ClaimGate, PassesVerifiedAndInconclusiveVerdictsAndUngatedRefutedClaims) {
  EXPECT_TRUE(check_claims(report_with("key.exact_below_2_51", "verified"), kGates).empty());
  EXPECT_TRUE(check_claims(report_with("key.exact_below_2_51", "inconclusive"), kGates).empty());
  EXPECT_TRUE(check_claims(report_with("volume.flat_exact", "refuted"), kGates).empty());
}

TEST(ClaimGate, DoesNotCheckAClaimAPartialReportLacks) {
  EXPECT_TRUE(check_claims(json{{"calculations", json::array()}}, kGates).empty());
}

}  // namespace
}  // namespace distgrid::audit
