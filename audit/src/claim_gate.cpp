#include "distgrid/audit/claim_gate.hpp"

#include "distgrid/audit/report.hpp"
#include "distgrid/error.hpp"

namespace distgrid::audit {

using nlohmann::json;

std::vector<ClaimGate> load_claim_gates(const std::string& path) {
  const json doc = read_json_file(path);
  std::vector<ClaimGate> gates;
  if (!doc.is_object() || !doc.contains("claims")) return gates;
  if (!doc["claims"].is_array()) throw Error(ErrorCode::badfile, path + ": /claims must be an array");
  for (std::size_t n = 0; n < doc["claims"].size(); ++n) {
    const json& c = doc["claims"][n];
    const std::string where = path + ": /claims/" + std::to_string(n) + ": ";
    if (!c.is_object()) throw Error(ErrorCode::badfile, where + "expected an object");
    for (const char* key : {"id", "verdict", "why"})
      if (!c.contains(key) || !c[key].is_string() || c[key].get<std::string>().empty())
        throw Error(ErrorCode::badfile, where + "\"" + key + "\" must be a non-empty string");
    if (c["verdict"] != "verified")
      throw Error(ErrorCode::badfile, where + "\"verdict\" must be \"verified\" (only verified claims are gated)");
    gates.push_back({c["id"], c["why"]});
  }
  return gates;
}

std::vector<GateFailure> check_claims(const json& report, const std::vector<ClaimGate>& gates) {
  std::vector<GateFailure> failures;
  if (!report.contains("claims") || !report["claims"].is_array()) return failures;
  try {
    for (const ClaimGate& gate : gates)
      for (const json& claim : report["claims"]) {
        if (!claim.is_object() || claim.value("id", "") != gate.id || claim.value("verdict", "") != "refuted") continue;
        failures.push_back({gate.id, "claim",
                            "verdict refuted, recorded verified (" + gate.why + "): " + claim.value("evidence", ""), "", ""});
      }
  } catch (const json::exception& e) {  // a claim member of the wrong type
    throw Error(ErrorCode::badfile, std::string("claims of the report are malformed: ") + e.what());
  }
  return failures;
}

}  // namespace distgrid::audit
