#include "rules/core/catalog.h"

#include <algorithm>
#include <atomic>

#include "common/toml_document.h"

#include "common/embedded_data.h"
#include "common/errors.h"
#include "common/version.h"
#include "rules/core/match_fields.h"
#include "rules/core/toml_table.h"
#include "rules/core/source_files.h"

namespace banjia::rules {

namespace {

std::string required(const toml::table& t, std::string_view key, const std::string& where) {
  auto v = t[key].value<std::string>();
  if (!v || v->empty()) throw InputError(where, "missing or empty '" + std::string(key) + "'");
  return *v;
}

// What a migration target does with a rule: its rewrite and examples (from the rule's own table or
// from one of its [rule.target.NAME] tables).
void parse_migration(const toml::table& t, Rule& r, const std::string& where) {
  if (const toml::table* w = t["rewrite"].as_table()) {
    const std::string rk = required(*w, "kind", where);
    const RewriteKindEntry* entry = find_rewrite_kind(rk);
    if (!entry) throw InputError(where, "unknown rewrite kind '" + rk + "'");
    r.rewrite = entry->kind;
    r.rewrite_params = entry->parse(TomlTable{*w}, rk, where);
  }
  if (r.rewrite == RewriteKind::redirect_import) {
    // The module the imports are redirected to is a file migrate writes: it must be compiled in.
    const std::string& shim = r.rewrite_as<NameRewrite>().to;
    if (r.match.kind().name != "shim-import")
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
  r.match = RuleMatch(*entry, entry->parse(fields));

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

std::optional<std::string_view> shim_source(std::string_view module) {
  return embedded_file("data/shims/" + std::string(module) + ".py");
}

uint64_t RuleCatalog::next_revision() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

void RuleCatalog::add_toml(std::string_view text, const std::string& file) {
  add_rules(text, file);
  index();
}

void RuleCatalog::add_rules(std::string_view text, const std::string& file) {
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
}

void RuleCatalog::index() {
  const auto kinds = match_kinds();
  by_kind_.assign(kinds.size(), {});
  for (const auto& r : rules_) by_kind_[r.match.index()].push_back(&r);
  kind_indexes_.assign(kinds.size(), nullptr);
  for (size_t k = 0; k < kinds.size(); ++k)
    if (kinds[k].build_index) kind_indexes_[k] = kinds[k].build_index(*this);
}

const RuleCatalog& RuleCatalog::builtin() {
  static const RuleCatalog catalog = [] {
    RuleCatalog c;
    for (const auto& f : embedded_under("data/rules/"))
      if (f.path.ends_with(".toml")) c.add_rules(f.contents, std::string(f.path));
    c.index();  // once, over every file's rules
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
  // The device type expression, written once (the value of the device-string rule's
  // device-expression rewrite), used by every template that names the device: {device_type}.
  std::string device_type;
  for (const auto& r : c.rules_)
    if (r.match.kind().name == "device-string" && r.rewrite == RewriteKind::device_expression)
      device_type = r.rewrite_as<DeviceRewrite>().value;
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

}  // namespace banjia::rules
