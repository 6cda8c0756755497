#pragma once
// Budgets as error models: a small arithmetic expression in the run's settings
// and the part's measured data, evaluated when a report is gated.
//
// The language: decimal numbers (1e-7, 0.5), names, + - * / ^ (power, right
// associative), unary minus, parentheses, and the functions sqrt, abs, log2,
// min(a, b), max(a, b). Nothing else: no comparison, no assignment, no loop.
#include <map>
#include <string>
#include <string_view>

namespace distgrid::audit {

/// The values a model may name ("h", "band", "u", ...), see docs/audit.md.
using ModelNames = std::map<std::string, double, std::less<>>;

/// The value of `expression` with `names`. Throws distgrid::Error(badfile)
/// naming the expression and the position for a syntax error, naming the
/// name for an unknown name or function, and for a result that is not a
/// finite number (a division by zero, sqrt of a negative number, ...).
double evaluate_model(std::string_view expression, const ModelNames& names);

/// Every name a budget model may use, each with a one-line meaning (for the
/// help text, the docs and load-time checks).
const std::map<std::string, std::string, std::less<>>& model_name_meanings();

}  // namespace distgrid::audit
