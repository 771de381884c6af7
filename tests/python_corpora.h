// The Python source corpora of the C++ front-end tests: the standard library and the torch package of
// the repository's .venv (Python 3.11 with torch, made by the setup), as tests/CMakeLists.txt found them
// at configure time. BANJIA_PY_STDLIB / BANJIA_PY_TORCH in the environment override those directories.
// The file selection is tests/e2e/python_corpora.py's: in the standard library, CPython's own test
// suites and third-party package directories are left out.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace banjia::test {

struct PythonCorpus {
  std::filesystem::path dir;
  std::string missing;  // why there is no corpus; empty when dir is a directory
};

inline PythonCorpus python_corpus(const char* env_name, const char* configured, const char* what) {
  const char* env = std::getenv(env_name);
  PythonCorpus c{env && *env ? env : configured, ""};
  std::error_code ec;
  if (c.dir.empty())
    c.missing = std::string("no ") + what + " corpus: configure with the repository's .venv in place (or set " +
                env_name + ")";
  else if (!std::filesystem::is_directory(c.dir, ec))
    c.missing = std::string(what) + " corpus " + c.dir.string() + " is not a directory (" + env_name + ")";
  return c;
}

inline PythonCorpus python_stdlib() { return python_corpus("BANJIA_PY_STDLIB", BANJIA_PY_STDLIB, "standard library"); }
inline PythonCorpus python_torch() { return python_corpus("BANJIA_PY_TORCH", BANJIA_PY_TORCH, "torch package"); }

// Every .py file under root in path order; with `stdlib`, directories named test, tests, idle_test,
// site-packages and dist-packages are not entered.
inline std::vector<std::filesystem::path> python_files(const std::filesystem::path& root, bool stdlib) {
  namespace fs = std::filesystem;
  static const std::vector<std::string> skipped = {"test", "tests", "idle_test", "site-packages", "dist-packages"};
  std::vector<fs::path> out;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied);
       it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory()) {
      if (stdlib && std::find(skipped.begin(), skipped.end(), name) != skipped.end()) it.disable_recursion_pending();
    } else if (it->is_regular_file() && it->path().extension() == ".py") {
      out.push_back(it->path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace banjia::test

// Fails the test when the corpus is missing: a silently absent corpus would make it prove nothing.
// A hand-run without the .venv may set BANJIA_ALLOW_MISSING_CORPUS=1 to skip it instead.
#define BANJIA_REQUIRE_CORPUS(corpus)                                                    \
  do {                                                                                   \
    if (!(corpus).missing.empty()) {                                                     \
      const char* allow_ = std::getenv("BANJIA_ALLOW_MISSING_CORPUS");                   \
      if (allow_ && std::string(allow_) == "1") GTEST_SKIP() << (corpus).missing;        \
      FAIL() << (corpus).missing << " (BANJIA_ALLOW_MISSING_CORPUS=1 skips instead)";    \
    }                                                                                    \
  } while (false)
