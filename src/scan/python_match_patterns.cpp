// Advisory patterns from the tuning article (§3.2), found statically: per-item matmul/conv calls and
// host-device syncs inside Python loops, and hand-written attention. They produce advice only.
#include <algorithm>
#include <array>

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

// `s` is one of `words` (a rule's names, or a fixed list below).
bool contains(const auto& words, std::string_view s) { return std::find(words.begin(), words.end(), s) != words.end(); }

constexpr std::string_view kSoftmax = "softmax";
// The names that make a product and a transpose in hand-written attention.
constexpr std::array<std::string_view, 3> kProductNames = {"matmul", "bmm", "einsum"};
constexpr std::array<std::string_view, 4> kTransposeNames = {"transpose", "mT", "T", "permute"};

// `softmax(...)` at sig index si whose arguments hold a product (`@`, matmul, bmm, einsum) and a
// transpose: hand-written attention. Names only: an f-string's text "T" is no transpose.
template <class Emit>
void match_attention(const PythonAnalysis& a, const std::vector<const Rule*>& attention, uint32_t si, Emit& emit) {
  int32_t close = a.view.match[si + 1];
  if (close < 0 || a.view.stmt_of[si] == python::kNoIndex) return;
  bool product = false, transpose = false;
  for (uint32_t k = si + 2; k < static_cast<uint32_t>(close); ++k) {
    if (a.view.op1[k] == '@') product = true;
    if (!a.sig_is_name(k)) continue;
    std::string_view t = a.sig_text(k);
    if (contains(kProductNames, t)) product = true;
    if (contains(kTransposeNames, t)) transpose = true;
  }
  if (product && transpose)
    for (const Rule* r : attention) emit(r, a.view.stmt_of[si], a.view.sig[si], a.view.sig[static_cast<uint32_t>(close)]);
}

}  // namespace

void match_patterns(const PythonAnalysis& a, const RuleCatalog& rules, std::vector<PyMatch>& out) {
  const auto& loop_calls = rules.of_kind(MatchKind::loop_call);
  const auto& loop_methods = rules.of_kind(MatchKind::loop_method);
  const auto& attention = rules.of_kind(MatchKind::attention_pattern);
  if (a.view.statements.empty()) return;
  const auto& stmt_of = a.view.stmt_of;
  // Loop structure is computed only for files that have a candidate call.
  std::vector<bool> loops;
  auto in_loop_at = [&](uint32_t si) {
    if (stmt_of[si] == python::kNoIndex) return false;
    if (loops.empty()) loops = statements_in_loops(a);
    return static_cast<bool>(loops[stmt_of[si]]);
  };
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
    for (const auto& ref : a.dotted.refs) {
      if (!ref.is_call || ref.qualified.empty()) continue;
      uint32_t si = ref.call_open_sig;
      if (si >= sig.size()) continue;
      for (const Rule* r : loop_calls)
        if (contains(r->names, ref.qualified) && in_loop_at(si))
          emit(r, stmt_of[si], ref.first_tok(a.view), ref.last_tok(a.view));
    }
  }

  // The token-level patterns, each found by searching op1 for its operator: `a @ b` in a loop,
  // `.item()`-style calls in a loop, and `softmax(... @ ... transpose ...)`.
  const auto& op1 = a.view.op1;
  const bool want_matmul_op = std::any_of(loop_calls.begin(), loop_calls.end(), [](const Rule* r) { return r->op == "@"; });
  if (want_matmul_op) {
    a.view.for_each_op1('@', [&](uint32_t si) {
      if (!in_loop_at(si)) return;
      if (si == a.view.statements[stmt_of[si]].first_sig) return;  // a decorator
      for (const Rule* r : loop_calls)
        if (r->op == "@") emit(r, stmt_of[si], sig[si], sig[si]);
    });
  }
  if (!loop_methods.empty()) {
    a.view.for_each_op1('.', [&](uint32_t si) {
      if (si + 2 >= sig.size() || op1[si + 2] != '(' || !a.sig_is_name(si + 1)) return;
      std::string_view name = a.sig_text(si + 1);
      for (const Rule* r : loop_methods)
        if (contains(r->names, name) && in_loop_at(si)) emit(r, stmt_of[si], sig[si], sig[si + 1]);
    });
  }
  if (!attention.empty()) {
    a.view.for_each_op1('(', [&](uint32_t open) {
      if (open == 0) return;
      const uint32_t si = open - 1;
      if (op1[si] == '\0' && a.sig_is_name(si) && a.sig_text(si) == kSoftmax) match_attention(a, attention, si, emit);
    });
  }
}

void add_pattern_needles(const RuleCatalog& rules, PythonNeedles& needles) {
  for (const Rule* r : rules.of_kind(MatchKind::loop_call)) {
    for (const auto& n : r->names) needles.add_dotted(n, {.loop_only = true});
    if (r->op == "@") needles.binary_at_in_loops = true;
  }
  for (const Rule* r : rules.of_kind(MatchKind::loop_method))
    for (const auto& n : r->names) needles.add_name(n, {.attribute_only = true, .loop_only = true});
  if (!rules.of_kind(MatchKind::attention_pattern).empty()) needles.add_name(kSoftmax);
}

}  // namespace banjia::scan
