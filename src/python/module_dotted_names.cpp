#include <algorithm>

#include "python/import_parse.h"

namespace banjia::python {
namespace {

// Appends refs to a DottedNames; their names are set once all text is written (the buffer may move).
class RefBuilder {
 public:
  RefBuilder(const ModuleView& v, DottedNames& out) : v_(v), out_(out) {
    out_.refs.clear();
    out_.text.clear();
    out_.spans.clear();
  }
  // Starts the qualified name of the next ref; append() adds to it, add() finishes the ref.
  RefBuilder& append(std::string_view part) {
    out_.text.insert(out_.text.end(), part.begin(), part.end());
    return *this;
  }
  void add(uint32_t first_sig, uint32_t last_sig, uint32_t name_begin, bool in_import) {
    DottedRef& r = out_.refs.emplace_back();
    r.first_sig = first_sig;
    r.last_sig = last_sig;
    r.in_import_stmt = in_import;
    if (v_.is_op(last_sig + 1, "(")) {
      r.is_call = true;
      r.call_open_sig = last_sig + 1;
    }
    out_.spans.emplace_back(name_begin, static_cast<uint32_t>(out_.text.size()) - name_begin);
  }
  RefBuilder& append_names(const std::vector<uint32_t>& name_sigs) {
    detail::append_joined_names(v_, name_sigs, out_.text);
    return *this;
  }
  uint32_t mark() const { return static_cast<uint32_t>(out_.text.size()); }
  // A copy of text written earlier (a copy: appending a view of the buffer to itself could reallocate under it).
  std::string copy_of(uint32_t at, uint32_t len) const { return std::string(out_.text.data() + at, len); }
  void finish() {
    const std::string_view all(out_.text.data(), out_.text.size());
    for (size_t i = 0; i < out_.refs.size(); ++i) out_.refs[i].qualified = all.substr(out_.spans[i].first, out_.spans[i].second);
  }

 private:
  const ModuleView& v_;
  DottedNames& out_;
};

// The dotted names an import statement mentions, each qualified absolutely.
void import_refs(const ModuleView& v, const detail::ImportStmt& st, RefBuilder& out) {
  const uint32_t module_at = out.mark();
  out.append(st.dots);
  out.append_names(st.module_sigs);
  const uint32_t module_len = out.mark() - module_at;
  if (!st.module_sigs.empty()) out.add(st.module_sigs.front(), st.module_sigs.back(), module_at, true);
  for (const detail::ImportItem& item : st.items) {
    if (item.star) continue;
    const uint32_t at = out.mark();
    if (!st.is_from) {
      out.append_names(item.name_sigs);
    } else {
      const std::string module = out.copy_of(module_at, module_len);
      out.append(module);
      if (module.empty() || module.back() != '.') out.append(".");
      out.append(v.text(item.name_sigs.front()));
    }
    out.add(item.name_sigs.front(), item.name_sigs.back(), at, true);
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
    for (const auto* index : {&t.index, &t.derived_index})
      for (const auto& entry : *index)
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

DottedNames resolve_dotted_names(const ModuleView& view, const ImportTable& imports) {
  DottedNames out;
  resolve_dotted_names(view, imports, out);
  return out;
}

void resolve_dotted_names(const ModuleView& view, const ImportTable& imports, DottedNames& names) {
  RefBuilder out(view, names);
  names.refs.reserve(view.name_heads.size() / 8 + 8);
  const uint32_t n = static_cast<uint32_t>(view.sig.size());
  const NameFilter filter(imports);
  uint32_t skip_until = 0;  // sig index just past the last import statement handled
  size_t next_import = 0;   // view.import_statements not yet passed (both are in source order)
  for (uint32_t k : view.name_heads) {
    if (k < skip_until) continue;
    while (next_import < view.import_statements.size() &&
           view.statements[view.import_statements[next_import]].first_sig < k)
      ++next_import;
    if (next_import < view.import_statements.size()) {
      const ModuleView::Statement& stmt = view.statements[view.import_statements[next_import]];
      if (stmt.first_sig == k) {
        if (auto st = detail::parse_import(view, stmt)) {
          import_refs(view, *st, out);
          skip_until = stmt.last_sig + 1;
          continue;
        }
      }
    }
    std::string_view head = view.text(k);
    if (!filter.may_match(head)) continue;
    const ImportBinding* b = imports.binding_for(head);
    if (!b) continue;
    uint32_t j = k;
    while (view.is_op(j + 1, ".") && j + 2 < n && view.tok(j + 2).kind == TokenKind::Name) j += 2;
    if (j == k && is_binding_site(view, k)) continue;
    const uint32_t at = out.mark();
    out.append(b->target);
    for (uint32_t i = k + 2; i <= j; i += 2) out.append(".").append(view.text(i));
    out.add(k, j, at, false);
  }
  out.finish();
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
