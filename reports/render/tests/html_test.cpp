#include "html.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace distgrid::render::detail {
namespace {

using nlohmann::json;

TEST(Escape, ReplacesEveryCharacterThatCouldOpenMarkup) {
  EXPECT_EQ(escape("a < b && c > \"d\" 'e'"), "a &lt; b &amp;&amp; c &gt; &quot;d&quot; &#39;e&#39;");
  EXPECT_EQ(escape("template <class S> S Grid<S>::sample"), "template &lt;class S&gt; S Grid&lt;S&gt;::sample");
}

TEST(ScriptSafeJson, NoTextInsideCanEndTheScriptElementAndItParsesBackEqual) {
  const json document = {{"code", "</script><script>alert(1)</script>"},
                         {"comment", "<!-- x -->"},
                         {"amp", "a & b"},
                         {"unicode", "2\u00b2 \u2264 h\u00b3"}};
  const std::string text = script_safe_json(document);
  EXPECT_EQ(text.find('<'), std::string::npos);
  EXPECT_EQ(text.find('>'), std::string::npos);
  EXPECT_EQ(text.find('&'), std::string::npos);
  EXPECT_EQ(json::parse(text), document);
}

TEST(NumberText, UsesThreeSignificantDigitsAndNoLocale) {
  EXPECT_EQ(number_text(0.0), "0");
  EXPECT_EQ(number_text(1.0 / 3.0), "0.333");
  EXPECT_EQ(number_text(6.103515625e-05), "6.1e-05");
  EXPECT_EQ(number_text(123456.0), "1.23e+05");
  EXPECT_EQ(number_text(-2.5), "-2.5");
}

TEST(TolerantReads, AWrongTypeOrNullReadsAsAbsent) {
  const json object = {{"n", 3}, {"x", 0.5}, {"s", "text"}, {"z", nullptr}, {"a", json::array({1})}};
  EXPECT_EQ(number_or(object, "n"), "3");
  EXPECT_EQ(number_or(object, "x"), "0.5");
  EXPECT_EQ(number_or(object, "s"), "null");
  EXPECT_EQ(number_or(object, "z", "-"), "-");
  EXPECT_EQ(text_of(object, "n", "fallback"), "fallback");
  EXPECT_EQ(text_of(object, "s"), "text");
  EXPECT_EQ(member(object, "z"), nullptr);
  EXPECT_EQ(array_of(object, "a").size(), 1u);
  EXPECT_TRUE(array_of(object, "s").empty());
  EXPECT_TRUE(array_of(json("not an object"), "a").empty());
}

TEST(Anchor, KeepsIdsReadableAndRemovesCharactersThatBreakFragments) {
  EXPECT_EQ(anchor("grid.sample"), "grid.sample");
  EXPECT_EQ(anchor("core/src/grid.cpp"), "core-src-grid.cpp");
  EXPECT_EQ(anchor("a \"b\" <c>"), "a--b---c-");
}

}  // namespace
}  // namespace distgrid::render::detail
