// Match kind "requirement": a dependency in requirements*.txt, setup.py or pyproject.toml.
// requirements_scanner.cpp matches it on the parsed dependency list, so it has no Python needles or
// matcher.
#pragma once
#include "rules/core/kind.h"
#include "rules/core/match_fields.h"

namespace banjia::rules {

struct RequirementMatch {
  static constexpr std::string_view kName = "requirement";
  std::vector<std::string> packages;  // exact names (normalised)
  std::vector<std::string> prefixes;  // name prefixes
  bool torch_cuda_build = false;      // torch pinned to a CUDA build

  static RequirementMatch parse(const MatchFields& m) {
    return {m.strings("packages"), m.strings("prefixes"), m.flag("torch_cuda_build").value_or(false)};
  }
};

}  // namespace banjia::rules
