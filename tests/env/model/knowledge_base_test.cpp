// The knowledge base: every data/env file loads cleanly, every entry has a source, bad entries are
// rejected, every rule the code emits is documented, and every variable named in the fact sheet's
// tables (its sections "1. torch_npu variables" to "5. HCCL"; the sheet's excerpt is in
// tests/fixtures/knowledge, summarised in docs/sources/env-vars.md) is covered.
#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>

#include <gtest/gtest.h>

#include "common/file_io.h"
#include "env/model/knowledge_base.h"
#include "fixture_path.h"

namespace banjia::env {
namespace {

namespace fs = std::filesystem;

// The contents of every `...` span in a line's first table column.
std::vector<std::string> first_column_code_spans(const std::string& line) {
  std::string first = line.substr(1, line.find(" |", 2));
  std::vector<std::string> spans;
  for (size_t open = first.find('`'); open != std::string::npos; open = first.find('`', open + 1)) {
    size_t close = first.find('`', open + 1);
    if (close == std::string::npos) break;
    spans.push_back(first.substr(open + 1, close - open - 1));
    open = close;
  }
  return spans;
}

// Splits on the separators the fact sheet uses inside spans (", ", "/", "=", quotes, parentheses).
std::vector<std::string> tokens(const std::string& span) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : span + " ") {
    if (std::string_view(" ,/;=\"()").find(c) != std::string_view::npos) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  return out;
}

bool all_of_chars(const std::string& s, std::string_view allowed) {
  return !s.empty() && s.find_first_not_of(allowed) == std::string::npos;
}

std::vector<std::pair<std::string, std::string>> data_files() {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& e : fs::directory_iterator(fs::path(BANJIA_SOURCE_DIR) / "data" / "env"))
    if (e.path().extension() == ".toml") files.emplace_back(e.path().string(), read_file(e.path()));
  return files;
}

TEST(EnvKnowledgeBase, DataFilesLoadWithoutProblems) {
  auto kb = load_knowledge_base(data_files());
  for (const auto& p : kb.problems) ADD_FAILURE() << p;
  EXPECT_GT(kb.vars.size(), 100u);
  EXPECT_GT(kb.alloc_options.size(), 15u);
}

TEST(EnvKnowledgeBase, EmbeddedCopyMatchesTheDataDirectory) {
  auto disk = load_knowledge_base(data_files());
  const auto& embedded = knowledge_base();
  EXPECT_TRUE(embedded.problems.empty());
  EXPECT_EQ(embedded.vars.size(), disk.vars.size());
  EXPECT_EQ(embedded.rules.size(), disk.rules.size());
}

// scan reads the CUDA pairs alone (cuda_name_pairs); that is only right while cuda.toml is the one
// data file with [[cuda]] tables.
TEST(EnvKnowledgeBase, CudaPairsAloneEqualTheFullTable) {
  size_t tables_in_files = 0;
  for (const auto& [path, text] : data_files()) {
    size_t n = 0;
    for (size_t at = text.find("[[cuda]]"); at != std::string::npos; at = text.find("[[cuda]]", at + 1)) ++n;
    if (n) {
      EXPECT_TRUE(path.ends_with("cuda.toml")) << path << " defines [[cuda]] tables";
    }
    tables_in_files += n;
  }
  const auto& pairs = cuda_name_pairs();
  const auto& full = knowledge_base();
  EXPECT_TRUE(pairs.problems.empty());
  EXPECT_GT(tables_in_files, 5u);
  EXPECT_EQ(pairs.cuda.size(), tables_in_files);
  ASSERT_EQ(pairs.cuda.size(), full.cuda.size());
  for (size_t i = 0; i < pairs.cuda.size(); ++i) {
    EXPECT_EQ(pairs.cuda[i].name, full.cuda[i].name);
    EXPECT_EQ(pairs.cuda[i].ascend, full.cuda[i].ascend);
    EXPECT_EQ(pairs.cuda[i].automatic, full.cuda[i].automatic);
    EXPECT_EQ(pairs.cuda[i].value_map, full.cuda[i].value_map);
    EXPECT_EQ(pairs.cuda[i].source, full.cuda[i].source);
  }
  EXPECT_TRUE(pairs.vars.empty());  // and nothing else was parsed
}

TEST(EnvKnowledgeBase, EveryEntryHasASourceThatNamesARealReference) {
  const auto& kb = knowledge_base();
  std::vector<std::string> tags;
  for (const auto& t : kb.tags) tags.push_back(t.name);
  auto cited = [&](const std::string& s) {
    if (s.find("http") != std::string::npos || s.find(" : ") != std::string::npos ||
        s.find("docs/sources/") != std::string::npos)
      return true;
    for (const auto& t : tags)
      if (s.find(t) != std::string::npos) return true;
    return false;
  };
  for (const auto& v : kb.vars) EXPECT_TRUE(cited(v.source)) << v.name << ": " << v.source;
  for (const auto& o : kb.alloc_options) EXPECT_TRUE(cited(o.source)) << o.name;
  for (const auto& n : kb.names) EXPECT_TRUE(cited(n.source)) << n.name;
  for (const auto& c : kb.cuda) EXPECT_TRUE(cited(c.source)) << c.name;
  for (const auto& a : kb.advice) EXPECT_TRUE(cited(a.source)) << a.name;
  for (const auto& t : kb.templates)
    for (const auto& s : t.settings) EXPECT_TRUE(cited(s.source)) << t.scenario << " " << s.name;
}

TEST(EnvKnowledgeBase, EntryWithoutSourceIsRejected) {
  auto kb = load_knowledge_base({{"x.toml", R"([[var]]
name = "X_VAR"
component = "torch_npu"
type = "string"
default = "unset"
effect = "e"
class = "production"
)"}});
  ASSERT_EQ(kb.problems.size(), 1u);
  EXPECT_NE(kb.problems[0].find("missing 'source'"), std::string::npos) << kb.problems[0];
}

TEST(EnvKnowledgeBase, UnknownClassAndBadValueSpecsAreRejected) {
  auto kb = load_knowledge_base({{"x.toml", R"([[var]]
name = "A"
component = "torch_npu"
type = "enum"
default = "0"
effect = "e"
class = "experimental"
source = "PTA-doc"

[[var]]
name = "B"
component = "GPU"
type = "int"
min = 5
max = 1
values = ["1"]
default = "0"
effect = "e"
class = "deprecated"
source = "PTA-doc"
)"}});
  std::string all;
  for (const auto& p : kb.problems) all += p + "\n";
  EXPECT_NE(all.find("'A'"), std::string::npos);
  EXPECT_NE(all.find("unknown class"), std::string::npos);
  EXPECT_NE(all.find("enum without values"), std::string::npos);
  EXPECT_NE(all.find("unknown component 'GPU'"), std::string::npos);
  EXPECT_NE(all.find("min > max"), std::string::npos);
  EXPECT_NE(all.find("values given for a non-enum type"), std::string::npos);
  EXPECT_NE(all.find("deprecated without replacement"), std::string::npos);
}

TEST(EnvKnowledgeBase, FailsNeedsTheErrorPolicy) {
  auto kb = load_knowledge_base({{"x.toml", R"([[var]]
name = "A"
component = "HCCL"
type = "int"
default = "0"
effect = "e"
class = "production"
fails = "HCCL fail"
source = "HCCL-doc"
)"}});
  ASSERT_EQ(kb.problems.size(), 1u);
  EXPECT_NE(kb.problems[0].find("fails given without invalid = \"error\""), std::string::npos) << kb.problems[0];
}

TEST(EnvKnowledgeBase, MalformedTomlIsAProblemNotACrash) {
  auto kb = load_knowledge_base({{"bad.toml", "[[var]\nname = "}});
  ASSERT_EQ(kb.problems.size(), 1u);
  EXPECT_EQ(kb.problems[0].rfind("bad.toml", 0), 0u);
}

TEST(EnvKnowledgeBase, EveryRuleIdInTheCodeIsDocumented) {
  const auto& kb = knowledge_base();
  std::set<std::string> used;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(BANJIA_SOURCE_DIR) / "src" / "env")) {
    if (!e.is_regular_file()) continue;
    std::string text = read_file(e.path());
    for (size_t at = text.find("\"env-"); at != std::string::npos; at = text.find("\"env-", at + 1)) {
      size_t end = text.find('"', at + 1);
      std::string id = text.substr(at + 1, end - at - 1);
      if (all_of_chars(id, "abcdefghijklmnopqrstuvwxyz-")) used.insert(id);
    }
  }
  EXPECT_GT(used.size(), 20u);
  for (const auto& id : used) EXPECT_NO_THROW(kb.rule(id)) << id;
}

// The fact sheet's text from heading `first` up to heading `end`; throws (so the test fails and
// says why) when the sheet (read_file's InputError names it) or a heading is missing.
std::string fact_sheet_sections(std::string_view first, std::string_view end) {
  std::string md = read_file(banjia::test::fixture("knowledge/env-vars.md"));
  size_t from = md.find(first), to = md.find(end, from);
  if (from == std::string::npos || to == std::string::npos)
    throw std::runtime_error("env-vars.md: headings '" + std::string(first) + "' and '" + std::string(end) + "' not found");
  return md.substr(from, to - from);
}

// Every backticked UPPER_CASE name in the first column of the tables of the fact sheet's sections
// "1. torch_npu variables" to "5. HCCL".
std::set<std::string> fact_sheet_names() {
  std::istringstream lines(fact_sheet_sections("## 1. ", "## 6. "));
  std::set<std::string> names;
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.starts_with("| `")) continue;
    for (const auto& span : first_column_code_spans(line))
      for (const auto& t : tokens(span))
        if (t.size() >= 3 && t[0] >= 'A' && t[0] <= 'Z' && all_of_chars(t, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_*"))
          names.insert(t);
  }
  return names;
}

TEST(EnvKnowledgeBase, CoversEveryVariableOfTheFactSheet) {
  const auto& kb = knowledge_base();
  auto names = fact_sheet_names();
  ASSERT_GT(names.size(), 100u);
  for (const auto& n : names) {
    EXPECT_TRUE(kb.var(n) != nullptr) << n << " from env-vars.md has no [[var]] entry";
  }
}

TEST(EnvKnowledgeBase, CoversEveryAllocatorOptionOfTheFactSheet) {
  std::istringstream lines(fact_sheet_sections("## 2. ", "## 3. "));
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    if (!line.starts_with("| `")) continue;
    for (const auto& span : first_column_code_spans(line)) {
      ASSERT_TRUE(all_of_chars(span, "abcdefghijklmnopqrstuvwxyz0123456789_")) << span;
      EXPECT_TRUE(knowledge_base().alloc_option(span) != nullptr) << span;
      ++n;
    }
  }
  EXPECT_GE(n, 19);
}

TEST(EnvKnowledgeBase, LookupsByFamilyAndKind) {
  const auto& kb = knowledge_base();
  ASSERT_NE(kb.var("HCOMM_TA_LINK_TIMEOUT"), nullptr);
  EXPECT_EQ(kb.var("HCOMM_TA_LINK_TIMEOUT")->name, "HCOMM_TA_*_TIMEOUT");
  EXPECT_EQ(kb.var("MM_BMM_ND_ENABLE")->cls, VarClass::set_option);
  EXPECT_EQ(kb.name_info("NPU_FORCE_FP32")->kind, "invented");
  EXPECT_EQ(kb.cuda_pair("CUDA_VISIBLE_DEVICES")->ascend, "ASCEND_RT_VISIBLE_DEVICES");
  EXPECT_TRUE(kb.looks_ascendish("NPU_SOMETHING"));
  EXPECT_FALSE(kb.looks_ascendish("PATH"));
  EXPECT_THROW(kb.rule("env-no-such-rule"), std::logic_error);
}

}  // namespace
}  // namespace banjia::env
