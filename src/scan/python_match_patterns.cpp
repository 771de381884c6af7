// Advisory patterns from the tuning article (§3.2), found statically: per-item matmul/conv calls and
// host-device syncs inside Python loops, and hand-written attention. They produce advice only.
#include <algorithm>

#include "scan/python_matches.h"

namespace banjia::scan {

using python::TokenKind;

namespace {

// For each statement: does it run inside a `for`/`while` loop body? A `def`/`class` body is a
// barrier: a function defined inside a loop does not run per iteration of that loop.
std::vector<bool> statements_in_loops(const PythonAnalysis& a) {
  const auto& stmts = a.view.statements;
  std::vector<bool> in_loop(stmts.size(), false);
  enum class Block { loop, barrier, other };
  struct Open { int depth; Block kind; uint32_t header_line; };
  std::vector<Open> stack;
  for (size_t i = 0; i < stmts.size(); ++i) {
    const auto& st = stmts[i];
    uint32_t line = a.sig_token(st.first_sig).line;
    // A body on the header's own line (`for x in xs: f(x)`) is a separate statement at the same depth.
    while (!stack.empty() && stack.back().depth >= st.indent_depth && stack.back().header_line != line)
      stack.pop_back();
    bool inside = false;
    for (auto it = stack.rbegin(); it != stack.rend() && it->kind != Block::barrier; ++it)
      if (it->kind == Block::loop) inside = true;
    std::string_view first = a.sig_text(st.first_sig);
    bool async = first == "async";
    std::string_view kw = async ? a.sig_text(st.first_sig + 1) : first;
    bool is_def = kw == "def" || kw == "class";
    bool is_loop = kw == "for" || kw == "while";
    bool header = a.sig_is_op(st.last_sig, ":");
    in_loop[i] = inside;
    if (header)
      stack.push_back({st.indent_depth, is_def ? Block::barrier : is_loop ? Block::loop : Block::other,
                       a.sig_token(st.last_sig).line});
  }
  return in_loop;
}

bool contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

void match_patterns(const PythonAnalysis& a, const RuleCatalog& rules, std::vector<PyMatch>& out) {
  auto loop_calls = rules.of_kind(MatchKind::loop_call);
  auto loop_methods = rules.of_kind(MatchKind::loop_method);
  auto attention = rules.of_kind(MatchKind::attention_pattern);
  if (a.view.statements.empty()) return;
  std::vector<bool> in_loop = statements_in_loops(a);
  const auto& stmt_of = a.view.stmt_of;
  const auto& sig = a.view.sig;
  // One advisory per statement and rule.
  std::vector<std::pair<uint32_t, const Rule*>> seen;
  auto emit = [&](const Rule* r, uint32_t stmt, uint32_t first_tok, uint32_t last_tok) {
    for (const auto& s : seen)
      if (s.first == stmt && s.second == r) return;
    seen.emplace_back(stmt, r);
    PyMatch m;
    m.rule = r;
    m.first_tok = first_tok;
    m.last_tok = last_tok;
    out.push_back(std::move(m));
  };

  if (!loop_calls.empty()) {
    for (const auto& ref : a.refs) {
      if (!ref.is_call || ref.qualified.empty() || ref.name_toks.empty()) continue;
      uint32_t si = ref.call_open_sig;
      if (si >= sig.size() || stmt_of[si] == python::kNoIndex || !in_loop[stmt_of[si]]) continue;
      for (const Rule* r : loop_calls)
        if (contains(r->names, ref.qualified)) emit(r, stmt_of[si], ref.name_toks.front(), ref.name_toks.back());
    }
    for (uint32_t si = 0; si < sig.size(); ++si) {
      if (!a.sig_is_op(si, "@") || stmt_of[si] == python::kNoIndex || !in_loop[stmt_of[si]]) continue;
      if (si == a.view.statements[stmt_of[si]].first_sig) continue;  // a decorator
      for (const Rule* r : loop_calls)
        if (!r->op.empty() && r->op == "@") emit(r, stmt_of[si], sig[si], sig[si]);
    }
  }

  if (!loop_methods.empty()) {
    for (uint32_t si = 0; si + 2 < sig.size(); ++si) {
      if (!a.sig_is_op(si, ".") || !a.sig_is_name(si + 1) || !a.sig_is_op(si + 2, "(")) continue;
      if (stmt_of[si] == python::kNoIndex || !in_loop[stmt_of[si]]) continue;
      std::string_view name = a.sig_text(si + 1);
      for (const Rule* r : loop_methods)
        if (contains(r->names, name)) emit(r, stmt_of[si], sig[si], sig[si + 1]);
    }
  }

  if (!attention.empty()) {
    for (uint32_t si = 0; si + 1 < sig.size(); ++si) {
      if (!a.sig_is_name(si) || a.sig_text(si) != "softmax" || !a.sig_is_op(si + 1, "(")) continue;
      int32_t close = a.view.match[si + 1];
      if (close < 0) continue;
      bool product = false, transpose = false;
      for (uint32_t k = si + 2; k < static_cast<uint32_t>(close); ++k) {
        std::string_view t = a.sig_text(k);
        if (a.sig_is_op(k, "@") || t == "matmul" || t == "bmm" || t == "einsum") product = true;
        if (t == "transpose" || t == "mT" || t == "T" || t == "permute") transpose = true;
      }
      if (product && transpose && stmt_of[si] != python::kNoIndex)
        for (const Rule* r : attention) emit(r, stmt_of[si], sig[si], sig[static_cast<uint32_t>(close)]);
    }
  }
}

}  // namespace banjia::scan
