#include "rules/core/match_fields.h"

#include "common/errors.h"
#include "rules/core/toml_table.h"

namespace banjia::rules {

std::string MatchFields::text(std::string_view key) const { return table_.fields[key].value_or(std::string()); }

std::optional<bool> MatchFields::flag(std::string_view key) const { return table_.fields[key].value<bool>(); }

std::vector<std::string> MatchFields::strings(std::string_view key) const {
  std::vector<std::string> out;
  const toml::node* n = table_.fields.get(key);
  if (!n) return out;
  const toml::array* arr = n->as_array();
  if (!arr) throw InputError(where_, std::string(key) + " must be an array of strings");
  for (const auto& e : *arr) {
    auto s = e.value<std::string>();
    if (!s) throw InputError(where_, std::string(key) + " must be an array of strings");
    out.push_back(*s);
  }
  return out;
}

std::vector<std::pair<std::string, std::vector<std::string>>> MatchFields::string_lists(std::string_view key) const {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  const toml::node* n = table_.fields.get(key);
  if (!n) return out;
  const toml::table* t = n->as_table();
  const std::string shape = std::string(key) + " must be a table of arrays of strings";
  if (!t) throw InputError(where_, shape);
  for (const auto& [name, value] : *t) {
    const toml::array* arr = value.as_array();
    if (!arr) throw InputError(where_, shape);
    std::vector<std::string> strings;
    for (const auto& e : *arr) {
      auto s = e.value<std::string>();
      if (!s) throw InputError(where_, shape);
      strings.push_back(*s);
    }
    out.emplace_back(std::string(name.str()), std::move(strings));
  }
  return out;
}

}  // namespace banjia::rules
