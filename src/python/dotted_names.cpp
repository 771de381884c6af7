#include <algorithm>

#include "python/import_parse.h"

namespace banjia::python {
namespace {

DottedRef make_ref(const ModuleView& v, uint32_t first_sig, uint32_t last_sig, std::string qualified) {
  DottedRef r;
  r.qualified = std::move(qualified);
  r.first_sig = first_sig;
  r.last_sig = last_sig;
  if (v.is_op(last_sig + 1, "(")) {
    r.is_call = true;
    r.call_open_sig = last_sig + 1;
  }
  return r;
}

// The dotted names an import statement mentions, each qualified absolutely.
void import_refs(const ModuleView& v, const detail::ImportStmt& st, std::vector<DottedRef>& out) {
  auto add = [&](const std::vector<uint32_t>& names, std::string qualified) {
    out.push_back(make_ref(v, names.front(), names.back(), std::move(qualified)));
    out.back().in_import_stmt = true;
  };
  std::string module = st.dots + detail::join_names(v, st.module_sigs);
  if (!st.module_sigs.empty()) add(st.module_sigs, module);
  for (const detail::ImportItem& item : st.items) {
    if (item.star) continue;
    if (!st.is_from) {
      add(item.name_sigs, detail::join_names(v, item.name_sigs));
    } else {
      bool bare_dots = !module.empty() && module.back() == '.';
      add(item.name_sigs, (bare_dots ? module : module + ".") + std::string(v.text(item.name_sigs.front())));
    }
  }
}

// A lone name that is bound or named here rather than used: `torch = ...`, `f(device=...)`,
// `def torch`, `class torch`, `... as torch`.
bool is_binding_site(const ModuleView& v, uint32_t k) {
  if (v.is_op(k + 1, "=")) return true;
  return k > 0 && (v.is_name(k - 1, "def") || v.is_name(k - 1, "class") || v.is_name(k - 1, "as"));
}

// Cheap pre-check before hashing: a 4096-bit set keyed by first byte, last byte and length of every
// imported name. Most names (self, x, range, ...) miss it, so few reach the hash table.
class NameFilter {
 public:
  explicit NameFilter(const ImportTable& t) {
    for (const auto& entry : t.index)
      if (!entry.first.empty()) set(key(entry.first));
  }
  bool may_match(std::string_view s) const { return !s.empty() && (bits_[key(s) >> 6] >> (key(s) & 63) & 1); }

 private:
  static size_t key(std::string_view s) {
    auto u = [](char c) { return static_cast<size_t>(static_cast<unsigned char>(c)); };
    return (u(s.front()) * 131 + u(s.back()) * 31 + s.size()) & 4095;
  }
  void set(size_t k) { bits_[k >> 6] |= uint64_t{1} << (k & 63); }
  uint64_t bits_[64] = {};
};

}  // namespace

std::vector<DottedRef> resolve_dotted_names(const ModuleView& view, const ImportTable& imports) {
  std::vector<DottedRef> refs;
  refs.reserve(view.name_heads.size() / 8 + 8);
  const uint32_t n = static_cast<uint32_t>(view.sig.size());
  const NameFilter filter(imports);
  uint32_t skip_until = 0;  // sig index just past the last import statement handled
  for (uint32_t k : view.name_heads) {
    if (k < skip_until) continue;
    uint32_t s = view.stmt_of[k];
    if (s != kNoIndex && view.statements[s].first_sig == k &&
        (view.is_name(k, "import") || view.is_name(k, "from"))) {
      if (auto st = detail::parse_import(view, view.statements[s])) {
        import_refs(view, *st, refs);
        skip_until = view.statements[s].last_sig + 1;
        continue;
      }
    }
    std::string_view head = view.text(k);
    if (!filter.may_match(head)) continue;
    const ImportBinding* b = imports.binding_for(head);
    if (!b) continue;
    uint32_t j = k;
    while (view.is_op(j + 1, ".") && j + 2 < n && view.tok(j + 2).kind == TokenKind::Name) j += 2;
    if (j == k && is_binding_site(view, k)) continue;
    std::string qualified;
    qualified.reserve(b->target.size() + (view.tok(j).end - view.tok(k).begin));
    qualified += b->target;
    for (uint32_t i = k + 2; i <= j; i += 2) qualified.append(".").append(view.text(i));
    refs.push_back(make_ref(view, k, j, std::move(qualified)));
  }
  return refs;
}

std::string written_form(const ModuleView& v, const DottedRef& r) {
  std::string out;
  for (uint32_t i = 0; i < r.name_count(); ++i) {
    if (i) out.push_back('.');
    out.append(v.text(r.first_sig + 2 * i));
  }
  return out;
}

}  // namespace banjia::python
