#include "scan/python_prefilter.h"

#include <algorithm>

#include "scan/python_matches.h"
#include "scan/rule_catalog.h"

namespace banjia::scan {

using python::TokenKind;

void PythonNeedles::add_name(std::string_view name, bool attribute_only) {
  if (name.empty()) return;
  auto [it, inserted] = names.try_emplace(std::string(name), attribute_only);
  if (!inserted) it->second = it->second && attribute_only;
}

void PythonNeedles::add_dotted(std::string_view dotted) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    size_t dot = dotted.find('.', start);
    parts.push_back(dotted.substr(start, dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  // A component some needle already wants anywhere costs nothing more (`cuda` for all of torch.cuda).
  for (std::string_view p : parts) {
    auto it = names.find(p);
    if (it != names.end() && !it->second) return;
  }
  // Else the API's own name, unless it is a short common word (`triton.jit`, `apex.amp`): then the
  // longest other component. Never `torch`, the root of nearly every name in nearly every file.
  std::string_view pick = parts.back();
  if (pick.size() < 4) {
    for (size_t i = 0; i + 1 < parts.size(); ++i)
      if (parts[i] != "torch" && parts[i].size() > pick.size()) pick = parts[i];
  }
  add_name(pick);
}

void PythonNeedles::add_string_prefix(std::string_view prefix) {
  if (prefix.empty()) return;
  // A prefix that extends one already present adds nothing ("CUDA_" after "CUDA").
  for (const auto& p : string_prefixes)
    if (prefix.starts_with(p)) return;
  std::erase_if(string_prefixes, [&](const std::string& p) { return std::string_view(p).starts_with(prefix); });
  string_prefixes.emplace_back(prefix);
}

PythonPrefilter::PythonPrefilter(PythonNeedles needles) : needles_(std::move(needles)) {
  for (const auto& [name, attribute_only] : needles_.names) {
    if (name.size() > 32) long_names_ = true;
    else name_shapes_[static_cast<unsigned char>(name[0])] |= uint32_t{1} << (name.size() - 1);
  }
  for (const auto& p : needles_.string_prefixes) prefix_first_[static_cast<unsigned char>(p[0])] = true;
}

PythonPrefilter PythonPrefilter::for_rules(const RuleCatalog& rules) {
  PythonNeedles n;
  add_name_needles(rules, n);
  add_pattern_needles(rules, n);
  add_string_needles(rules, builtin_env_names(), n);
  return PythonPrefilter(std::move(n));
}

bool PythonPrefilter::name_may_match(std::string_view name, bool after_dot) const {
  if (name.size() > 32) {
    if (!long_names_) return false;
  } else if (!(name_shapes_[static_cast<unsigned char>(name[0])] >> (name.size() - 1) & 1)) {
    return false;
  }
  auto it = needles_.names.find(name);
  return it != needles_.names.end() && (after_dot || !it->second);
}

bool PythonPrefilter::value_may_match(std::string_view value) const {
  if (value.empty() || !prefix_first_[static_cast<unsigned char>(value[0])]) return false;
  return std::any_of(needles_.string_prefixes.begin(), needles_.string_prefixes.end(),
                     [&](const std::string& p) { return value.starts_with(p); });
}

namespace {
// The literal text of a String token: after its prefix letters and opening quote(s).
std::string_view string_value(std::string_view s) {
  size_t p = 0;
  while (p < s.size() && ((s[p] | 0x20) >= 'a' && (s[p] | 0x20) <= 'z')) ++p;
  std::string_view rest = s.substr(p);
  return rest.substr(rest.starts_with("\"\"\"") || rest.starts_with("'''") ? 3 : std::min<size_t>(1, rest.size()));
}
}  // namespace

bool PythonPrefilter::may_match(std::string_view text, const python::TokenStream& ts) const {
  bool line_start = true;  // the previous significant token ends a line, or there is none
  bool after_dot = false;  // the previous significant token is '.'
  for (const python::Token& t : ts.tokens) {
    char op = '\0';
    switch (t.kind) {
      case TokenKind::Whitespace:
      case TokenKind::Comment:
      case TokenKind::NL:
        continue;
      case TokenKind::Name:
        if (name_may_match(t.text(text), after_dot)) return true;
        break;
      case TokenKind::String:
        if (value_may_match(string_value(t.text(text)))) return true;
        break;
      case TokenKind::FStringMiddle:
        if (value_may_match(t.text(text))) return true;
        break;
      case TokenKind::Op:
        if (t.end - t.begin == 1) op = text[t.begin];
        // A statement's first token is '@' only for a decorator, which is no product.
        if (op == '@' && needles_.binary_at && !line_start) return true;
        break;
      default:
        break;
    }
    line_start = t.kind == TokenKind::Newline || t.kind == TokenKind::Indent || t.kind == TokenKind::Dedent;
    after_dot = op == '.';
  }
  return false;
}

}  // namespace banjia::scan
