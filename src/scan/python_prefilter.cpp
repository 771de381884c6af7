#include "scan/python_prefilter.h"

#include <algorithm>

#include "python/literals.h"
#include "scan/python_matches.h"
#include "scan/rule_catalog.h"

namespace banjia::scan {

using python::TokenKind;

void PythonNeedles::add_name(std::string_view name, NameNeedle where) {
  if (name.empty()) return;
  auto [it, inserted] = names.try_emplace(std::string(name), where);
  if (inserted) return;
  it->second.attribute_only = it->second.attribute_only && where.attribute_only;
  it->second.loop_only = it->second.loop_only && where.loop_only;
}

void PythonNeedles::add_dotted(std::string_view dotted, NameNeedle where) {
  const std::vector<std::string_view> parts = split_dots(dotted);
  // A component some needle already wants wherever this one is needed costs nothing more (`cuda`
  // for all of torch.cuda). A component need not follow a '.', so an attribute-only one does not do.
  for (std::string_view p : parts) {
    auto it = names.find(p);
    if (it != names.end() && !it->second.attribute_only && (!it->second.loop_only || where.loop_only)) return;
  }
  // Else the API's own name, unless it is a short common word (`triton.jit`, `apex.amp`): then the
  // longest other component. Never `torch`, the root of nearly every name in nearly every file.
  std::string_view pick = parts.back();
  if (pick.size() < 4) {
    for (size_t i = 0; i + 1 < parts.size(); ++i)
      if (parts[i] != "torch" && parts[i].size() > pick.size()) pick = parts[i];
  }
  add_name(pick, {.attribute_only = false, .loop_only = where.loop_only});
}

void PythonNeedles::add_string_value(std::string_view value) {
  if (std::find(string_values.begin(), string_values.end(), value) == string_values.end())
    string_values.emplace_back(value);
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
  for (const auto& [name, where] : needles_.names) {
    if (name.size() > 32) long_names_ = true;
    else name_shapes_[static_cast<unsigned char>(name[0])] |= uint32_t{1} << (name.size() - 1);
  }
  for (const auto& p : needles_.string_prefixes) string_first_[static_cast<unsigned char>(p[0])] = true;
  for (const auto& v : needles_.string_values)
    if (!v.empty()) string_first_[static_cast<unsigned char>(v[0])] = true;
}

PythonPrefilter PythonPrefilter::for_rules(const RuleCatalog& rules) {
  PythonNeedles n;
  add_name_needles(rules, n);
  add_pattern_needles(rules, n);
  add_string_needles(rules, builtin_env_names(), n);
  return PythonPrefilter(std::move(n));
}

const NameNeedle* PythonPrefilter::name_needle(std::string_view name, bool after_dot) const {
  auto it = needles_.names.find(name);
  return it != needles_.names.end() && (after_dot || !it->second.attribute_only) ? &it->second : nullptr;
}

// `whole`: `value` is all of the literal's text (else an f-string part that may go on).
bool PythonPrefilter::value_may_match(std::string_view value, bool whole) const {
  if (value.empty() || !string_first_[static_cast<unsigned char>(value[0])]) return false;
  for (const auto& p : needles_.string_prefixes)
    if (value.starts_with(p)) return true;
  for (const auto& v : needles_.string_values)
    if (whole ? value == v : value.starts_with(v)) return true;
  return false;
}


bool PythonPrefilter::may_match(std::string_view text, const python::TokenStream& ts) const {
  // Most files are decided by the cheap pass: a needle that counts anywhere, or none at all. Only a
  // file whose sole needles are the loop advisories' is scanned again, following its loops.
  const Found found = scan_tokens<false>(text, ts);
  if (found != Found::in_loop_only) return found == Found::needle;
  return scan_tokens<true>(text, ts) == Found::needle;
}

template <bool kTrackLoops>
PythonPrefilter::Found PythonPrefilter::scan_tokens(std::string_view text, const python::TokenStream& ts) const {
  Found found = Found::nothing;
  bool line_start = true;  // the previous significant token ends a line, or there is none
  bool after_dot = false;  // the previous significant token is '.'
  // Inside a loop: an over-approximation of the loop advisories' own test (statements_in_loops in
  // python_match_patterns.cpp). Every `for`/`while` outside brackets opens a loop at the current
  // indentation (comprehensions are inside brackets); a line that starts at or left of it closes it.
  // Loop headers only nest deeper, so the outermost open one decides: one number, no stack.
  int depth = 0, brackets = 0, loop_depth = -1;
  // In an import statement (from its `import` to the end of the line) a loop needle counts too: after
  // `from torch import matmul as mm`, the call in the loop reads `mm(...)`, and only the import holds
  // the name `matmul`.
  bool in_import = false;
  // Without loop tracking, a needle that counts only in loops is remembered, and the scan goes on.
  auto hit = [&](bool loop_only) {
    if (!loop_only || (kTrackLoops && (loop_depth >= 0 || in_import))) return true;
    if (!kTrackLoops) found = Found::in_loop_only;
    return false;
  };
  // A line starting at or left of the outermost open loop's indentation closes it.
  auto close_loop = [&] {
    if constexpr (kTrackLoops)
      if (line_start && loop_depth >= depth) loop_depth = -1;
  };
  for (const python::Token& t : ts.tokens) {
    char op = '\0';
    switch (t.kind) {  // one jump per token: this loop sees every token of every file
      case TokenKind::Whitespace:
      case TokenKind::Comment:
      case TokenKind::NL:
        continue;
      case TokenKind::Indent:
      case TokenKind::Dedent:
        depth += t.kind == TokenKind::Indent ? 1 : -1;
        line_start = true;
        after_dot = false;
        continue;
      case TokenKind::Name: {
        close_loop();
        const std::string_view name = t.text(text);
        if (kTrackLoops && brackets == 0 && loop_depth < 0 && (name == "for" || name == "while")) loop_depth = depth;
        if (kTrackLoops && name == "import") in_import = true;
        if (!may_be_needle(name)) break;
        if (const NameNeedle* n = name_needle(name, after_dot); n && hit(n->loop_only)) return Found::needle;
        break;
      }
      case TokenKind::String: {
        close_loop();
        const std::string_view literal = t.text(text);
        // Most strings start with a byte no string needle starts with: decided without splitting.
        if (!string_first_[static_cast<unsigned char>(python::string_body_first_byte(literal))]) break;
        if (auto lit = python::split_string_literal(literal); lit && value_may_match(lit->body, true))
          return Found::needle;
        break;
      }
      case TokenKind::FStringMiddle:
        if (value_may_match(t.text(text), false)) return Found::needle;
        break;
      case TokenKind::Op:
        close_loop();
        if (t.end - t.begin == 1) op = text[t.begin];
        if (kTrackLoops && (op == '(' || op == '[' || op == '{')) ++brackets;
        else if (kTrackLoops && (op == ')' || op == ']' || op == '}') && brackets > 0) --brackets;
        // A line's first token is '@' only for a decorator, which is no product.
        else if (op == '@' && needles_.binary_at_in_loops && !line_start && hit(true)) return Found::needle;
        break;
      default:
        close_loop();
        break;
    }
    line_start = t.kind == TokenKind::Newline;
    if (line_start) in_import = false;
    after_dot = op == '.';
  }
  return found;
}

}  // namespace banjia::scan
