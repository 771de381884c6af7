// The knowledge base's TOML files travel as JSON (common/toml_json.h): every embedded file must come
// back as the document toml++ itself parses from the TOML.
#include "common/toml_json.h"

#include <gtest/gtest.h>

#include "common/embedded_data.h"
#include "common/errors.h"
#include "common/json_writer.h"
#include "common/toml_document.h"

namespace banjia {
namespace {

std::string as_json(std::string_view toml_text) {
  JsonWriter w(false);
  write_toml_as_json(w, toml::parse(toml_text));
  return w.take();
}

TEST(TomlJson, EveryEmbeddedTomlFileHasAnEqualJsonTwin) {
  size_t checked = 0;
  for (const auto& f : embedded_under("data/")) {
    if (!f.path.ends_with(".toml")) continue;
    const toml::table expected = toml::parse(f.contents, f.path);  // toml++ is the oracle
    auto twin = embedded_file("toml-as-json/" + std::string(f.path));
    ASSERT_TRUE(twin) << f.path;
    EXPECT_EQ(toml_from_json(*twin, std::string(f.path)), expected) << f.path;
    EXPECT_EQ(parse_toml(f.contents, std::string(f.path)), expected) << f.path;
    ++checked;
  }
  EXPECT_GE(checked, 10u);  // rules, env, trace, compare, bench
}

TEST(TomlJson, FloatsStayFloatsAndIntegersIntegers) {
  const toml::table back = toml_from_json(as_json("a = 1.0\nb = 1\nc = -2.5e-3\nd = [1, 2.0]\n"), "t");
  EXPECT_TRUE(back["a"].is_floating_point());
  EXPECT_EQ(back["a"].value<double>(), 1.0);
  EXPECT_TRUE(back["b"].is_integer());
  EXPECT_EQ(back["c"].value<double>(), -2.5e-3);
  EXPECT_TRUE(back["d"][0].is_integer());
  EXPECT_TRUE(back["d"][1].is_floating_point());
}

TEST(TomlJson, StringsKeepEveryByte) {
  const std::string toml_text = "s = \"tab\\tquote\\\" back\\\\ nl\\n \\u00e9 \\u4e2d\"\n";
  EXPECT_EQ(toml_from_json(as_json(toml_text), "t"), toml::parse(toml_text));
}

TEST(TomlJson, RefusesWhatJsonCannotCarry) {
  EXPECT_THROW(as_json("x = nan\n"), std::runtime_error);
  EXPECT_THROW(as_json("x = inf\n"), std::runtime_error);
  EXPECT_THROW(as_json("when = 2026-12-01\n"), std::runtime_error);
  EXPECT_THROW(toml_from_json("{\"x\": null}", "t"), InputError);
  EXPECT_THROW(toml_from_json("[1]", "t"), InputError);
  EXPECT_THROW(toml_from_json("{", "t"), InputError);
}

}  // namespace
}  // namespace banjia
