#include "rules/analyses/local_functions.h"

namespace banjia::rules {

LocalFunctions::LocalFunctions(const PythonAnalysis& a) {
  const auto& v = a.view;
  for (const auto& st : v.statements) {
    uint32_t d = st.first_sig;
    if (a.sig_is(d, "async")) ++d;
    if (!a.sig_is(d, "def") || !a.sig_is_name(d + 1) || !a.sig_is_op(d + 2, "(") || v.match[d + 2] < 0) continue;
    uint32_t close = static_cast<uint32_t>(v.match[d + 2]);
    std::vector<std::string_view> names;
    bool at_start = true;
    for (uint32_t i = d + 3; i < close; ++i) {
      if ((v.op1[i] == '(' || v.op1[i] == '[' || v.op1[i] == '{') && v.match[i] > static_cast<int32_t>(i)) {
        i = static_cast<uint32_t>(v.match[i]);
        continue;
      }
      if (v.op1[i] == ',') {
        at_start = true;
        continue;
      }
      if (!at_start) continue;
      at_start = false;
      if (a.sig_is_op(i, "/")) continue;  // positional-only marker
      if (a.sig_is_op(i, "*") || a.sig_is_op(i, "**")) break;  // keyword-only from here
      if (a.sig_is_name(i)) names.push_back(a.sig_text(i));
    }
    params_[a.sig_text(d + 1)].push_back(std::move(names));
  }
}

std::string_view LocalFunctions::parameter(std::string_view name, int position, bool method_call) const {
  auto it = params_.find(name);
  if (it == params_.end() || position < 0) return {};
  std::string_view found;
  for (const auto& ps : it->second) {
    size_t shift = method_call && !ps.empty() && (ps[0] == "self" || ps[0] == "cls") ? 1 : 0;
    size_t at = static_cast<size_t>(position) + shift;
    std::string_view p = at < ps.size() ? ps[at] : std::string_view();
    if (p.empty() || (!found.empty() && found != p)) return {};
    found = p;
  }
  return found;
}

}  // namespace banjia::rules
