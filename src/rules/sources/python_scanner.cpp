#include "rules/sources/python_scanner.h"

#include <algorithm>
#include <optional>
#include <tuple>
#include <unordered_set>

#include "rules/kinds/env_name.h"
#include "rules/analyses/python_prefilter.h"
#include "rules/safety/rewrite_safety.h"

namespace banjia::rules {

std::vector<PyMatch> match_python(const PythonAnalysis& a, const RuleCatalog& rules, const TreeContext* tree) {
  std::vector<PyMatch> out;
  const MatchContext context{a, rules, tree, builtin_env_names()};
  for (const MatchKindEntry& kind : match_kinds())
    if (kind.match) kind.match(context, out);
  make_rewrites_safe(a, rules, out);
  std::stable_sort(out.begin(), out.end(), [](const PyMatch& x, const PyMatch& y) {
    return std::tie(x.first_tok, x.rule->id) < std::tie(y.first_tok, y.rule->id);
  });
  // Several matches may carry the same edit (two names imported from `torch.cuda.amp` share its
  // `cuda` token): keep the first, so each byte range is edited once. A set, not a list: a file can
  // hold hundreds of thousands of edits.
  std::unordered_set<uint64_t> edited;
  for (auto& m : out) {
    if (!m.edit) continue;
    if (!edited.insert((uint64_t{m.edit->begin} << 32) | m.edit->end).second) {
      m.edit.reset();
      m.closing_edit.reset();
      m.inserts.clear();
    }
  }
  return out;
}

Finding finding_for_match(const PythonAnalysis& a, const PyMatch& m, const std::string& display) {
  const auto& first = a.tokens.tokens[m.first_tok];
  const auto& last = a.tokens.tokens[m.last_tok];
  const Rule& r = *m.rule;
  Finding f;
  f.file = display;
  f.line = static_cast<int>(first.line);
  f.column = static_cast<int>(first.col) + 1;
  const python::TokenPosition end = python::token_end(last, a.text());
  f.end_line = static_cast<int>(end.line);
  f.end_column = static_cast<int>(end.col) + 1;
  f.rule = r.id;
  f.category = r.category;
  f.severity = r.severity;
  f.fix = m.blocked ? FixKind::manual : r.fix;
  f.message = m.message.empty() ? r.message : m.message;
  f.source = m.source.empty() ? r.source : m.source;
  if (m.edit && m.edit->begin >= first.begin && m.edit->end <= last.end) {
    // The span with the edit and the insertions that go with it (a keyword, a line above), in text
    // order; what a wrapping rewrite closes after the span (`.format(i) if ... else 'cpu')`) is shown too.
    // A line inserted above the statement starts at its line's start, before the indentation: the
    // replacement is shown from the statement's column, each further line with its indentation.
    const std::string_view text = a.text();
    const auto is_indent = [&](uint32_t from) {
      return text.substr(from, first.begin - from).find_first_not_of(" \t") == std::string_view::npos &&
             (from == 0 || text[from - 1] == '\n' || text[from - 1] == '\r');
    };
    std::vector<const TextEdit*> parts{&*m.edit};
    uint32_t pos = first.begin;
    for (const auto& ins : m.inserts) {
      if (ins.begin > last.end || (ins.begin < first.begin && !is_indent(ins.begin))) continue;
      parts.push_back(&ins);
      pos = std::min(pos, ins.begin);
    }
    std::stable_sort(parts.begin(), parts.end(), [](const auto* x, const auto* y) {
      return std::tie(x->begin, x->end) < std::tie(y->begin, y->end);
    });
    const size_t indent = first.begin - pos;
    std::string rep;
    for (const TextEdit* e : parts) {
      if (e->begin < pos) continue;  // inside the edit: never applied (add_closing_edits drops the pair)
      rep.append(text.substr(pos, e->begin - pos)).append(e->text);
      pos = e->end;
    }
    rep.append(text.substr(pos, last.end - pos));
    if (rep.find_first_not_of(" \t") >= indent) rep.erase(0, indent);
    if (m.closing_edit && m.closing_edit->begin >= last.end)
      rep.append(a.text().substr(last.end, m.closing_edit->begin - last.end)).append(m.closing_edit->text);
    f.replacement = rep;
  } else if (m.replacement) {
    f.replacement = m.replacement;
  } else if (!m.blocked) {
    f.replacement = r.replacement;
  }
  return f;
}

namespace {
// Built once per thread and catalogue (a revision never repeats, so a new catalogue at the address
// of a freed one is not mistaken for it).
const PythonPrefilter& prefilter_for(const RuleCatalog& rules) {
  thread_local uint64_t built_for = 0;
  thread_local std::optional<PythonPrefilter> prefilter;
  if (!prefilter || built_for != rules.revision()) {
    prefilter.emplace(PythonPrefilter::for_rules(rules));
    built_for = rules.revision();
  }
  return *prefilter;
}
}  // namespace

void scan_python(std::string_view bytes, const std::string& display, const RuleCatalog& rules,
                 std::vector<Finding>& out, const TreeContext* tree) {
  thread_local PythonAnalysis a;  // buffers reused across the files this thread scans
  tokenize_python(bytes, display, a);
  if (!prefilter_for(rules).may_match(a.text(), a.tokens)) return;
  analyse_structure(a);
  for (const auto& m : match_python(a, rules, tree)) out.push_back(finding_for_match(a, m, display));
}

}  // namespace banjia::rules
