#include "distgrid/source_lines.hpp"

#include <gtest/gtest.h>

namespace distgrid {
namespace {

constexpr const char* kSource = R"(// sample( in a comment is not a definition
double Grid<S>::sample(double x);
inline double twice(double v) { return Grid<S>::sample(v) * 2; }
template <class S>
double Grid<S>::sample(double x,
                       double y) const {
  if (check(x)) { return "}"[0] == '}' ? x : y; }
  /* } */
  return x;
}
constexpr int brick_key_checked(int a) { return a; }
constexpr int brick_key(int a) noexcept {
  return a + brick_key_checked(a);
}
)";

TEST(FindDefinition, SpansTheTemplateLineToTheClosingBrace) {
  const auto lines = find_definition(kSource, "Grid<S>::sample");
  ASSERT_TRUE(lines);
  EXPECT_EQ(lines->first, 4);
  EXPECT_EQ(lines->last, 10);
}

TEST(FindDefinition, SkipsDeclarationsCallsAndLongerNames) {
  const auto lines = find_definition(kSource, "brick_key");
  ASSERT_TRUE(lines);
  EXPECT_EQ(lines->first, 12);
  EXPECT_EQ(lines->last, 14);
  EXPECT_FALSE(find_definition(kSource, "missing"));
  EXPECT_FALSE(find_definition("void f();", "f"));
}

}  // namespace
}  // namespace distgrid
