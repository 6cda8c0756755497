#pragma once
// A budgets file proposed for a user's own configuration from one report: the
// error models of a base budgets file where they hold at the report's
// settings, otherwise a stated multiple of what the report measured.
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/audit/gate.hpp"

namespace distgrid::audit {

struct BudgetProposal {
  std::string text;                ///< the proposed file (distgrid-audit-gates/1)
  std::size_t kept_models = 0;     ///< models kept: they hold at the report's settings
  std::size_t kept_constants = 0;  ///< constants kept: met and applicable
  std::size_t from_measurement = 0;  ///< budgets set to factor x measured (with why)
  std::size_t added = 0;           ///< budgets for entries the base file does not budget
};

/// For every entry of `report` and every budget of `base` for it: a model or
/// constant the entry meets at the report's settings is kept (an informational
/// one stays informational, an exact one of 0 stays even where it does not
/// apply); one it misses, or a constant not applicable at
/// these settings, becomes `factor` x the measurement (0 stays 0), holding for
/// the report's h, band and storage, its "why" saying so and what the base
/// budget said. An entry with no budget gets its mismatches, every decision's
/// misclassified count and /error/ulps/max the same way. Claims of the base
/// file are not carried over. Throws distgrid::Error(badfile) for a report that
/// is not a distgrid-audit-report/1, Error(badarg) for a factor below 1 or not finite.
BudgetProposal propose_budgets(const nlohmann::json& report, const std::vector<Budget>& base, double factor);

}  // namespace distgrid::audit
