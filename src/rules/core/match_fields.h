// The [match] table of one rule as a match kind's parser reads it: typed fields by key, each kind
// reading only its own. Errors name the rule (`where`).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace banjia::rules {

struct TomlTable;  // toml_table.h

class MatchFields {
 public:
  using Table = TomlTable;
  MatchFields(const Table& table, const std::string& where) : table_(table), where_(where) {}

  std::string text(std::string_view key) const;           // "" when absent
  std::optional<bool> flag(std::string_view key) const;   // nullopt when absent
  // Throws InputError unless the value is absent (empty list) or an array of strings.
  std::vector<std::string> strings(std::string_view key) const;
  // A table whose values are arrays of strings (`provides = { "flash_attn" = ["flash_attn_func"] }`),
  // sorted by key; empty when absent. Throws InputError for any other shape.
  std::vector<std::pair<std::string, std::vector<std::string>>> string_lists(std::string_view key) const;
  const std::string& where() const { return where_; }

 private:
  const Table& table_;
  const std::string& where_;
};

}  // namespace banjia::rules
