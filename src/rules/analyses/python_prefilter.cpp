#include "rules/analyses/python_prefilter.h"

#include <algorithm>

#include "python/literals.h"
#include "rules/analyses/python_analysis.h"
#include "rules/core/catalog.h"
#include "rules/core/match.h"

namespace banjia::rules {

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
  // Per token kind and first byte, bit (length - 1) when such a token may hold a needle (bit 31 for
  // length 32 and more): a needle name's shape; any string literal or f-string text; a one-byte '@'.
  for (int b = 0; b < 256; ++b) {
    uint32_t name = name_shapes_[b];
    if (long_names_) name |= uint32_t{1} << 31;
    candidate_lengths_[static_cast<uint8_t>(TokenKind::Name)][b] = name;
    candidate_lengths_[static_cast<uint8_t>(TokenKind::String)][b] = ~uint32_t{0};
    candidate_lengths_[static_cast<uint8_t>(TokenKind::FStringMiddle)][b] = ~uint32_t{0};
  }
  if (needles_.binary_at_in_loops) candidate_lengths_[static_cast<uint8_t>(TokenKind::Op)]['@'] = 1;
  for (const auto& p : needles_.string_prefixes) string_first_[static_cast<unsigned char>(p[0])] = true;
  for (const auto& v : needles_.string_values)
    if (!v.empty()) string_first_[static_cast<unsigned char>(v[0])] = true;
}

PythonPrefilter PythonPrefilter::for_rules(const RuleCatalog& rules) {
  PythonNeedles n;
  for (const MatchKindEntry& kind : match_kinds())
    if (kind.add_needles) kind.add_needles(rules, n);
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

bool PythonPrefilter::literal_may_match(std::string_view literal) const {
  // Most strings start with a byte no string needle starts with: decided without splitting.
  if (!string_first_[static_cast<unsigned char>(python::string_body_first_byte(literal))]) return false;
  auto lit = python::split_string_literal(literal);
  return lit && value_may_match(lit->body, true);
}

bool PythonPrefilter::may_match(std::string_view text, const python::TokenStream& ts) const {
  // Most files are decided by the cheap pass over the few tokens that can hold a needle: one that
  // counts anywhere, or none at all. Only a file whose sole needles are the loop advisories' is
  // scanned again, token by token, following its loops. The cheap pass goes a block of tokens at a
  // time, so that a needle near the top (an import) ends it early.
  constexpr size_t kBlock = 2048;
  thread_local UninitVector<uint32_t> candidates;  // reused: one block's worth
  bool in_loop_only = false;
  for (size_t lo = 0; lo < ts.tokens.size(); lo += kBlock) {
    candidate_tokens(text, ts, lo, std::min(lo + kBlock, ts.tokens.size()), candidates);
    const Found found = scan_candidates(text, ts, candidates);
    if (found == Found::needle) return true;
    in_loop_only = in_loop_only || found == Found::in_loop_only;
  }
  return in_loop_only && scan_loops(text, ts);
}

void PythonPrefilter::candidate_tokens(std::string_view text, const python::TokenStream& ts, size_t lo, size_t hi,
                                       UninitVector<uint32_t>& out) const {
  out.clear();
  if (text.empty()) return;  // no token has text to look at
  out.resize(hi - lo);  // not zeroed (UninitVector): every slot is written below before it is kept
  const python::Token* toks = ts.tokens.data();
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  uint32_t* slot = out.data();
  size_t kept = 0;
  const size_t end = text.size() - 1;
  for (size_t i = lo; i < hi; ++i) {  // no branch but the loop's: each index is written, kept or not
    const python::Token& t = toks[i];
    const uint32_t len = t.end - t.begin;
    const unsigned char first = bytes[std::min<size_t>(t.begin, end)];  // empty tokens may sit at the end
    const uint32_t lengths = candidate_lengths_[static_cast<uint8_t>(t.kind)][first];
    slot[kept] = static_cast<uint32_t>(i);
    kept += lengths >> std::min<uint32_t>(len - 1, 31) & 1;
  }
  out.resize(kept);
}

PythonPrefilter::Found PythonPrefilter::scan_candidates(std::string_view text, const python::TokenStream& ts,
                                                         const UninitVector<uint32_t>& candidates) const {
  Found found = Found::nothing;
  const python::Token* toks = ts.tokens.data();
  for (const uint32_t i : candidates) {
    const python::Token& t = toks[i];
    // The previous significant token (blanks, comments and blank-line ends skipped) says whether this
    // one follows a '.' and whether it starts a line (after NEWLINE, INDENT, DEDENT, or first).
    uint32_t j = i;
    while (j > 0 && (toks[j - 1].kind == TokenKind::Whitespace || toks[j - 1].kind == TokenKind::Comment ||
                     toks[j - 1].kind == TokenKind::NL))
      --j;
    const python::Token* prev = j > 0 ? &toks[j - 1] : nullptr;
    const bool after_dot = prev && prev->kind == TokenKind::Op && prev->end - prev->begin == 1 && text[prev->begin] == '.';
    const bool line_start = !prev || prev->kind == TokenKind::Newline || prev->kind == TokenKind::Indent ||
                            prev->kind == TokenKind::Dedent;
    switch (t.kind) {
      case TokenKind::Name:
        if (const NameNeedle* n = name_needle(t.text(text), after_dot)) {
          if (!n->loop_only) return Found::needle;
          found = Found::in_loop_only;
        }
        break;
      case TokenKind::String:
        if (literal_may_match(t.text(text))) return Found::needle;
        break;
      case TokenKind::FStringMiddle:
        if (value_may_match(t.text(text), false)) return Found::needle;
        break;
      default:  // a binary '@' (a line's first token is '@' only for a decorator): counts only in loops
        if (!line_start) found = Found::in_loop_only;
        break;
    }
  }
  return found;
}

bool PythonPrefilter::scan_loops(std::string_view text, const python::TokenStream& ts) const {
  bool line_start = true;  // the previous significant token ends a line, or there is none
  bool after_dot = false;  // the previous significant token is '.'
  // Inside a loop: an over-approximation of the loop advisories' own test (loop_structure in
  // kinds/loop_patterns.cpp). Every `for`/`while` outside brackets opens a loop at the current
  // indentation (comprehensions are inside brackets); a line that starts at or left of it closes it.
  // Loop headers only nest deeper, so the outermost open one decides: one number, no stack.
  int depth = 0, brackets = 0, loop_depth = -1;
  // In an import statement (from its `import` to the end of the line) a loop needle counts too: after
  // `from torch import matmul as mm`, the call in the loop reads `mm(...)`, and only the import holds
  // the name `matmul`.
  bool in_import = false;
  bool alias_start = false, in_alias = false;
  auto counts = [&](bool loop_only) { return !loop_only || loop_depth >= 0 || in_import; };
  // So does a qualified name's needle in a module-level alias (`mm = torch.matmul`,
  // python::derive_bindings): the call in the loop reads `mm(...)`. A line at indentation 0 that
  // starts `NAME =` is such a statement to its end. (Attribute-only needles are matched as written.)
  auto counts_in_alias = [&](const NameNeedle& n) { return in_alias && !n.attribute_only; };
  // A line starting at or left of the outermost open loop's indentation closes it.
  auto close_loop = [&] {
    if (line_start && loop_depth >= depth) loop_depth = -1;
  };
  for (const python::Token& t : ts.tokens) {
    char op = '\0';
    switch (t.kind) {
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
        alias_start = line_start && depth == 0;
        if (brackets == 0 && loop_depth < 0 && (name == "for" || name == "while")) loop_depth = depth;
        if (name == "import") in_import = true;
        if (!may_be_needle(name)) break;
        if (const NameNeedle* n = name_needle(name, after_dot); n && (counts(n->loop_only) || counts_in_alias(*n)))
          return true;
        break;
      }
      case TokenKind::String:
        close_loop();
        if (literal_may_match(t.text(text))) return true;
        break;
      case TokenKind::FStringMiddle:
        if (value_may_match(t.text(text), false)) return true;
        break;
      case TokenKind::Op:
        close_loop();
        if (t.end - t.begin == 1) op = text[t.begin];
        in_alias = in_alias || (alias_start && op == '=');
        alias_start = false;
        if (op == '(' || op == '[' || op == '{') ++brackets;
        else if ((op == ')' || op == ']' || op == '}') && brackets > 0) --brackets;
        else if (op == '@' && needles_.binary_at_in_loops && !line_start && counts(true)) return true;
        break;
      default:
        close_loop();
        break;
    }
    if (t.kind != TokenKind::Name) alias_start = false;
    line_start = t.kind == TokenKind::Newline;
    if (line_start) in_import = in_alias = false;
    after_dot = op == '.';
  }
  return false;
}

}  // namespace banjia::rules
