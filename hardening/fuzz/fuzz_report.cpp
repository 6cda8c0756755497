// Fuzz target for audit reports: JSON parsing, the gate over the checked-in
// budgets (the path the CI gate takes with a report it is handed), and the
// policy page rendered from it.
#include <string>
#include <vector>

#include "distgrid/audit/calculation.hpp"
#include "distgrid/audit/gate.hpp"
#include "distgrid/json_text.hpp"
#include "distgrid/render/policy_page.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<distgrid::audit::Budget> budgets =
      distgrid::audit::load_budgets(std::string(DISTGRID_SOURCE_DIR) + "/audit/gates.json");
  distgrid::fuzz::expect_typed_errors_only([&] {
    const nlohmann::json report =
        distgrid::parse_json_text(distgrid::fuzz::as_text(data, size), "fuzz-input", distgrid::ErrorCode::badfile);
    (void)distgrid::audit::check_report(report, budgets);
  });
  distgrid::fuzz::expect_typed_errors_only([&] {
    const nlohmann::json report = distgrid::render::parse_report(distgrid::fuzz::as_text(data, size), "fuzz-input");
    distgrid::render::PageOptions options;
    options.sampling_range_calculations = distgrid::audit::page_sampling_range_ids();
    (void)distgrid::render::policy_page_html(report, options);
  });
  return 0;
}
