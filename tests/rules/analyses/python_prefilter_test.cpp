// The scan prefilter may only turn away files on which no matcher fires. The oracle is the full
// analysis: every file of the corpora (examples/, the rule examples, and the standard library and
// torch package of the repository's .venv) that has a match must pass the filter; and the filter must
// turn some files away.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/errors.h"
#include "python_corpora.h"
#include "rules/analyses/python_analysis.h"
#include "rules/analyses/python_prefilter.h"
#include "rules/sources/python_scanner.h"
#include "rules/core/catalog.h"
#include "rules/core/match.h"

namespace fs = std::filesystem;
using banjia::rules::PythonAnalysis;
using banjia::rules::PythonNeedles;
using banjia::rules::PythonPrefilter;
using banjia::rules::RuleCatalog;

namespace {

const PythonPrefilter& builtin_filter() {
  static const PythonPrefilter p = PythonPrefilter::for_rules(RuleCatalog::builtin());
  return p;
}

struct Verdict {
  bool analysed = false;  // false: not Python text (an input error, decided before the filter)
  bool matched = false;
  bool passed = false;
};

Verdict judge(std::string_view source) {
  Verdict v;
  PythonAnalysis a;
  try {
    banjia::rules::analyse_python(source, "t.py", a);
  } catch (const banjia::InputError&) {
    return v;
  }
  v.analysed = true;
  v.matched = !banjia::rules::match_python(a, RuleCatalog::builtin()).empty();
  v.passed = builtin_filter().may_match(a.text(), a.tokens);
  return v;
}

bool passes(std::string_view source) {
  Verdict v = judge(source);
  EXPECT_TRUE(v.analysed) << source;
  return v.passed;
}

struct CorpusCount {
  size_t files = 0, matched = 0, turned_away = 0;
};

// Judges every file; each matched file that the filter turned away fails the test.
CorpusCount judge_files(const std::vector<fs::path>& files) {
  CorpusCount c;
  for (const auto& path : files) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    Verdict v = judge(ss.str());
    if (!v.analysed) continue;
    ++c.files;
    c.matched += v.matched;
    c.turned_away += !v.passed;
    EXPECT_TRUE(v.passed || !v.matched) << path << ": a rule matches but the prefilter turned the file away";
  }
  return c;
}

}  // namespace

TEST(PythonPrefilter, NoFileWithAMatchIsTurnedAwayInTheExamples) {
  CorpusCount c = judge_files(banjia::test::python_files(fs::path(BANJIA_SOURCE_DIR) / "examples", false));
  EXPECT_GT(c.matched, 0u);
}

TEST(PythonPrefilter, EveryRuleExampleThatMatchesPasses) {
  size_t matched = 0;
  for (const auto& r : RuleCatalog::builtin().rules()) {
    for (const auto& e : r.examples) {
      Verdict v = judge(e.before);
      if (!v.analysed) continue;
      matched += v.matched;
      EXPECT_TRUE(v.passed || !v.matched) << r.id << ": " << e.before;
    }
  }
  EXPECT_GT(matched, 20u);
}

// The .venv's corpora (the setup makes it): thousands of real files.
TEST(PythonPrefilter, NoFileWithAMatchIsTurnedAwayInTheStdlib) {
  const auto stdlib = banjia::test::python_stdlib();
  BANJIA_REQUIRE_CORPUS(stdlib);
  CorpusCount c = judge_files(banjia::test::python_files(stdlib.dir, true));
  EXPECT_GT(c.files, 500u) << stdlib.dir;
  EXPECT_GT(c.turned_away, 0u) << stdlib.dir << ": the filter turns nothing away";
  // The standard library runs on no device: it may have no match at all.
}

TEST(PythonPrefilter, NoFileWithAMatchIsTurnedAwayInTorch) {
  const auto torch = banjia::test::python_torch();
  BANJIA_REQUIRE_CORPUS(torch);
  CorpusCount c = judge_files(banjia::test::python_files(torch.dir, false));
  EXPECT_GT(c.files, 500u) << torch.dir;
  EXPECT_GT(c.turned_away, 0u) << torch.dir << ": the filter turns nothing away";
  EXPECT_GT(c.matched, 0u) << torch.dir;
}

TEST(PythonPrefilter, PlainCodeAndCommentsAreTurnedAway) {
  EXPECT_FALSE(passes("x = 1\nprint(x)\n"));
  EXPECT_FALSE(passes("# x.cuda() and torch.cuda.synchronize() in a comment\ny = 2\n"));
  EXPECT_FALSE(passes("s = 'runs on cuda devices'\n"));  // not a device string: does not start with it
  EXPECT_FALSE(passes("k = 'cudaMemcpy'\nn = 'nccl_debug'\n"));  // "cuda"/"nccl" as whole values only
  EXPECT_FALSE(passes("for item in items:\n    total += item\n"));  // `.item()` is wanted, not a name
  EXPECT_FALSE(passes("@staticmethod\ndef f(): pass\nclass A:\n    @property\n    def g(self): pass\n"));
}

TEST(PythonPrefilter, NamesOfEveryFamilyPass) {
  EXPECT_TRUE(passes("x = y.cuda()\n"));
  EXPECT_TRUE(passes("from torch import cuda as c\nc.synchronize()\n"));
  EXPECT_TRUE(passes("import flash_attn\n"));
  EXPECT_TRUE(passes("@triton.jit\ndef k(x): pass\n"));
  EXPECT_TRUE(passes("p = torch.softmax(q @ k.transpose(-1, -2), -1)\n"));
}

TEST(PythonPrefilter, StringsPassByTheirLeadingText) {
  EXPECT_TRUE(passes("d = torch.device('cuda:0')\n"));
  EXPECT_TRUE(passes("d = torch.device(\"\"\"cuda\"\"\")\n"));
  EXPECT_TRUE(passes("x = x.to(f\"cuda:{rank}\")\n"));
  EXPECT_TRUE(passes("dist.init_process_group(backend=\"nccl\")\n"));
  EXPECT_TRUE(passes("os.environ['CUDA_VISIBLE_DEVICES'] = '0'\n"));
  EXPECT_TRUE(passes("v = os.getenv(r'''NCCL_DEBUG''')\n"));
}

TEST(PythonPrefilter, MatmulOperatorInLoopsPassesButDecoratorsDoNot) {
  EXPECT_FALSE(passes("for f in fs:\n    @staticmethod\n    def g(): pass\n"));
  EXPECT_FALSE(passes("c = a @ b\n"));  // not in a loop: no per-iteration advisory
  EXPECT_TRUE(passes("for a in xs:\n    c = a @ b\n"));
  // A continuation line inside brackets starts with '@' but is no decorator.
  EXPECT_TRUE(passes("while True:\n    c = (a\n         @ b)\n"));
}

TEST(PythonPrefilter, LoopAdvisoriesNeedALoop) {
  EXPECT_FALSE(passes("v = loss.item()\nys = [y.item() for y in ys]\n"));  // a comprehension is no loop statement
  EXPECT_TRUE(passes("for y in ys:\n    total += y.item()\n"));
  EXPECT_TRUE(passes("for y in ys: total += y.item()\n"));
  EXPECT_TRUE(passes("n = 0; while n < 3: n = x.cpu()\n"));  // a loop after ';'
  EXPECT_TRUE(passes("for y in ys:\n    if y:\n\n        z = torch.mm(y, y)\n"));
  // The loop calls an alias: only the import names the API.
  EXPECT_TRUE(passes("from torch import matmul as mul\nfor a in xs:\n    c = mul(a, a)\n"));
  EXPECT_TRUE(passes("from torch.nn.functional import (\n    linear as lin)\nwhile 1:\n    y = lin(x, w)\n"));
  // The loop closes where a line starts at its indentation again.
  EXPECT_FALSE(passes("for y in ys:\n    pass\nv = loss.item()\n"));
  EXPECT_FALSE(passes("if a:\n    for y in ys: pass\n    v = loss.item()\n"));
}

TEST(PythonNeedles, OneComponentOfADottedNameIsTheNeedle) {
  PythonNeedles n;
  n.add_dotted("triton.jit");  // short API name: the longest other component
  n.add_dotted("torch.mm");    // no other component but the root: the name itself
  n.add_dotted("torch.nn.functional.linear");
  EXPECT_TRUE(n.names.contains("triton"));
  EXPECT_TRUE(n.names.contains("mm"));
  EXPECT_TRUE(n.names.contains("linear"));
  EXPECT_FALSE(n.names.contains("torch"));
  n.add_name("cuda");
  n.add_dotted("torch.cuda.synchronize");  // `cuda` is already wanted anywhere: nothing added
  EXPECT_FALSE(n.names.contains("synchronize"));
  n.add_name("item", {.attribute_only = true, .loop_only = true});
  EXPECT_TRUE(n.names.at("item").attribute_only);
  n.add_name("item", {.loop_only = true});
  EXPECT_FALSE(n.names.at("item").attribute_only);  // wanted as any name by someone: any name
  EXPECT_TRUE(n.names.at("item").loop_only);
  // A loop-only needle does not stand for a name wanted everywhere.
  n.add_name("matmul", {.loop_only = true});
  n.add_dotted("torch.matmul");
  EXPECT_FALSE(n.names.at("matmul").loop_only);
}

TEST(PythonNeedles, StringPrefixesKeepOnlyTheShortest) {
  PythonNeedles n;
  n.add_string_prefix("CUDA_");
  n.add_string_prefix("CUDA");
  n.add_string_prefix("CUDA_LAUNCH");
  ASSERT_EQ(n.string_prefixes.size(), 1u);
  EXPECT_EQ(n.string_prefixes[0], "CUDA");
}

TEST(PythonPrefilter, BuiltinNeedlesComeFromTheCatalogue) {
  const PythonNeedles& n = builtin_filter().needles();
  EXPECT_TRUE(n.names.contains("cuda"));    // attribute rule tensor-cuda-call
  EXPECT_TRUE(n.names.contains("pynvml"));  // import rule
  EXPECT_TRUE(n.binary_at_in_loops);        // matmul-in-loop's operator
  EXPECT_TRUE(n.names.at("item").loop_only);
  EXPECT_FALSE(n.names.contains("torch"));
}

TEST(RuleCatalogRevision, DiffersBetweenCataloguesAndChangesWithEveryAddition) {
  RuleCatalog a, b;
  EXPECT_NE(a.revision(), b.revision());
  const uint64_t before = a.revision();
  a.add_toml(R"([[rule]]
id = "x"
category = "device"
severity = "warning"
fix = "manual"
message = "m"
source = "s"
match = { kind = "attribute", name = "cuda" }
)", "t.toml");
  EXPECT_NE(a.revision(), before);
}

// The cheap pass looks at tokens a block at a time (2048): a needle past the first block, or one
// whose '.' ends one block while its name starts the next, is still seen; nothing in plain code is.
TEST(PythonPrefilter, NeedlesAroundBlockBoundariesPass) {
  for (int filler = 1000; filler < 1040; ++filler) {  // "a = 1\n" is 6 tokens with blanks: 6000-6240
    std::string plain;
    for (int i = 0; i < filler; ++i) plain += "a = 1\n";
    SCOPED_TRACE(filler);
    EXPECT_FALSE(passes(plain + "x.device\n"));
    EXPECT_TRUE(passes(plain + "x = y.cuda()\n"));
    EXPECT_TRUE(passes(plain + "x = y . cuda()\n"));  // blanks between '.' and the name
    EXPECT_TRUE(passes(plain + "for y in ys:\n    total += y.item()\n"));
    EXPECT_FALSE(passes(plain + "v = loss.item()\n"));
    EXPECT_FALSE(passes(plain + "item = 1\nfor y in ys: pass\n"));  // `item` not after '.'
  }
}
