#include "distgrid/audit/budget_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "distgrid/error.hpp"

namespace distgrid::audit {
namespace {

const ModelNames kNames{{"h", 0.015625}, {"band", 3}, {"u", 0x1p-24}, {"u64", 0x1p-53}, {"pow2_h", 1}, {"x_over_h", 5e5}};

std::string error_of(const std::string& expression) {
  try {
    (void)evaluate_model(expression, kNames);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::badfile) << expression;
    return e.what();
  }
  return "";
}

TEST(BudgetModel, EvaluatesNumbersNamesAndTheFourOperationsWithTheUsualPrecedence) {
  EXPECT_EQ(evaluate_model("1 + 2 * 3", kNames), 7);
  EXPECT_EQ(evaluate_model("(1 + 2) * 3", kNames), 9);
  EXPECT_EQ(evaluate_model("8 / 4 / 2", kNames), 1);
  EXPECT_EQ(evaluate_model("10 - 4 - 3", kNames), 3);
  EXPECT_EQ(evaluate_model("1.5e-3 * 2", kNames), 3e-3);
  EXPECT_EQ(evaluate_model("u * band", kNames), 0x1p-24 * 3);
  EXPECT_EQ(evaluate_model("4 + 2 * (1 - pow2_h) * x_over_h / band", kNames), 4);
}

TEST(BudgetModel, PowerIsRightAssociativeAndBindsTighterThanUnaryMinus) {
  EXPECT_EQ(evaluate_model("2^3^2", kNames), 512);
  EXPECT_EQ(evaluate_model("-2^2", kNames), -4);
  EXPECT_EQ(evaluate_model("2^-24", kNames), 0x1p-24);
  EXPECT_EQ(evaluate_model("25 * h^2", kNames), 25 * 0.015625 * 0.015625);
}

TEST(BudgetModel, KnowsSqrtAbsLog2MinAndMax) {
  EXPECT_EQ(evaluate_model("sqrt(16)", kNames), 4);
  EXPECT_EQ(evaluate_model("abs(1 - band)", kNames), 2);
  EXPECT_EQ(evaluate_model("log2(1 / h)", kNames), 6);
  EXPECT_EQ(evaluate_model("min(band, 2)", kNames), 2);
  EXPECT_EQ(evaluate_model("max(band, 2 * 2)", kNames), 4);
}

TEST(BudgetModel, RefusesAnUnknownNameNamingIt) {
  const std::string what = error_of("u * bandwidth");
  EXPECT_NE(what.find("unknown name 'bandwidth'"), std::string::npos) << what;
  EXPECT_NE(what.find("known: band, h"), std::string::npos) << what;
}

TEST(BudgetModel, RefusesAnUnknownFunctionNamingIt) {
  const std::string what = error_of("exp(1)");
  EXPECT_NE(what.find("unknown function 'exp'"), std::string::npos) << what;
}

TEST(BudgetModel, RefusesSyntaxErrorsWithTheirPosition) {
  EXPECT_NE(error_of("1 +").find("expected a number"), std::string::npos);
  EXPECT_NE(error_of("(1 + 2").find("expected ')'"), std::string::npos);
  EXPECT_NE(error_of("1 2").find("unexpected '2' at character 3"), std::string::npos);
  EXPECT_NE(error_of("max(1)").find("expected ','"), std::string::npos);
  EXPECT_NE(error_of("1 % 2").find("unexpected '%'"), std::string::npos);
  EXPECT_NE(error_of("").find("expected a number"), std::string::npos);
  EXPECT_NE(error_of("1..2").find("malformed number"), std::string::npos);
}

TEST(BudgetModel, RefusesAResultThatIsNotFinite) {
  EXPECT_NE(error_of("1 / (band - 3)").find("not a finite number"), std::string::npos);
  EXPECT_NE(error_of("sqrt(-1)").find("not a finite number"), std::string::npos);
}

TEST(BudgetModel, EveryDocumentedNameEvaluates) {
  ModelNames all;
  for (const auto& [name, meaning] : model_name_meanings()) {
    EXPECT_FALSE(meaning.empty()) << name;
    all[name] = 2;
  }
  for (const auto& [name, meaning] : model_name_meanings()) EXPECT_EQ(evaluate_model(name, all), 2) << name;
}

}  // namespace
}  // namespace distgrid::audit
