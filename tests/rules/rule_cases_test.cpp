// One test case per rule of the built-in catalogue, named after its id (Ruff's per-rule fixtures):
// the rule fires on each `before` of its data/rules examples and never on a `none` example,
// `migrate` turns each `before` into its `after` (for both targets; an example without `after`
// comes out unchanged, as the manual rules' dependency lists and CUDA sources do), and the findings on the
// examples equal the rule's reviewed snapshot, tests/snapshots/rules/<id>.snap (beside, not in,
// tests/fixtures: those are reference data banjia did not produce). BANJIA_UPDATE_SNAPSHOTS=1 writes
// the snapshots instead of comparing them; review the diff before committing it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "migrate/python_rewriter.h"
#include "migrate/tree_migrator.h"
#include "rules/core/catalog.h"
#include "rules/sources/python_scanner.h"
#include "scan/scanner.h"

namespace {

using banjia::Finding;
using banjia::rules::Rule;
using banjia::rules::RuleCatalog;
using banjia::rules::RuleExample;
namespace fs = std::filesystem;

constexpr std::string_view kTargets[] = {banjia::rules::kTargetNpu, banjia::rules::kTargetAccelerator};

const Rule& rule_for(std::string_view target, const std::string& id) { return *RuleCatalog::for_target(target)->find(id); }

// Rules of the other kinds read dependency lists and CUDA sources: their examples are files of a tree.
bool python_rule(const std::string& id) { return RuleCatalog::builtin().find(id)->match.python(); }

// A fresh directory holding the example as its file (named as the example says), which scan and
// migrate walk as they walk a tree: the file's name picks its reader there.
fs::path example_tree(const RuleExample& e) {
  static int made = 0;
  const fs::path dir = fs::temp_directory_path() /
                       ("banjia-rule-case-" + std::to_string(::getpid()) + "-" + std::to_string(++made));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / e.file, std::ios::binary) << e.before;
  return dir;
}

// A Python example is scanned as one file, without a tree around it; the others through scan's walk.
std::vector<Finding> scan(std::string_view target, const std::string& id, const RuleExample& e) {
  std::vector<Finding> out;
  if (python_rule(id)) {
    banjia::rules::scan_python(e.before, e.file, *RuleCatalog::for_target(target), out);
    return out;
  }
  const fs::path dir = example_tree(e);
  banjia::scan::ScanOptions opt;
  opt.rules = RuleCatalog::for_target(target);
  opt.threads = 1;
  out = banjia::scan::scan_paths({dir.string()}, opt).findings;
  fs::remove_all(dir);
  return out;
}

// What migrate writes for a non-Python example's file: a copy, or a rewrite of a Python one (setup.py).
std::string migrated_file(std::string_view target, const RuleExample& e) {
  const fs::path dir = example_tree(e);
  banjia::migrate::MigrateOptions o;
  o.source = dir.string();
  o.write = false;
  o.threads = 1;
  o.rewrite.target = std::string(target);
  o.rewrite.insert_import = false;  // the import insertion has its own tests
  const auto plan = banjia::migrate::plan_migration(o);
  fs::remove_all(dir);
  for (const auto& f : plan.files)
    if (f.relative == e.file) return f.kind == banjia::migrate::PlannedFile::Kind::rewrite ? f.rewrite.rewritten : e.before;
  ADD_FAILURE() << "migrate planned no " << e.file;
  return {};
}

std::string escaped(std::string_view s) {
  std::string out;
  for (char c : s) out += c == '\n' ? std::string("\\n") : std::string(1, c);
  return out;
}

std::string finding_lines(const std::vector<Finding>& fs) {
  std::string s;
  for (const auto& f : fs)
    s += std::to_string(f.line) + ":" + std::to_string(f.column) + " " + f.rule + " " +
         std::string(banjia::to_string(f.fix)) + (f.replacement ? " -> " + escaped(*f.replacement) : "") + "\n";
  return s;
}

// The snapshot of one rule: for the npu target, and for each target the rule has its own form for,
// every example's source (lines marked "> ") and every finding on it.
std::string snapshot_of(const std::string& id) {
  std::string s = "# " + id + ": findings on the examples of its data/rules entry (line:column rule fix -> replacement)\n";
  for (std::string_view target : kTargets) {
    const Rule& npu = rule_for(banjia::rules::kTargetNpu, id);
    bool own_form = target == banjia::rules::kTargetNpu;
    for (const auto& [name, form] : npu.targets) own_form = own_form || name == target;
    if (!own_form) continue;
    const Rule& r = rule_for(target, id);
    for (size_t i = 0; i < r.examples.size(); ++i) {
      const auto& e = r.examples[i];
      s += "\n## " + std::string(target) + " example " + std::to_string(i + 1) +
           (e.file == RuleExample{}.file ? "" : " in " + e.file) + (e.none ? " (none: must not fire)" : "") + "\n";
      std::istringstream lines(e.before);
      for (std::string line; std::getline(lines, line);) s += "> " + line + "\n";
      s += finding_lines(scan(target, id, e));
    }
  }
  return s;
}

std::filesystem::path snapshot_dir() { return std::filesystem::path(BANJIA_SOURCE_DIR) / "tests" / "snapshots" / "rules"; }

class RuleCase : public ::testing::TestWithParam<std::string> {};

std::vector<std::string> builtin_ids() {
  std::vector<std::string> ids;
  for (const auto& r : RuleCatalog::builtin().rules()) ids.push_back(r.id);
  return ids;
}

INSTANTIATE_TEST_SUITE_P(Catalogue, RuleCase, ::testing::ValuesIn(builtin_ids()), [](const auto& info) {
  std::string name = info.param;
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
});

bool has_rule(const std::vector<Finding>& fs, const std::string& id) {
  return std::any_of(fs.begin(), fs.end(), [&](const Finding& f) { return f.rule == id; });
}

TEST_P(RuleCase, FiresOnBeforeAndNeverOnNone) {
  for (std::string_view target : kTargets) {
    for (const auto& e : rule_for(target, GetParam()).examples) {
      const auto out = scan(target, GetParam(), e);
      if (e.none) EXPECT_FALSE(has_rule(out, GetParam())) << target << ": must not fire on:\n" << e.before << finding_lines(out);
      else EXPECT_TRUE(has_rule(out, GetParam())) << target << ": must fire on:\n" << e.before << "got:\n" << finding_lines(out);
    }
  }
}

TEST_P(RuleCase, MigrateRewritesBeforeIntoAfter) {
  if (!python_rule(GetParam())) {
    for (std::string_view target : kTargets)
      for (const auto& e : rule_for(target, GetParam()).examples)
        EXPECT_EQ(migrated_file(target, e), e.after.value_or(e.before)) << target << " on " << e.file << ":\n" << e.before;
    return;
  }
  for (std::string_view target : kTargets) {
    const auto& rules = *RuleCatalog::for_target(target);
    banjia::migrate::RewriteOptions opt;
    opt.target = std::string(target);
    opt.insert_import = false;  // the import insertion has its own tests
    for (const auto& e : rule_for(target, GetParam()).examples) {
      auto fr = banjia::migrate::rewrite_python(e.before, "example.py", rules, opt);
      EXPECT_EQ(fr.rewritten, e.after.value_or(e.before)) << target << " on:\n" << e.before;
      // Idempotent: the output migrates to itself.
      EXPECT_EQ(banjia::migrate::rewrite_python(fr.rewritten, "example.py", rules, opt).rewritten, fr.rewritten)
          << target << " again on:\n" << fr.rewritten;
    }
  }
}

TEST_P(RuleCase, FindingsMatchTheSnapshot) {
  const auto path = snapshot_dir() / (GetParam() + ".snap");
  const std::string actual = snapshot_of(GetParam());
  const char* update = std::getenv("BANJIA_UPDATE_SNAPSHOTS");
  if (update && std::string_view(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path << " is missing: run with BANJIA_UPDATE_SNAPSHOTS=1, then review it";
  const std::string expected((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(actual, expected) << "findings differ from " << path
                              << " (BANJIA_UPDATE_SNAPSHOTS=1 rewrites it; review the diff)";
}

TEST(RuleSnapshots, EverySnapshotIsOfARule) {
  for (const auto& entry : std::filesystem::directory_iterator(snapshot_dir())) {
    const std::string id = entry.path().stem().string();
    EXPECT_TRUE(RuleCatalog::builtin().find(id) && entry.path().extension() == ".snap")
        << entry.path() << " is the snapshot of no rule";
  }
}

TEST(RuleKinds, EveryRegisteredKindHasARuleAndEveryRuleARegisteredKind) {
  const auto kinds = banjia::rules::match_kinds();
  std::vector<size_t> rules_of_kind(kinds.size());
  for (const auto& r : RuleCatalog::builtin().rules()) {
    ASSERT_LT(r.match.index(), kinds.size()) << r.id;
    ++rules_of_kind[r.match.index()];
  }
  for (size_t k = 0; k < kinds.size(); ++k) {
    EXPECT_GT(rules_of_kind[k], 0u) << "no rule uses match kind " << kinds[k].name;
    EXPECT_EQ(banjia::rules::find_match_kind(kinds[k].name), &kinds[k]) << kinds[k].name;
  }
}

}  // namespace
