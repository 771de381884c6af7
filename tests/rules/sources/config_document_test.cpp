// Configuration files as scan reads them (rules/sources/config_document.h): which files are configurations,
// and for YAML, JSON and TOML the key path of every scalar and the bytes it is spelled with. Expected
// paths and offsets are written by hand from the documents below.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/errors.h"
#include "rules/sources/config_document.h"

namespace {

using banjia::rules::ConfigFormat;
using banjia::rules::ConfigScalar;

const ConfigScalar* at_path(const std::vector<ConfigScalar>& s, const std::string& path) {
  for (const auto& c : s)
    if (banjia::rules::key_path_text(c.path) == path) return &c;
  return nullptr;
}

// The text an optional range covers ("" without one).
std::string bytes(std::string_view text, const std::optional<banjia::rules::ByteRange>& r) {
  return r ? std::string(text.substr(r->begin, r->end - r->begin)) : std::string();
}

}  // namespace

TEST(ConfigFormat, ConfigurationFilesByName) {
  using banjia::rules::config_format;
  EXPECT_EQ(config_format("train.yaml"), ConfigFormat::yaml);
  EXPECT_EQ(config_format("job.yml"), ConfigFormat::yaml);
  EXPECT_EQ(config_format("ds_config.json"), ConfigFormat::json);
  EXPECT_EQ(config_format("serve.toml"), ConfigFormat::toml);
  for (const char* not_config : {"package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json",
                                 "pnpm-lock.yaml", "pyproject.toml", "notebook.ipynb", "yarn.lock", "x.lock.json", "train.py"})
    EXPECT_EQ(config_format(not_config), std::nullopt) << not_config;
}

TEST(ConfigYaml, KeyPathsAndVerbatimValues) {
  const std::string text =
      "# comment\n"
      "trainer:\n"
      "  device: cuda   # trailing comment\n"
      "  devices: ['cuda:0', \"cuda:1\"]\n"
      "  note: >\n"
      "    folded cuda\n"
      "env:\n"
      "  - name: CUDA_VISIBLE_DEVICES\n"
      "    value: \"0\"\n"
      "escaped: \"cu\\x64a\"\n"
      "flag: true\n";
  const auto s = banjia::rules::read_yaml(text, "t.yaml");
  const ConfigScalar* d = at_path(s, "trainer.device");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->value, "cuda");
  EXPECT_EQ(bytes(text, d->verbatim), "cuda");
  EXPECT_EQ(d->verbatim->begin, text.find("cuda   #"));
  EXPECT_EQ(bytes(text, d->key), "device");
  const ConfigScalar* d0 = at_path(s, "trainer.devices[0]");
  const ConfigScalar* d1 = at_path(s, "trainer.devices[1]");
  ASSERT_TRUE(d0 && d1);
  EXPECT_EQ(d0->verbatim->begin, text.find("cuda:0"));  // inside the quotes
  EXPECT_EQ(d1->verbatim->begin, text.find("cuda:1"));
  const ConfigScalar* folded = at_path(s, "trainer.note");
  ASSERT_NE(folded, nullptr);
  EXPECT_EQ(folded->value, "folded cuda\n");
  EXPECT_FALSE(folded->verbatim);  // a block scalar is not edited
  EXPECT_NE(at_path(s, "env[0].name"), nullptr);
  const ConfigScalar* esc = at_path(s, "escaped");
  ASSERT_NE(esc, nullptr);
  EXPECT_EQ(esc->value, "cuda");
  EXPECT_FALSE(esc->verbatim);  // its text is not its value
  EXPECT_FALSE(at_path(s, "flag")->is_string);
}

TEST(ConfigYaml, ColumnsCountCharactersNotBytes) {
  // libyaml counts columns in characters; 'é' is two bytes.
  const std::string text = "a: {note: \"é\", device: cuda}\r\nnext: 'cuda'\r\n";
  const auto s = banjia::rules::read_yaml(text, "t.yaml");
  ASSERT_NE(at_path(s, "a.device"), nullptr);
  ASSERT_TRUE(at_path(s, "a.device")->verbatim);
  EXPECT_EQ(at_path(s, "a.device")->verbatim->begin, text.find("cuda}"));
  EXPECT_EQ(at_path(s, "next")->verbatim->begin, text.find("cuda'"));
}

TEST(ConfigYaml, DocumentsAliasesAndErrors) {
  const std::string text = "a: &x cuda\nb: *x\n---\nc: nccl\n";
  const auto s = banjia::rules::read_yaml(text, "t.yaml");
  EXPECT_NE(at_path(s, "a"), nullptr);
  EXPECT_EQ(at_path(s, "b"), nullptr);  // an alias has no text of its own
  EXPECT_NE(at_path(s, "c"), nullptr);
  try {
    banjia::rules::read_yaml("a: [1, 2\nb: c\n", "bad.yaml");
    FAIL() << "no error";
  } catch (const banjia::InputError& e) {
    EXPECT_NE(e.problem().find("YAML error at line"), std::string::npos) << e.problem();
  }
}

TEST(ConfigJson, KeyPathsAndVerbatimValues) {
  const std::string text = "{\"a\": {\"device\": \"cuda:0\", \"n\": 8},\n \"l\": [\"nccl\", \"c\\u0075da\"], \"k\\\"q\": true}\n";
  const auto s = banjia::rules::read_json(text, "t.json");
  const ConfigScalar* d = at_path(s, "a.device");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(bytes(text, d->verbatim), "cuda:0");
  EXPECT_EQ(bytes(text, d->key), "\"device\"");
  EXPECT_EQ(bytes(text, d->written), "\"cuda:0\"");
  EXPECT_FALSE(at_path(s, "a.n")->is_string);
  EXPECT_EQ(at_path(s, "a.n")->value, "8");
  EXPECT_EQ(at_path(s, "l[0]")->verbatim->begin, text.find("nccl"));
  EXPECT_EQ(at_path(s, "l[1]")->value, "cuda");
  EXPECT_FALSE(at_path(s, "l[1]")->verbatim);
  EXPECT_NE(at_path(s, "k\"q"), nullptr);
}

TEST(ConfigJson, MalformedDocumentsAreInputErrors) {
  for (const char* bad : {"{\"a\": }", "{\"a\": 1} trailing", "[1, 2", "", "\x01\x02"}) {
    try {
      banjia::rules::read_json(bad, "bad.json");
      ADD_FAILURE() << "no error for " << bad;
    } catch (const banjia::InputError& e) {
      EXPECT_NE(e.problem().find("JSON error"), std::string::npos) << e.problem();
    }
  }
  // simdjson's depth limit, not the stack, stops a deep document
  EXPECT_THROW(banjia::rules::read_json(std::string(100000, '[') + std::string(100000, ']'), "deep.json"), banjia::InputError);
}

TEST(ConfigToml, KeyPathsAndVerbatimValues) {
  const std::string text =
      "[engine]\n"
      "device = \"cuda:0\"\n"
      "backend = 'nccl'\n"
      "notes = \"\"\"\ncuda\"\"\"\n"
      "[[jobs]]\n"
      "env = { CUDA_VISIBLE_DEVICES = \"0\" }\n";
  const auto s = banjia::rules::read_toml(text, "t.toml");
  EXPECT_EQ(bytes(text, at_path(s, "engine.device")->verbatim), "cuda:0");
  EXPECT_EQ(bytes(text, at_path(s, "engine.backend")->verbatim), "nccl");
  EXPECT_EQ(bytes(text, at_path(s, "engine.backend")->key), "backend");
  EXPECT_FALSE(at_path(s, "engine.notes")->verbatim);  // a multi-line string is not edited
  ASSERT_NE(at_path(s, "jobs[0].env.CUDA_VISIBLE_DEVICES"), nullptr);
  EXPECT_THROW(banjia::rules::read_toml("a = \n", "bad.toml"), banjia::InputError);
}

TEST(ConfigReaders, RandomBytesNeverCrash) {
  uint32_t seed = 12345;
  for (int i = 0; i < 300; ++i) {
    std::string junk;
    for (int k = 0; k < 64; ++k) {
      seed = seed * 1103515245u + 12345u;
      junk.push_back("{}[]:,\"' \n-#&*!|>abc0\\\t"[(seed >> 16) % 24]);
    }
    for (auto format : {ConfigFormat::yaml, ConfigFormat::json, ConfigFormat::toml}) {
      try {
        const auto s = banjia::rules::read_config(junk, format, "junk");
        for (const auto& c : s) {  // every range lies in the text
          if (c.verbatim) {
            EXPECT_LE(c.verbatim->end, junk.size());
          }
        }
      } catch (const banjia::InputError&) {
      }
    }
  }
}
