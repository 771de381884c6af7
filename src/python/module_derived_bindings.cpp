// Names that resolve like imports although no import statement binds them: module-level aliases
// (`sync = torch.cuda.synchronize`) and `cuda` beside `from torch import *`. The rules are in
// module.h (derive_bindings); everything here is syntactic and errs towards deriving nothing.
#include <array>
#include <unordered_map>

#include "python/module.h"

namespace banjia::python {
namespace {

// Keywords after which a name is being bound (or unbound) rather than read.
bool binds_next_name(std::string_view w) {
  static constexpr std::array<std::string_view, 10> kWords = {"def",    "class",    "as",  "for",    "global",
                                                              "nonlocal", "del", "import", "lambda", "from"};
  for (auto k : kWords)
    if (k == w) return true;
  return false;
}

// `=`, `:=` and the augmented assignments (`+=`, `//=`, ...), not the comparisons.
bool is_assignment_op(const ModuleView& v, uint32_t k) {
  if (k >= v.sig.size() || v.tok(k).kind != TokenKind::Op) return false;
  const std::string_view op = v.text(k);
  if (op.empty() || op.back() != '=') return false;
  return op != "==" && op != "<=" && op != ">=" && op != "!=";
}

// The chain head at sig index k (a Name not after '.') binds its name here: an assignment target, a
// name after `def`/`for`/`as`/..., a parameter (anywhere in a `def` header), the first name of a
// statement followed by `:` (annotation) or `,` (tuple target).
bool is_binding_occurrence(const ModuleView& v, uint32_t k) {
  if (is_assignment_op(v, k + 1)) return true;
  if (k > 0 && v.tok(k - 1).kind == TokenKind::Name && binds_next_name(v.text(k - 1))) return true;
  const uint32_t s = v.stmt_of[k];
  if (s == kNoIndex) return false;
  const ModuleView::Statement& st = v.statements[s];
  const uint32_t head = v.is_name(st.first_sig, "async") ? st.first_sig + 1 : st.first_sig;
  if (v.is_name(head, "def")) return true;
  return k == st.first_sig && (v.is_op(k + 1, ":") || v.is_op(k + 1, ","));
}

// A statement that is exactly `NAME = NAME(.NAME)*`: the sig index of its first chain name, or kNoIndex.
uint32_t alias_chain_start(const ModuleView& v, const ModuleView::Statement& st) {
  const uint32_t k = st.first_sig;
  if (st.indent_depth != 0 || st.last_sig < k + 2) return kNoIndex;
  if (v.tok(k).kind != TokenKind::Name || !v.is_op(k + 1, "=") || v.text(k + 1).size() != 1) return kNoIndex;
  for (uint32_t j = k + 2; j <= st.last_sig; j += 2) {
    if (v.tok(j).kind != TokenKind::Name) return kNoIndex;
    if (j < st.last_sig && !(v.is_op(j + 1, ".") && j + 1 < st.last_sig)) return kNoIndex;
  }
  return (st.last_sig - (k + 2)) % 2 == 0 ? k + 2 : kNoIndex;
}

void derive_aliases(const ModuleView& v, ImportTable& t) {
  // Candidates first (rare), then one pass over the chain heads counting where each is bound.
  std::vector<uint32_t> candidates;  // statement indices
  std::unordered_map<std::string_view, uint32_t> bound_at;  // name -> binding occurrences
  for (uint32_t s = 0; s < v.statements.size(); ++s) {
    const ModuleView::Statement& st = v.statements[s];
    if (alias_chain_start(v, st) == kNoIndex) continue;
    const std::string_view name = v.text(st.first_sig);
    if (t.index.contains(name) || binds_next_name(name) || name == v.text(st.first_sig + 2)) continue;
    candidates.push_back(s);
    bound_at.emplace(name, 0);
  }
  if (candidates.empty()) return;
  for (uint32_t k : v.name_heads) {
    auto it = bound_at.find(v.text(k));
    if (it != bound_at.end() && is_binding_occurrence(v, k)) ++it->second;
  }
  for (uint32_t s : candidates) {
    const ModuleView::Statement& st = v.statements[s];
    const std::string_view name = v.text(st.first_sig);
    if (bound_at[name] != 1) continue;  // bound elsewhere too (or twice here)
    const uint32_t chain = alias_chain_start(v, st);
    const ImportBinding* head = t.binding_for(v.text(chain));
    if (!head) continue;
    ImportBinding b;
    b.local = std::string(name);
    b.target = head->target;
    for (uint32_t j = chain + 2; j <= st.last_sig; j += 2) b.target.append(".").append(v.text(j));
    b.imported = b.target;
    b.stmt = s;
    b.first_tok = v.sig[chain];
    b.last_tok = v.sig[st.last_sig];
    b.alias_tok = v.sig[st.first_sig];
    b.origin = BindingOrigin::assignment;
    t.derived.push_back(std::move(b));
    t.derived_index.insert_or_assign(t.derived.back().local, static_cast<uint32_t>(t.derived.size() - 1));
  }
}

void derive_star_cuda(const ModuleView& v, ImportTable& t) {
  const ImportBinding* star = nullptr;
  for (const ImportBinding& b : t.bindings)
    if (b.local == "*" && b.target == "torch.*") star = &b;
  if (!star || t.binding_for("cuda")) return;
  bool used = false;
  for (uint32_t k : v.name_heads) {
    if (v.text(k) != "cuda") continue;
    const uint32_t s = v.stmt_of[k];
    if (s != kNoIndex && (v.is_name(v.statements[s].first_sig, "import") || v.is_name(v.statements[s].first_sig, "from")))
      continue;  // `from torch import cuda as tc` names the module, binds no `cuda` (an import that does is in the table)
    if (!v.is_op(k + 1, ".")) return;  // bound, passed or called: not provably the module
    used = true;
  }
  if (!used) return;
  ImportBinding b;
  b.local = "cuda";
  b.target = b.imported = "torch.cuda";
  b.is_from = true;
  b.stmt = star->stmt;
  b.first_tok = b.last_tok = star->first_tok;
  b.origin = BindingOrigin::star_import;
  t.derived.push_back(std::move(b));
  t.derived_index.insert_or_assign("cuda", static_cast<uint32_t>(t.derived.size() - 1));
}

}  // namespace

void derive_bindings(const ModuleView& view, ImportTable& table) {
  table.derived.clear();
  table.derived_index.clear();
  derive_aliases(view, table);
  derive_star_cuda(view, table);
}

}  // namespace banjia::python
