#include "python/import_parse.h"

namespace banjia::python {
namespace detail {

std::string join_names(const ModuleView& view, const std::vector<uint32_t>& name_sigs, size_t from) {
  std::string out;
  size_t len = 0;
  for (size_t i = from; i < name_sigs.size(); ++i) len += view.text(name_sigs[i]).size() + 1;
  out.reserve(len);
  append_joined_names(view, name_sigs, out, from);
  return out;
}

namespace {

// NAME (. NAME)* starting at k (k <= last); returns the sig index after it.
uint32_t read_dotted(const ModuleView& v, uint32_t k, uint32_t last, std::vector<uint32_t>& out) {
  while (k <= last && v.tok(k).kind == TokenKind::Name && v.text(k) != "import") {
    out.push_back(k++);
    if (k + 1 <= last && v.is_op(k, ".") && v.tok(k + 1).kind == TokenKind::Name) ++k;
    else break;
  }
  return k;
}

}  // namespace

std::optional<ImportStmt> parse_import(const ModuleView& v, const ModuleView::Statement& stmt) {
  uint32_t k = stmt.first_sig, last = stmt.last_sig;
  // Nearly every statement is not an import: decide that before building anything.
  if (!v.is_name(k, "from") && !v.is_name(k, "import")) return std::nullopt;
  ImportStmt out;
  // Reads an optional `as NAME`, stores the item; false when no ',' follows (the list ends).
  auto finish_item = [&](ImportItem&& item) {
    if (v.is_name(k, "as") && k + 1 <= last && v.tok(k + 1).kind == TokenKind::Name) {
      item.alias_sig = k + 1;
      k += 2;
    }
    out.items.push_back(std::move(item));
    if (!v.is_op(k, ",")) return false;
    ++k;
    return true;
  };
  if (v.is_name(k, "from")) {
    out.is_from = true;
    for (++k; k <= last && (v.is_op(k, ".") || v.is_op(k, "...")); ++k) out.dots.append(v.text(k));
    k = read_dotted(v, k, last, out.module_sigs);
    if (out.module_sigs.empty() && out.dots.empty()) return std::nullopt;
    if (!v.is_name(k, "import")) return std::nullopt;
    ++k;
    if (v.is_op(k, "(")) ++k;
    while (k <= last) {
      ImportItem item;
      if (v.is_op(k, "*")) {
        item.star = true;
        item.name_sigs.push_back(k++);
      } else if (v.tok(k).kind == TokenKind::Name) {
        item.name_sigs.push_back(k++);
      } else {
        break;
      }
      if (!finish_item(std::move(item))) break;
    }
  } else if (v.is_name(k, "import")) {
    ++k;
    while (k <= last) {
      ImportItem item;
      k = read_dotted(v, k, last, item.name_sigs);
      if (item.name_sigs.empty()) break;
      if (!finish_item(std::move(item))) break;
    }
  } else {
    return std::nullopt;
  }
  if (out.items.empty()) return std::nullopt;
  return out;
}

}  // namespace detail

ImportTable collect_imports(const ModuleView& view) {
  ImportTable table;
  for (uint32_t s : view.import_statements) {
    const ModuleView::Statement& stmt = view.statements[s];
    auto parsed = detail::parse_import(view, stmt);
    if (!parsed) continue;
    std::string module = parsed->dots + detail::join_names(view, parsed->module_sigs);
    for (const detail::ImportItem& item : parsed->items) {
      ImportBinding b;
      b.is_from = parsed->is_from;
      b.stmt = s;
      b.indent_depth = stmt.indent_depth;
      b.first_tok = view.sig[item.name_sigs.front()];
      b.last_tok = view.sig[item.name_sigs.back()];
      b.alias_tok = item.alias_sig == kNoIndex ? kNoIndex : view.sig[item.alias_sig];
      std::string dotted = detail::join_names(view, item.name_sigs);
      if (b.is_from) {
        bool bare_dots = !module.empty() && module.back() == '.';
        b.imported = bare_dots ? module + dotted : module + "." + dotted;
        b.target = b.imported;
        b.local = item.alias_sig != kNoIndex ? std::string(view.text(item.alias_sig)) : dotted;
      } else {
        b.imported = dotted;
        if (item.alias_sig != kNoIndex) {
          b.local = std::string(view.text(item.alias_sig));
          b.target = dotted;
        } else {  // `import a.b.c` binds `a` to package a
          b.local = std::string(view.text(item.name_sigs.front()));
          b.target = b.local;
        }
      }
      table.bindings.push_back(std::move(b));
    }
  }
  table.rebuild_index();
  derive_bindings(view, table);
  return table;
}

void ImportTable::rebuild_index() {
  index.clear();
  for (uint32_t i = 0; i < bindings.size(); ++i) {
    const ImportBinding& b = bindings[i];
    if (b.local == "*") continue;
    auto [it, inserted] = index.try_emplace(b.local, i);
    // Module-level bindings win over nested ones; among equals the later one wins.
    if (!inserted && (b.indent_depth == 0 || bindings[it->second].indent_depth != 0)) it->second = i;
  }
  derived_index.clear();
  for (uint32_t i = 0; i < derived.size(); ++i)
    if (!index.contains(derived[i].local)) derived_index.insert_or_assign(derived[i].local, i);
}

const ImportBinding* ImportTable::binding_for(std::string_view local) const {
  if (auto it = index.find(local); it != index.end()) return &bindings[it->second];
  if (derived_index.empty()) return nullptr;  // nearly every file: no second lookup
  auto it = derived_index.find(local);
  return it == derived_index.end() ? nullptr : &derived[it->second];
}

std::optional<std::string> ImportTable::resolve(std::string_view local) const {
  if (const ImportBinding* b = binding_for(local)) return b->target;
  return std::nullopt;
}

}  // namespace banjia::python
