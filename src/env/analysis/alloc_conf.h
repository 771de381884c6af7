// PYTORCH_NPU_ALLOC_CONF values: "opt:val,opt:val" (roundup_power2_divisions may hold a bracketed list).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostic.h"
#include "env/model/env_finding.h"

namespace banjia::env {

struct AllocEntry {
  std::string key, value;
  size_t begin = 0, end = 0;  // byte range of the whole entry inside the value
  bool has_colon = true;
};

std::vector<AllocEntry> split_alloc_conf(std::string_view value);

// Checks one allocator configuration value of variable `var` (PYTORCH_NPU_ALLOC_CONF or PYTORCH_ALLOC_CONF).
void check_alloc_conf(std::string_view var, std::string_view value, const Site& site, std::vector<Finding>& out);

}  // namespace banjia::env
