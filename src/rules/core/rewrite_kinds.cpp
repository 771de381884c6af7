#include "rules/core/rewrite_kinds.h"

#include <algorithm>
#include <array>

#include "common/errors.h"
#include "rules/core/toml_table.h"

namespace banjia::rules {

namespace {

RewriteParams parse_name_rewrite(const TomlTable& t, std::string_view, const std::string&) {
  return NameRewrite{t.fields["from"].value_or(std::string()), t.fields["to"].value_or(std::string())};
}

RewriteParams parse_call_rewrite(const TomlTable& t, std::string_view, const std::string& where) {
  CallRewrite c;
  if (const toml::table* names = t.fields["names"].as_table())
    for (const auto& [from, to] : *names) {
      auto s = to.value<std::string>();
      if (!s) throw InputError(where, "rewrite names map each name to a string");
      c.renames.emplace_back(std::string(from.str()), *s);
    }
  if (c.renames.empty()) throw InputError(where, "a rename-call rewrite needs a `names` table");
  c.positional_only = t.fields["positional_only"].value_or(false);
  if (const toml::table* positional = t.fields["positional"].as_table())
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
  return c;
}

RewriteParams parse_device_rewrite(const TomlTable& t, std::string_view name, const std::string& where) {
  DeviceRewrite d;
  d.value = t.fields["value"].value_or(std::string());
  if (d.value.empty()) throw InputError(where, "a " + std::string(name) + " rewrite needs a `value`");
  d.compare = t.fields["compare"].value_or(d.value);
  d.indexed = t.fields["indexed"].value_or(std::string());
  d.specific = t.fields["specific"].value_or(std::string());
  d.ids = t.fields["ids"].value_or(std::string());
  return d;
}

constexpr std::array<RewriteKindEntry, 10> kRewriteKinds = {{
    {"rename-attribute", RewriteKind::rename_attribute, &parse_name_rewrite},
    {"replace-module", RewriteKind::replace_module, &parse_name_rewrite},
    {"rename-last", RewriteKind::rename_last, &parse_name_rewrite},
    {"replace-in-string", RewriteKind::replace_in_string, &parse_name_rewrite},
    {"rename-env", RewriteKind::rename_env, &parse_name_rewrite},
    {"rename-call", RewriteKind::rename_call, &parse_call_rewrite},
    {"device-expression", RewriteKind::device_expression, &parse_device_rewrite},
    {"method-to", RewriteKind::method_to, &parse_device_rewrite},
    {"device-from-index", RewriteKind::device_from_index, &parse_device_rewrite},
    {"redirect-import", RewriteKind::redirect_import, &parse_name_rewrite},
}};

}  // namespace

std::span<const RewriteKindEntry> rewrite_kinds() { return kRewriteKinds; }

const RewriteKindEntry* find_rewrite_kind(std::string_view name) {
  auto it = std::find_if(kRewriteKinds.begin(), kRewriteKinds.end(), [&](const RewriteKindEntry& e) { return e.name == name; });
  return it == kRewriteKinds.end() ? nullptr : &*it;
}

std::string_view to_string(RewriteKind k) {
  for (const auto& e : kRewriteKinds)
    if (e.kind == k) return e.name;
  return "";
}

}  // namespace banjia::rules
