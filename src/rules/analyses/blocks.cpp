#include "rules/analyses/blocks.h"

namespace banjia::rules {

using python::kNoIndex;

Blocks block_structure(const PythonAnalysis& a) {
  const auto& stmts = a.view.statements;
  Blocks b;
  b.body_end.assign(stmts.size(), kNoIndex);
  b.parent.assign(stmts.size(), kNoIndex);
  struct Open { int depth; uint32_t header_line; uint32_t stmt; };
  std::vector<Open> stack;
  for (uint32_t i = 0; i < stmts.size(); ++i) {
    const auto& st = stmts[i];
    const uint32_t line = a.sig_token(st.first_sig).line;
    while (!stack.empty() && stack.back().depth >= st.indent_depth && stack.back().header_line != line) {
      b.body_end[stack.back().stmt] = i - 1;
      stack.pop_back();
    }
    if (!stack.empty()) b.parent[i] = stack.back().stmt;
    if (a.sig_is_op(st.last_sig, ":")) stack.push_back({st.indent_depth, a.sig_token(st.last_sig).line, i});
  }
  for (const Open& o : stack) b.body_end[o.stmt] = static_cast<uint32_t>(stmts.size() - 1);
  return b;
}

std::vector<Arm> chain_arms(const PythonAnalysis& a, const Blocks& b, uint32_t if_stmt) {
  std::vector<Arm> arms;
  const auto& stmts = a.view.statements;
  if (if_stmt >= stmts.size() || !a.sig_is(stmts[if_stmt].first_sig, "if") || b.body_end[if_stmt] == kNoIndex) return arms;
  uint32_t header = if_stmt;
  while (true) {
    Arm arm{header, header + 1, b.body_end[header], a.sig_is(stmts[header].first_sig, "else")};
    arms.push_back(arm);
    const uint32_t next = arm.body_last + 1;
    if (arm.is_else || next >= stmts.size() || b.parent[next] != b.parent[if_stmt] ||
        stmts[next].indent_depth != stmts[if_stmt].indent_depth || b.body_end[next] == kNoIndex)
      break;
    if (!a.sig_is(stmts[next].first_sig, "elif") && !a.sig_is(stmts[next].first_sig, "else")) break;
    header = next;
  }
  return arms;
}

uint32_t statement_of(const PythonAnalysis& a, uint32_t si) {
  return si < a.view.stmt_of.size() ? a.view.stmt_of[si] : kNoIndex;
}

bool inside(const Blocks& b, uint32_t s, uint32_t header) {
  for (uint32_t p = s < b.parent.size() ? b.parent[s] : kNoIndex; p != kNoIndex; p = b.parent[p])
    if (p == header) return true;
  return false;
}

}  // namespace banjia::rules
