// Fuzz target for audit reports: JSON parsing and the gate over the checked-in
// budgets (the path the CI gate takes with a report it is handed).
#include <string>
#include <vector>

#include "distgrid/audit/gate.hpp"
#include "distgrid/json_text.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<distgrid::audit::Budget> budgets =
      distgrid::audit::load_budgets(std::string(DISTGRID_SOURCE_DIR) + "/audit/gates.json");
  distgrid::fuzz::expect_typed_errors_only([&] {
    const nlohmann::json report =
        distgrid::parse_json_text(distgrid::fuzz::as_text(data, size), "fuzz-input", distgrid::ErrorCode::badfile);
    (void)distgrid::audit::check_report(report, budgets);
  });
  return 0;
}
