// Dependency lists: requirements*.txt (pip syntax), setup.py install_requires / extras_require string
// literals, and pyproject.toml ([project] dependencies, optional-dependencies, tool.poetry).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostic.h"
#include "rules/core/catalog.h"
#include "rules/core/source_files.h"

namespace banjia::rules {

struct Requirement {
  std::string name;        // normalised: lower case, '_' and '.' -> '-'
  std::string spec;        // the whole requirement text as written
  size_t offset;           // of the requirement in the file
  bool torch_cuda_build;   // torch pinned to a +cuXXX local version
};

// Requirements in pip format; `--index-url`/`--extra-index-url` lines pointing at a CUDA wheel index
// are returned with name "--index-url" and torch_cuda_build = true.
std::vector<Requirement> parse_requirements_txt(std::string_view text);
// String literals of install_requires=[...] / extras_require={...} in a setup.py.
std::vector<Requirement> parse_setup_py_requirements(std::string_view text);
// pyproject.toml dependency arrays; throws InputError on invalid TOML.
std::vector<Requirement> parse_pyproject_requirements(std::string_view text, const std::string& file);


void scan_dependency_file(std::string_view text, DependencyFile kind, const std::string& display,
                          const RuleCatalog& rules, std::vector<Finding>& out);

}  // namespace banjia::rules
