// Match kind "attribute" (attribute.h).
//
// An attribute the file itself assigns is the user's, not torch's: after `self.is_cuda = ...`,
// `self.is_cuda` is a flag of the user's class (torch's Tensor.is_cuda is read-only), and renaming it
// to `is_npu` would merge it into a branch the file may already have for NPUs. So `<receiver>.<name>`
// is left alone throughout a file that assigns `<receiver>.<name> = ...`, receiver compared as
// written (`self`, `self.cfg`).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "rules/kinds/device_index.h"
#include "rules/kinds/attribute.h"

#include "rules/analyses/python_analysis.h"
#include "rules/analyses/python_prefilter.h"
#include "rules/core/catalog.h"
#include "rules/core/match.h"
#include "rules/core/match_fields.h"
#include "rules/rewrites/method_to.h"

namespace banjia::rules {

namespace {

// The receiver of the attribute whose '.' is at sig index dot, as written ("self", "self.cfg"), when
// it is a plain name chain; "" otherwise (`foo().x`, `a[0].x`).
std::string receiver_of(const PythonAnalysis& a, uint32_t dot) {
  if (dot == 0 || !a.sig_is_name(dot - 1)) return {};
  uint32_t first = dot - 1;
  while (first >= 2 && a.sig_is_op(first - 1, ".") && a.sig_is_name(first - 2)) first -= 2;
  if (first > 0 && a.sig_is_op(first - 1, ".")) return {};
  std::string out;
  for (uint32_t k = first; k < dot; k += 2) out.append(k == first ? "" : ".").append(a.sig_text(k));
  return out;
}

// `<receiver>.<name>` at the '.' at sig index dot is assigned: followed by `=`, or, starting its
// statement, by `:` (an annotated assignment).
bool is_assigned(const PythonAnalysis& a, uint32_t dot, const std::string& receiver) {
  const uint32_t after = dot + 2;
  if (a.sig_is_op(after, "=")) return true;
  if (!a.sig_is_op(after, ":")) return false;
  const uint32_t s = a.view.stmt_of[dot];
  const uint32_t receiver_names = static_cast<uint32_t>(std::count(receiver.begin(), receiver.end(), '.')) + 1;
  return s != python::kNoIndex && a.view.statements[s].first_sig + 2 * receiver_names - 1 == dot;
}

}  // namespace

AttributeMatch AttributeMatch::parse(const MatchFields& m) { return {m.text("name"), m.flag("call")}; }

void AttributeMatch::add_needles(const RuleCatalog& rules, PythonNeedles& needles) {
  for (const Rule* r : rules.of_kind<AttributeMatch>()) needles.add_name(r->params<AttributeMatch>().name);
}

void AttributeMatch::match(const MatchContext& c, std::vector<PyMatch>& out) {
  const PythonAnalysis& a = c.analysis;
  const auto& attr_rules = c.rules.of_kind<AttributeMatch>();
  if (attr_rules.empty()) return;
  const auto& sig = a.view.sig;
  auto wanted = [&](std::string_view name) {
    return std::any_of(attr_rules.begin(), attr_rules.end(), [&](const Rule* r) { return r->params<AttributeMatch>().name == name; });
  };
  // (attribute, receiver) pairs the file assigns: found on the first candidate, as most files have none.
  std::vector<std::pair<std::string_view, std::string>> user_attributes;
  bool user_attributes_known = false;
  auto is_user_attribute = [&](uint32_t dot, std::string_view name) {
    if (!user_attributes_known) {
      user_attributes_known = true;
      a.view.for_each_op1('.', [&](uint32_t d) {
        if (d + 1 >= sig.size() || !a.sig_is_name(d + 1) || !wanted(a.sig_text(d + 1))) return;
        std::string receiver = receiver_of(a, d);
        if (!receiver.empty() && is_assigned(a, d, receiver)) user_attributes.emplace_back(a.sig_text(d + 1), std::move(receiver));
      });
    }
    if (user_attributes.empty()) return false;
    const std::string receiver = receiver_of(a, dot);
    return !receiver.empty() && std::find(user_attributes.begin(), user_attributes.end(),
                                          std::make_pair(name, receiver)) != user_attributes.end();
  };
  a.view.for_each_op1('.', [&](uint32_t si) {
    if (si + 1 >= sig.size() || !a.sig_is_name(si + 1)) return;
    const uint32_t name_tok = sig[si + 1];
    const std::string_view name = a.sig_text(si + 1);
    int resolved = -1;  // looked up only for names a rule wants
    for (const Rule* r : attr_rules) {
      const AttributeMatch& p = r->params<AttributeMatch>();
      if (p.name != name) continue;
      if (resolved < 0) resolved = a.in_resolved_ref(si + 1);
      if (resolved) break;  // part of an imported module path (torch.cuda)
      const bool called = a.sig_is_op(si + 2, "(");
      if (p.call && *p.call != called) continue;
      if (is_user_attribute(si, name)) break;
      PyMatch m;
      m.rule = r;
      m.first_tok = sig[si];
      m.last_tok = name_tok;
      if (r->rewrite == RewriteKind::rename_attribute) {
        const auto& t = a.tokens.tokens[name_tok];
        m.edit = TextEdit{t.begin, t.end, r->rewrite_as<NameRewrite>().to};
      } else if (r->rewrite == RewriteKind::method_to && called) {
        static const std::vector<std::string> no_names;
        const auto& index_rules = c.rules.of_kind<DeviceIndexMatch>();
        const auto& index_names = index_rules.empty() ? no_names : index_rules.front()->params<DeviceIndexMatch>().names;
        std::string why;
        m.edit = method_to_edit(a, si + 1, *r, index_names, why);
        if (!m.edit) {
          m.blocked = true;
          m.message = why;
        }
      }
      out.push_back(std::move(m));
    }
  });
}

}  // namespace banjia::rules
