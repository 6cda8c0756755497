#pragma once
// Gates on claims: gates.json lists, under "claims", the claims a default run
// verified. A claim so recorded that a report finds refuted fails the gate; a
// claim refuted from the start is a finding, not a failure, and is not listed.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/audit/gate.hpp"

namespace distgrid::audit {

struct ClaimGate {
  std::string id;
  std::string why;  ///< where the verified verdict was recorded
};

/// The "claims" array of a gates file ({"id", "verdict": "verified", "why"}); empty
/// when the file has none. Throws distgrid::Error(badfile) naming the path and the
/// entry for a malformed one.
std::vector<ClaimGate> load_claim_gates(const std::string& path);

/// Failures (storage "claim") for every gated claim the report holds as refuted.
/// A report without a claim (a partial run) is not checked for it.
std::vector<GateFailure> check_claims(const nlohmann::json& report, const std::vector<ClaimGate>& gates);

}  // namespace distgrid::audit
