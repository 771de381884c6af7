#include "rules/analyses/string_literal_site.h"

#include <cctype>
#include <string>

#include "python/literals.h"

namespace banjia::rules {

using python::TokenKind;

std::optional<Literal> literal_at(const PythonAnalysis& a, uint32_t si) {
  const auto& t = a.sig_token(si);
  if (t.kind == TokenKind::String) {
    std::string_view s = t.text(a.text());
    // The same split the prefilter makes (python_prefilter.cpp): its needles are about this body.
    auto parts = python::split_string_literal(s);
    if (!parts || parts->bytes) return std::nullopt;
    // Implicit concatenation ("cu" "da") is not a plain device string: leave it alone.
    if (si + 1 < a.view.sig.size() && a.sig_token(si + 1).kind == TokenKind::String) return std::nullopt;
    if (si > 0 && a.sig_token(si - 1).kind == TokenKind::String) return std::nullopt;
    return Literal{si, si, a.view.sig[si], parts->body, true, t.begin + static_cast<size_t>(parts->body.data() - s.data())};
  }
  if (t.kind == TokenKind::FStringStart) {
    int depth = 0;
    uint32_t end = si;
    for (; end < a.view.sig.size(); ++end) {
      auto k = a.sig_token(end).kind;
      if (k == TokenKind::FStringStart) ++depth;
      else if (k == TokenKind::FStringEnd && --depth == 0) break;
    }
    if (end >= a.view.sig.size() || si + 1 >= end) return std::nullopt;
    const auto& mid = a.sig_token(si + 1);
    if (mid.kind != TokenKind::FStringMiddle) return std::nullopt;
    return Literal{si, end, a.view.sig[si + 1], mid.text(a.text()), si + 2 == end, mid.begin};
  }
  return std::nullopt;
}

namespace {

std::string_view chain_last_name_before(const PythonAnalysis& a, uint32_t si) {
  // si is the last token of the operand before an operator.
  return a.sig_is_name(si) ? a.sig_text(si) : std::string_view();
}

}  // namespace

std::string_view chain_last_name_after(const PythonAnalysis& a, uint32_t si) {
  std::string_view last;
  while (a.sig_is_name(si)) {
    last = a.sig_text(si);
    if (!a.sig_is_op(si + 1, ".")) break;
    si += 2;
  }
  return last;
}

Position position_of(const PythonAnalysis& a, const Literal& l) {
  Position p;
  uint32_t b = l.first_sig, e = l.last_sig;
  if (b > 0 && (a.sig_is_op(b - 1, "==") || a.sig_is_op(b - 1, "!="))) {
    p.compared = true;
    p.compared_with_last = b >= 2 ? chain_last_name_before(a, b - 2) : std::string_view();
  }
  if (a.sig_is_op(e + 1, "==") || a.sig_is_op(e + 1, "!=")) {
    p.compared = true;
    p.compared_with_last = chain_last_name_after(a, e + 2);
  }
  if (b >= 2 && a.sig_is_op(b - 1, "[") && a.sig_is(b - 2, "environ") && a.sig_is_op(e + 1, "]"))
    p.subscript_of_environ = true;
  if (a.sig_is(e + 1, "in") && chain_last_name_after(a, e + 2) == "environ") p.membership_in_environ = true;

  // A whole argument: preceded by '(' / ',' (or `kw=`), followed by ',' / ')'.
  if (!(a.sig_is_op(e + 1, ",") || a.sig_is_op(e + 1, ")"))) return p;
  uint32_t before = b;
  if (b >= 2 && a.sig_is_op(b - 1, "=") && a.sig_is_name(b - 2)) {
    p.keyword = a.sig_text(b - 2);
    before = b - 2;
  }
  if (before == 0 || !(a.sig_is_op(before - 1, "(") || a.sig_is_op(before - 1, ","))) return p;
  // Walk back to the enclosing '(' counting top-level commas.
  int commas = 0;
  const auto& match = a.view.match;
  for (int64_t i = static_cast<int64_t>(before) - 1, steps = 0; i >= 0 && steps < 100000; --i, ++steps) {
    uint32_t u = static_cast<uint32_t>(i);
    if (a.sig_token(u).kind != TokenKind::Op) continue;
    std::string_view s = a.sig_text(u);
    if ((s == ")" || s == "]" || s == "}") && match[u] >= 0 && match[u] < i) {
      i = match[u];
      continue;
    }
    if (s == ",") ++commas;
    else if (s == "(") {
      p.in_call = u > 0 && (a.sig_is_name(u - 1) || a.sig_is_op(u - 1, ")") || a.sig_is_op(u - 1, "]"));
      p.open_sig = u;
      break;
    } else if (s == "[" || s == "{") {
      return p;
    }
  }
  if (p.keyword.empty()) p.positional_index = commas;
  return p;
}

}  // namespace banjia::rules
