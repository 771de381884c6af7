// The functions a Python file defines (def, at any depth) and the names of their positional
// parameters: a value passed positionally to one of them is known under the parameter's name.
#pragma once
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "rules/analyses/python_analysis.h"

namespace banjia::rules {

class LocalFunctions {
 public:
  explicit LocalFunctions(const PythonAnalysis& a);
  // The name of positional parameter `position` of the function `name` called as written (a method
  // call skips `self`/`cls`); "" when the file defines no such function, or several that disagree.
  std::string_view parameter(std::string_view name, int position, bool method_call) const;

 private:
  std::unordered_map<std::string_view, std::vector<std::vector<std::string_view>>> params_;
};

}  // namespace banjia::rules
