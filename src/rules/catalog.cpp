#include "rules/catalog.h"

#include <algorithm>
#include <atomic>

#include "common/toml_document.h"

#include "common/embedded_data.h"
#include "common/errors.h"
#include "common/version.h"
#include "rules/match_fields_table.h"
#include "rules/source_files.h"

namespace banjia::rules {

namespace {

const std::pair<std::string_view, RewriteKind> kRewriteKinds[] = {
    {"rename-attribute", RewriteKind::rename_attribute}, {"replace-module", RewriteKind::replace_module},
    {"rename-last", RewriteKind::rename_last},           {"replace-in-string", RewriteKind::replace_in_string},
    {"rename-env", RewriteKind::rename_env},             {"rename-call", RewriteKind::rename_call},
    {"device-expression", RewriteKind::device_expression}, {"method-to", RewriteKind::method_to},
    {"device-from-index", RewriteKind::device_from_index}, {"redirect-import", RewriteKind::redirect_import},
};

std::string required(const toml::table& t, std::string_view key, const std::string& where) {
  auto v = t[key].value<std::string>();
  if (!v || v->empty()) throw InputError(where, "missing or empty '" + std::string(key) + "'");
  return *v;
}

// What a migration target does with a rule: its rewrite and examples (from the rule's own table or
// from one of its [rule.target.NAME] tables).
void parse_migration(const toml::table& t, Rule& r, const std::string& where) {
  if (const toml::table* w = t["rewrite"].as_table()) {
    std::string rk = required(*w, "kind", where);
    bool ok = false;
    for (auto [name, k] : kRewriteKinds)
      if (name == rk) { r.rewrite = k; ok = true; }
    if (!ok) throw InputError(where, "unknown rewrite kind '" + rk + "'");
    switch (r.rewrite) {
      case RewriteKind::rename_call: {
        CallRewrite c;
        if (const toml::table* names = (*w)["names"].as_table())
          for (const auto& [from, to] : *names) {
            auto s = to.value<std::string>();
            if (!s) throw InputError(where, "rewrite names map each name to a string");
            c.renames.emplace_back(std::string(from.str()), *s);
          }
        if (c.renames.empty()) throw InputError(where, "a rename-call rewrite needs a `names` table");
        c.positional_only = (*w)["positional_only"].value_or(false);
        if (const toml::table* positional = (*w)["positional"].as_table())
          for (const auto& [from, params] : *positional) {
            const toml::array* list = params.as_array();
            if (!list) throw InputError(where, "rewrite positional maps each name to a list of parameter names");
            std::vector<std::string> names;
            for (const auto& p : *list) {
              auto s = p.value<std::string>();
              if (!s) throw InputError(where, "rewrite positional maps each name to a list of parameter names");
              names.push_back(*s);
            }
            c.positional.emplace_back(std::string(from.str()), std::move(names));
          }
        r.rewrite_params = std::move(c);
        break;
      }
      case RewriteKind::device_expression:
      case RewriteKind::method_to:
      case RewriteKind::device_from_index: {
        DeviceRewrite d;
        d.value = (*w)["value"].value_or(std::string());
        if (d.value.empty()) throw InputError(where, "a " + rk + " rewrite needs a `value`");
        d.compare = (*w)["compare"].value_or(d.value);
        d.indexed = (*w)["indexed"].value_or(std::string());
        d.specific = (*w)["specific"].value_or(std::string());
        d.ids = (*w)["ids"].value_or(std::string());
        r.rewrite_params = std::move(d);
        break;
      }
      default:
        r.rewrite_params = NameRewrite{(*w)["from"].value_or(std::string()), (*w)["to"].value_or(std::string())};
    }
  }
  if (r.rewrite == RewriteKind::redirect_import) {
    // The module the imports are redirected to is a file migrate writes: it must be compiled in.
    const std::string& shim = r.rewrite_as<NameRewrite>().to;
    if (!std::holds_alternative<ShimImportMatch>(r.match))
      throw InputError(where, "a redirect-import rewrite goes with a shim-import match");
    if (!shim_source(shim)) throw InputError(where, "redirect-import to '" + shim + "': no data/shims/" + shim + ".py");
  }
  if ((r.fix == FixKind::automatic) != (r.rewrite != RewriteKind::none))
    throw InputError(where, "a rule has a [rewrite] exactly when its fix is 'automatic'");

  if (const toml::array* ex = t["example"].as_array()) {
    for (const auto& e : *ex) {
      const toml::table* et = e.as_table();
      if (!et) throw InputError(where, "example must be a table");
      RuleExample x;
      x.before = required(*et, "before", where + " example");
      if (auto f = (*et)["file"].value<std::string>()) x.file = *f;
      if (x.file.find('/') != std::string::npos || classify_file(x.file) == FileKind::other)
        throw InputError(where, "example file '" + x.file + "' is no file name scan reads");
      if (auto a = (*et)["after"].value<std::string>()) x.after = *a;
      x.none = (*et)["none"].value_or(false);
      x.run = (*et)["run"].value_or(false);
      x.program = (*et)["program"].value_or(std::string());
      const bool python = classify_file(x.file) == FileKind::python;
      if ((x.run && !python) || (!x.program.empty() && python) || ((x.run || !x.program.empty()) && x.none))
        throw InputError(where, "an example that runs is a Python `before` with `run = true`, or another file with the `program` that reads it");
      r.examples.push_back(std::move(x));
    }
  }
}

Rule parse_rule(const toml::table& t, const std::string& file, size_t index) {
  std::string where = file + " rule #" + std::to_string(index + 1);
  Rule r;
  r.id = required(t, "id", where);
  where = file + " rule '" + r.id + "'";
  r.data_file = file;
  r.category = required(t, "category", where);
  auto sev = parse_severity(required(t, "severity", where));
  if (!sev) throw InputError(where, "severity must be error, warning or info");
  r.severity = *sev;
  auto fix = parse_fix_kind(required(t, "fix", where));
  if (!fix) throw InputError(where, "fix must be automatic, manual, unsupported or advisory");
  r.fix = *fix;
  r.summary = t["summary"].value_or(std::string());
  r.message = required(t, "message", where);
  r.source = required(t, "source", where);
  r.caution = t["caution"].value_or(std::string());
  if (auto rep = t["replacement"].value<std::string>()) r.replacement = *rep;
  r.min_torch_npu = t["min_torch_npu"].value_or(std::string());
  if (!r.min_torch_npu.empty()) {
    if (!is_release_version(r.min_torch_npu))
      throw InputError(where, "min_torch_npu must be a TorchNPU release such as 26.2.0");
    // migrate cannot know the release a tree will run on, so it never writes such a name itself.
    if (!r.replacement || r.fix == FixKind::automatic)
      throw InputError(where, "a rule with min_torch_npu needs a replacement and a fix other than automatic");
    *r.replacement += " (torch_npu " + r.min_torch_npu + " or newer)";
  }

  const toml::table* m = t["match"].as_table();
  if (!m) throw InputError(where, "missing [match] table");
  const std::string kind = required(*m, "kind", where);
  const MatchKindEntry* entry = find_match_kind(kind);
  if (!entry) throw InputError(where, "unknown match kind '" + kind + "'");
  const MatchFields::Table table{*m};
  const MatchFields fields(table, where);
  r.match = entry->parse(fields);

  if (auto spelling = t["index_spelling"].value<std::string>()) r.index_spelling = *spelling;
  parse_migration(t, r, where);

  if (const toml::table* targets = t["target"].as_table()) {
    for (const auto& [name, node] : *targets) {
      const toml::table* tt = node.as_table();
      const std::string twhere = where + " target '" + std::string(name.str()) + "'";
      if (!tt) throw InputError(twhere, "must be a table");
      // The target's form: the same match, everything a migration target decides taken from its table.
      auto form = std::make_shared<Rule>(r);
      form->targets.clear();
      form->examples.clear();
      form->rewrite = RewriteKind::none;
      form->rewrite_params = {};
      form->source = required(*tt, "source", twhere);
      if (auto fix = (*tt)["fix"].value<std::string>()) {
        auto k = parse_fix_kind(*fix);
        if (!k) throw InputError(twhere, "fix must be automatic, manual, unsupported or advisory");
        form->fix = *k;
      }
      if (auto sev = (*tt)["severity"].value<std::string>()) {
        auto k = parse_severity(*sev);
        if (!k) throw InputError(twhere, "severity must be error, warning or info");
        form->severity = *k;
      }
      if (auto msg = (*tt)["message"].value<std::string>()) form->message = *msg;
      if (auto caution = (*tt)["caution"].value<std::string>()) form->caution = *caution;
      if (auto rep = (*tt)["replacement"].value<std::string>()) form->replacement = *rep;
      if (auto spelling = (*tt)["index_spelling"].value<std::string>()) form->index_spelling = *spelling;
      parse_migration(*tt, *form, twhere);
      r.targets.emplace_back(std::string(name.str()), std::move(form));
    }
  }
  return r;
}

}  // namespace

std::string_view to_string(RewriteKind k) {
  for (auto [name, kind] : kRewriteKinds)
    if (kind == k) return name;
  return "";
}

uint64_t RuleCatalog::next_revision() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

void RuleCatalog::add_toml(std::string_view text, const std::string& file) {
  revision_ = next_revision();
  toml::table doc = parse_toml(text, file);
  const toml::array* rules = doc["rule"].as_array();
  if (!rules) throw InputError(file, "no [[rule]] entries");
  size_t i = 0;
  for (const auto& node : *rules) {
    const toml::table* t = node.as_table();
    if (!t) throw InputError(file, "[[rule]] entry is not a table");
    Rule r = parse_rule(*t, file, i++);
    if (by_id_.find(r.id) != by_id_.end()) throw InputError(file, "duplicate rule id '" + r.id + "'");
    by_id_[r.id] = rules_.size();
    rules_.push_back(std::move(r));
  }
  index();
}

void RuleCatalog::index() {
  qualified_tree_.clear();
  import_modules_.clear();
  qualified_roots_.clear();
  for (auto& v : by_kind_) v.clear();
  for (const auto& r : rules_) by_kind_[r.match.index()].push_back(&r);
  for (size_t i = 0; i < rules_.size(); ++i) {
    const Rule& r = rules_[i];
    const bool qualified = std::holds_alternative<QualifiedMatch>(r.match);
    if (qualified || std::holds_alternative<KeywordArgMatch>(r.match) || std::holds_alternative<LoopCallMatch>(r.match))
      for (const auto& n : match_names(r.match)) {
        std::string root = n.substr(0, n.find('.'));
        if (std::find(qualified_roots_.begin(), qualified_roots_.end(), root) == qualified_roots_.end())
          qualified_roots_.push_back(root);
      }
    if (qualified) {
      const auto& q = r.params<QualifiedMatch>();
      for (const auto& n : q.names) {
        for (size_t dot = n.find('.'); dot != std::string::npos; dot = n.find('.', dot + 1))
          qualified_tree_.try_emplace(n.substr(0, dot));
        QualifiedNode& node = qualified_tree_[n];
        (q.prefix ? node.prefix : q.exact_only ? node.exact_only : node.exact) = i;
      }
    }
    if (const auto* import = std::get_if<ImportMatch>(&r.match))
      for (const auto& m : import->modules) import_modules_[m] = i;
  }
}

const RuleCatalog& RuleCatalog::builtin() {
  static const RuleCatalog catalog = [] {
    RuleCatalog c;
    for (const auto& f : embedded_under("data/rules/"))
      if (f.path.ends_with(".toml")) c.add_toml(f.contents, std::string(f.path));
    return c;
  }();
  return catalog;
}

namespace {

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
}

}  // namespace

RuleCatalog RuleCatalog::with_target(std::string_view target) const {
  RuleCatalog c;
  for (const auto& r : rules_) {
    const Rule* form = &r;
    for (const auto& [name, f] : r.targets)
      if (name == target) form = f.get();
    c.by_id_[form->id] = c.rules_.size();
    c.rules_.push_back(*form);
    c.rules_.back().targets.clear();
  }
  // The device type expression, written once (the device-string rule's value), used by every
  // template that names the device: {device_type}.
  std::string device_type;
  for (const auto& r : c.rules_)
    if (const auto* d = std::get_if<DeviceStringMatch>(&r.match); d && d->position.empty())
      if (const auto* w = std::get_if<DeviceRewrite>(&r.rewrite_params)) device_type = w->value;
  if (!device_type.empty())
    for (auto& r : c.rules_) {
      if (auto* call = std::get_if<CallRewrite>(&r.rewrite_params))
        for (auto& [from, to] : call->renames) replace_all(to, "{device_type}", device_type);
      if (auto* d = std::get_if<DeviceRewrite>(&r.rewrite_params))
        for (std::string* s : {&d->value, &d->compare, &d->specific, &d->indexed})
          replace_all(*s, "{device_type}", device_type);
      replace_all(r.index_spelling, "{device_type}", device_type);
      for (auto& e : r.examples) {
        if (e.after) replace_all(*e.after, "{device_type}", device_type);
      }
    }
  c.index();
  return c;
}

const RuleCatalog* RuleCatalog::for_target(std::string_view target) {
  if (target == kTargetNpu) return &builtin();
  if (target != kTargetAccelerator) return nullptr;
  static const RuleCatalog accelerator = builtin().with_target(kTargetAccelerator);
  return &accelerator;
}

const Rule* RuleCatalog::find(std::string_view id) const {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &rules_[it->second];
}

const Rule* RuleCatalog::match_qualified(std::string_view q) const {
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
    if (whole && node.exact_only != QualifiedNode::none) return &rules_[node.exact_only];
    if (node.exact != QualifiedNode::none) best = &rules_[node.exact];
    else if (node.prefix != QualifiedNode::none) best = &rules_[node.prefix];
    if (whole) break;
  }
  return best;
}

bool RuleCatalog::has_qualified_root(std::string_view first) const {
  for (const auto& r : qualified_roots_)
    if (r == first) return true;
  return false;
}

const Rule* RuleCatalog::match_import(std::string_view module) const {
  std::string_view cur = module;
  for (;;) {
    if (auto it = import_modules_.find(cur); it != import_modules_.end()) return &rules_[it->second];
    size_t dot = cur.rfind('.');
    if (dot == std::string_view::npos) return nullptr;
    cur = cur.substr(0, dot);
  }
}


}  // namespace banjia::rules
