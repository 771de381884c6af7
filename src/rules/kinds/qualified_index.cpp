// The qualified kind's index of a catalogue (qualified.h).
#include "rules/kinds/qualified.h"

#include <algorithm>

#include "rules/core/catalog.h"
#include "rules/kinds/keyword_arg.h"
#include "rules/kinds/loop_patterns.h"

namespace banjia::rules {

QualifiedIndex::QualifiedIndex(const RuleCatalog& rules) {
  // The roots in catalogue order, whichever of the three kinds names them.
  std::vector<const Rule*> named;
  for (const auto* list : {&rules.of_kind<QualifiedMatch>(), &rules.of_kind<KeywordArgMatch>(), &rules.of_kind<LoopCallMatch>()})
    named.insert(named.end(), list->begin(), list->end());
  for (const Rule* r : named)
    for (const auto& n : r->match.names()) {
      std::string root = n.substr(0, n.find('.'));
      if (std::find(qualified_roots_.begin(), qualified_roots_.end(), root) == qualified_roots_.end())
        qualified_roots_.push_back(root);
    }
  for (const Rule* r : rules.of_kind<QualifiedMatch>()) {
    const auto& q = r->params<QualifiedMatch>();
    for (const auto& n : q.names) {
      for (size_t dot = n.find('.'); dot != std::string::npos; dot = n.find('.', dot + 1))
        qualified_tree_.try_emplace(n.substr(0, dot));
      QualifiedNode& node = qualified_tree_[n];
      (q.prefix ? node.prefix : q.exact_only ? node.exact_only : node.exact) = r;
    }
  }
  for (const Rule* r : rules.of_kind<ImportMatch>())
    for (const auto& m : r->params<ImportMatch>().modules) import_modules_[m] = r;
}

const Rule* QualifiedIndex::match_qualified(std::string_view q) const {
  // The longest matching name wins. A parent matched by an exact name covers attribute chains on it
  // (torch.cuda.Stream.wait_stream is a use of torch.cuda.Stream); prefix rules cover everything
  // below their name; exact_only names match only themselves.
  // Walk the components from the left while the prefix can still lead to a rule; the deepest level
  // naming a rule wins (an exact name before a prefix rule at the same level). Most names
  // (torch.zeros, torch.nn.functional.relu) stop after one or two lookups.
  const Rule* best = nullptr;
  for (size_t end = q.find('.');; end = q.find('.', end + 1)) {
    auto it = qualified_tree_.find(q.substr(0, end));
    if (it == qualified_tree_.end()) break;
    const QualifiedNode& node = it->second;
    const bool whole = end == std::string_view::npos;
    if (whole && node.exact_only) return node.exact_only;
    if (node.exact) best = node.exact;
    else if (node.prefix) best = node.prefix;
    if (whole) break;
  }
  return best;
}

bool QualifiedIndex::has_qualified_root(std::string_view first) const {
  for (const auto& r : qualified_roots_)
    if (r == first) return true;
  return false;
}

const Rule* QualifiedIndex::match_import(std::string_view module) const {
  std::string_view cur = module;
  for (;;) {
    if (auto it = import_modules_.find(cur); it != import_modules_.end()) return it->second;
    size_t dot = cur.rfind('.');
    if (dot == std::string_view::npos) return nullptr;
    cur = cur.substr(0, dot);
  }
}


}  // namespace banjia::rules
