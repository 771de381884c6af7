// `trace compare --map FILE`: which baseline op name a target op name stands for.
#pragma once
#include <map>
#include <string>

namespace banjia::trace {

// Reads a name map: lines "baseline_name,target_name" (CSV; '#' starts a comment line). The result
// maps each target name to its baseline name.
std::map<std::string, std::string> read_name_map(const std::string& path);

}  // namespace banjia::trace
