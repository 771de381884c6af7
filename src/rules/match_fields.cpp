#include "rules/match_fields.h"

#include "common/errors.h"
#include "rules/match_fields_table.h"

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

}  // namespace banjia::rules
