#pragma once
// DISTGRID_PROPERTY: a RapidCheck property run as one GoogleTest test, with the
// project's defaults.
//
// Seed: RC_PARAMS's seed if it names one, else 20261201, so every run is the same.
// Cases: the property's own count (cheap laws run more cases than mesh bakes),
// times 20 when DISTGRID_DEEP=1; an explicit max_success in RC_PARAMS wins.
// A failure prints RapidCheck's shrunk counterexample and the RC_PARAMS line that
// replays it.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <cstdlib>  // getenv, setenv (POSIX)
#include <sstream>
#include <string>
#include <string_view>

namespace distgrid::properties {

inline constexpr std::uint64_t kDefaultSeed = 20261201;
inline constexpr int kDeepFactor = 20;

inline bool deep_mode() {
  const char* deep = std::getenv("DISTGRID_DEEP");
  return deep != nullptr && std::string_view(deep) != "" && std::string_view(deep) != "0";
}

inline bool rc_params_name(std::string_view key) {
  const char* params = std::getenv("RC_PARAMS");
  return params != nullptr && std::string_view(params).find(key) != std::string_view::npos;
}

/// Puts the default seed into RC_PARAMS before RapidCheck reads it (once, on first
/// use), so the "Using configuration" line it prints names the seed in use.
inline void default_the_seed() {
  if (rc_params_name("seed=")) return;
  const char* params = std::getenv("RC_PARAMS");
  const std::string text = (params ? std::string(params) + " " : std::string()) + "seed=" + std::to_string(kDefaultSeed);
  ::setenv("RC_PARAMS", text.c_str(), 1);
}

template <class Testable>
void check_property(Testable&& testable, int cases) {
  using namespace rc::detail;
  default_the_seed();
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  TestMetadata metadata;
  metadata.id = std::string(info->test_suite_name()) + "/" + info->name();
  metadata.description = info->name();
  TestParams params = configuration().testParams;  // RC_PARAMS, else the defaults
  if (!rc_params_name("max_success=")) params.maxSuccess = cases * (deep_mode() ? kDeepFactor : 1);
  const TestResult result = checkTestable(std::forward<Testable>(testable), metadata, params);
  if (!result.template is<SuccessResult>()) {
    std::ostringstream message;
    printResultMessage(result, message);
    message << "\nReplay: RC_PARAMS=\"seed=" << params.seed << " max_success=" << params.maxSuccess
            << "\" ./<this test executable> --gtest_filter=" << info->test_suite_name() << "." << info->name();
    FAIL() << message.str();
  }
}

}  // namespace distgrid::properties

/// A property named Suite.Name, checked on `cases` generated cases (see above).
/// The suite names the calculations it covers, CamelCase ids joined by "And"
/// (GridSample, MeshNodeDistanceAndMeshRayParity); CMake turns them into the
/// CTest labels calc:<id>.
#define DISTGRID_PROPERTY(Suite, Name, cases)                                                  \
  void distgrid_property_##Suite##_##Name();                                                   \
  TEST(Suite, Name) { ::distgrid::properties::check_property(&distgrid_property_##Suite##_##Name, cases); } \
  void distgrid_property_##Suite##_##Name()
