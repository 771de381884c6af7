// Match kind "shim-import" (shim_import.h).
#include "rules/kinds/shim_import.h"

#include <algorithm>
#include <unordered_set>

#include <fmt/format.h>

#include "common/embedded_data.h"
#include "common/errors.h"
#include "rules/analyses/python_analysis.h"
#include "rules/analyses/python_prefilter.h"
#include "rules/analyses/tree_flow.h"
#include "rules/core/catalog.h"
#include "rules/core/match.h"
#include "rules/core/match_fields.h"

namespace banjia::rules {

using python::ImportBinding;
using python::TokenKind;

namespace {

bool contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// "flash_attn.bert_padding.pad_input" -> "flash_attn.bert_padding" and "pad_input".
std::string_view module_of(std::string_view dotted) { return dotted.substr(0, dotted.rfind('.')); }
std::string_view last_name(std::string_view dotted) { return dotted.substr(dotted.rfind('.') + 1); }

// The line ending the file uses (its first line's), for a line migrate inserts.
std::string_view newline_of(std::string_view text) {
  const size_t at = text.find_first_of("\r\n");
  if (at == std::string_view::npos || text[at] == '\n') return "\n";
  return at + 1 < text.size() && text[at + 1] == '\n' ? "\r\n" : "\r";
}

// A bound name an applied redirect moves to the shim: its import, and every use of it below `target`.
struct Redirected {
  std::string_view local, target;
  uint32_t import_tok;
};

class Redirector {
 public:
  Redirector(const MatchContext& c, const Rule& r, std::vector<PyMatch>& out)
      : a_(c.analysis), rule_(r), params_(r.params<ShimImportMatch>()), shim_(r.rewrite_as<NameRewrite>().to), out_(out) {
    const FileDirectory* dir = c.tree ? c.tree->directory : nullptr;
    package_ = dir && dir->is_package;
    blocked_ = dir ? dir->blocked(shim_) : nullptr;
  }

  void run() {
    const auto& bindings = a_.imports.bindings;
    for (size_t i = 0; i < bindings.size(); ++i) {
      const ImportBinding& b = bindings[i];
      if (!b.is_from) {
        module_import(b);
        continue;
      }
      // The bindings of one statement are consecutive: take them together, once.
      if (i > 0 && bindings[i - 1].stmt == b.stmt) continue;
      std::vector<const ImportBinding*> items;
      for (size_t j = i; j < bindings.size() && bindings[j].stmt == b.stmt; ++j) items.push_back(&bindings[j]);
      from_import(items);
    }
    drop_superseded();
  }

 private:
  PyMatch make(uint32_t first, uint32_t last) const {
    PyMatch m;
    m.rule = &rule_;
    m.first_tok = first;
    m.last_tok = last;
    return m;
  }
  void block(PyMatch& m, std::string why) const {
    m.blocked = true;
    m.message = std::move(why);
  }
  std::string blocked_reason() const { return fmt::format("{}: the import is not redirected to {}", *blocked_, shim_); }
  const python::Token& tok(uint32_t t) const { return a_.tokens.tokens[t]; }
  std::string_view token_text(uint32_t t) const { return tok(t).text(a_.text()); }

  // `from M import a, b as c`: every provided name moves to the shim.
  void from_import(const std::vector<const ImportBinding*>& items) {
    const std::string_view module = module_of(items.front()->imported);
    if (module.starts_with('.')) return;  // a module of this project
    const std::vector<std::string>* provided = params_.provided_for(module);
    if (!provided) return;
    // A provided name that is itself a module the shim stands in for (`from apex import amp`) moves only
    // when every use of it reads what the shim provides.
    std::vector<bool> moves;
    std::string unprovided;
    for (const ImportBinding* b : items) {
      bool move = b->local != "*" && contains(*provided, last_name(b->imported));
      if (move && params_.provided_for(b->target)) {
        std::string why = unprovided_use(*b);
        move = why.empty();
        if (unprovided.empty()) unprovided = std::move(why);
      }
      moves.push_back(move);
    }
    const auto& st = a_.view.statements[items.front()->stmt];
    PyMatch m = make(a_.view.sig[st.first_sig], a_.view.sig[st.last_sig]);
    if (std::none_of(moves.begin(), moves.end(), [](bool x) { return x; })) {
      if (unprovided.empty()) return;
      block(m, std::move(unprovided));
    } else if (blocked_) {
      block(m, blocked_reason());
    } else if (std::all_of(moves.begin(), moves.end(), [](bool x) { return x; })) {
      // The module path, from its first name to its last: `flash_attn.flash_attn_interface`.
      uint32_t last = st.first_sig + 1;
      while (last + 1 <= st.last_sig && !a_.view.is_name(last + 1, "import")) ++last;
      m.edit = TextEdit{a_.sig_token(st.first_sig + 1).begin, a_.sig_token(last).end, (package_ ? "." : "") + shim_};
    } else if (auto cut = split(items, moves, st)) {
      m.edit = std::move(cut->names);
      m.inserts.push_back(std::move(cut->line));
    } else {
      block(m, fmt::format("this import also names what {} does not provide, and does not start its line: split "
                           "it by hand to import the provided names from {}", shim_, shim_));
    }
    if (m.edit)
      for (size_t i = 0; i < items.size(); ++i)
        if (moves[i]) redirected_.push_back({items[i]->local, items[i]->target, items[i]->first_tok});
    out_.push_back(std::move(m));
  }

  // The provided names of a from-import that also names others: they go to a shim import on a line of
  // its own above the statement (same indentation), and leave the statement's list with their commas.
  // The new line is an insertion of its own, so that a `# banjia:` note on what stays is written
  // between the two and sits right above the statement it describes.
  struct Split {
    TextEdit line;   // the shim import, inserted where the statement's line starts
    TextEdit names;  // the statement's list without the moved names
  };
  // nullopt where the statement does not start its line (`if x: from M import a, b`).
  std::optional<Split> split(const std::vector<const ImportBinding*>& items, const std::vector<bool>& moves,
                                const python::ModuleView::Statement& st) const {
    const uint32_t begin = a_.sig_token(st.first_sig).begin;
    const size_t line_break = a_.text().find_last_of("\r\n", begin == 0 ? 0 : begin - 1);
    const size_t line_start = begin == 0 || line_break == std::string_view::npos ? 0 : line_break + 1;
    const std::string_view indent = a_.text().substr(line_start, begin - line_start);
    const bool after_operator = st.first_sig > 0 && a_.sig_token(st.first_sig - 1).kind == TokenKind::Op;
    if (after_operator || indent.find_first_not_of(" \t") != std::string_view::npos) return std::nullopt;
    auto item_begin = [&](size_t i) { return tok(items[i]->first_tok).begin; };
    auto item_end = [&](size_t i) {
      return tok(items[i]->alias_tok != python::kNoIndex ? items[i]->alias_tok : items[i]->last_tok).end;
    };
    std::string moved;
    for (size_t i = 0; i < items.size(); ++i) {
      if (!moves[i]) continue;
      moved.append(moved.empty() ? "" : ", ").append(token_text(items[i]->first_tok));
      if (items[i]->alias_tok != python::kNoIndex) moved.append(" as ").append(token_text(items[i]->alias_tok));
    }
    const auto at = static_cast<uint32_t>(line_start);
    TextEdit line{at, at, fmt::format("{}from {}{} import {}{}", indent, package_ ? "." : "", shim_, moved, newline_of(a_.text()))};
    std::optional<TextEdit> e;
    // Each run of moved names is cut with the comma after it, or, for a run that ends the list, with
    // the comma before it (the name before the run stays).
    for (size_t i = 0; i < items.size();) {
      if (!moves[i]) {
        ++i;
        continue;
      }
      size_t j = i;
      while (j + 1 < items.size() && moves[j + 1]) ++j;
      const auto [from, to] = j + 1 < items.size() ? std::pair(item_begin(i), item_begin(j + 1)) : std::pair(item_end(i - 1), item_end(j));
      if (!e) e = TextEdit{static_cast<uint32_t>(from), static_cast<uint32_t>(from), ""};
      e->text.append(a_.text().substr(e->end, from - e->end));
      e->end = static_cast<uint32_t>(to);
      i = j + 1;
    }
    return Split{std::move(line), std::move(*e)};
  }

  // `import M as x` (or `import M` for a top-level M): redirected when every use of the name reads a
  // provided attribute.
  void module_import(const ImportBinding& b) {
    const std::vector<std::string>* provided = params_.provided_for(b.imported);
    if (!provided) return;
    const bool aliased = b.alias_tok != python::kNoIndex;
    const auto& st = a_.view.statements[b.stmt];
    // In a package the rewrite starts at `import` (`from . import ...`): the finding shows all it edits.
    PyMatch m = make(package_ ? a_.view.sig[st.first_sig] : b.first_tok, aliased ? b.alias_tok : b.last_tok);
    const bool alone = std::count_if(a_.imports.bindings.begin(), a_.imports.bindings.end(),
                                     [&](const ImportBinding& o) { return o.stmt == b.stmt; }) == 1;
    std::string why;
    if (!aliased && b.imported.find('.') != std::string::npos)
      why = fmt::format("`import {}` binds `{}`: import it under a name of its own (`import {} as ...`) to have it "
                        "redirected to {}", b.imported, b.local, b.imported, shim_);
    if (why.empty()) why = unprovided_use(b);
    if (why.empty() && blocked_) why = blocked_reason();
    if (why.empty() && package_ && !alone)
      why = fmt::format("this statement imports other modules too: give {} an import statement of its own to have it "
                        "redirected to .{}", b.imported, shim_);
    if (!why.empty()) {
      block(m, std::move(why));
    } else if (package_) {
      m.edit = TextEdit{a_.sig_token(st.first_sig).begin, tok(m.last_tok).end, fmt::format("from . import {} as {}", shim_, b.local)};
    } else {
      m.edit = TextEdit{tok(b.first_tok).begin, tok(b.last_tok).end, aliased ? shim_ : shim_ + " as " + b.local};
    }
    if (m.edit) redirected_.push_back({b.local, b.target, b.first_tok});
    out_.push_back(std::move(m));
  }

  // Why the module bound to `b.local` (the library module `b.target`) cannot become the shim: the
  // first use that reads an attribute the shim lacks, or uses the module itself; "" when there is none.
  std::string unprovided_use(const ImportBinding& b) const {
    for (const auto& ref : a_.dotted.refs) {
      if (ref.in_import_stmt || a_.sig_text(ref.first_sig) != b.local || !python::within_module(ref.qualified, b.target)) continue;
      const uint32_t line = tok(ref.first_tok(a_.view)).line;
      if (ref.qualified.size() == b.target.size())
        return fmt::format("`{}` is used as a module on line {}, not only for names {} provides; the import stays",
                           b.local, line, shim_);
      if (const std::string_view lacking = unprovided_prefix(ref.qualified, b.target); !lacking.empty())
        return fmt::format("{} (line {}) is not in {}; the import stays (rewrite that use by hand, or import the "
                           "provided names with `from {} import ...`)", lacking, line, shim_, module_of(lacking));
    }
    return {};
  }

  // `qualified` (a name below the library module `module`) up to its first attribute the shim lacks,
  // walking into the modules it stands in for: in `apex.amp.register_half_function`, `amp` is provided
  // for `apex` and `apex.amp` is a module of the shim, whose names lack the function. "" when each
  // attribute read is provided.
  std::string_view unprovided_prefix(std::string_view qualified, std::string_view module) const {
    const std::vector<std::string>* provided = params_.provided_for(module);
    for (size_t at = module.size(); provided && at < qualified.size();) {
      const size_t end = std::min(qualified.find('.', at + 1), qualified.size());
      if (!contains(*provided, qualified.substr(at + 1, end - at - 1))) return qualified.substr(0, end);
      provided = params_.provided_for(qualified.substr(0, end));
      at = end;
    }
    return {};
  }

  // The superseded rules' matches at a redirected import and at the uses of its names: a redirect
  // leaves nothing of them to do.
  void drop_superseded() {
    if (redirected_.empty() || params_.supersedes.empty()) return;
    std::unordered_set<uint32_t> covered;
    for (const Redirected& r : redirected_) {
      covered.insert(r.import_tok);
      for (const auto& ref : a_.dotted.refs)
        if (!ref.in_import_stmt && a_.sig_text(ref.first_sig) == r.local && python::within_module(ref.qualified, r.target))
          covered.insert(ref.first_tok(a_.view));
    }
    std::erase_if(out_, [&](const PyMatch& m) {
      return m.rule != &rule_ && contains(params_.supersedes, m.rule->id) && covered.contains(m.first_tok);
    });
  }

  const PythonAnalysis& a_;
  const Rule& rule_;
  const ShimImportMatch& params_;
  const std::string& shim_;
  std::vector<PyMatch>& out_;
  bool package_ = false;
  const std::string* blocked_ = nullptr;
  std::vector<Redirected> redirected_;
};

}  // namespace

const std::vector<std::string>* ShimImportMatch::provided_for(std::string_view module) const {
  for (const auto& [m, names] : provides)
    if (m == module) return &names;
  return nullptr;
}

ShimImportMatch ShimImportMatch::parse(const MatchFields& m) {
  ShimImportMatch s{m.string_lists("provides"), m.strings("supersedes")};
  if (s.provides.empty()) throw InputError(m.where(), "a shim-import match needs a `provides` table");
  return s;
}

void ShimImportMatch::add_needles(const RuleCatalog& rules, PythonNeedles& needles) {
  // An import of a module spells its components as Name tokens.
  for (const Rule* r : rules.of_kind<ShimImportMatch>())
    for (const auto& [module, names] : r->params<ShimImportMatch>().provides) needles.add_dotted(module);
}

void ShimImportMatch::match(const MatchContext& c, std::vector<PyMatch>& out) {
  for (const Rule* r : c.rules.of_kind<ShimImportMatch>())
    if (r->rewrite == RewriteKind::redirect_import) Redirector(c, *r, out).run();
}

}  // namespace banjia::rules
