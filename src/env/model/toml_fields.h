// Typed fields of one TOML table of the knowledge base: each accessor records a problem (prefixed
// with where the table is) for a field of the wrong type or a required one that is missing.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <toml++/toml.h>

namespace banjia::env {

// Whether `s` is one of `v` (a list field's allowed values).
inline bool contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Reads string fields of one TOML table, recording a problem for required ones that are missing.
class TomlFields {
 public:
  TomlFields(const toml::table& t, std::string where, std::vector<std::string>& problems)
      : t_(t), where_(std::move(where)), problems_(problems) {}

  std::string str(std::string_view key, bool required = false) const {
    if (auto v = t_[key].value<std::string>()) {
      if (required && v->empty()) problem(fmt::format("empty '{}'", key));
      return *v;
    }
    if (t_.contains(key)) problem(fmt::format("'{}' must be a string", key));
    else if (required) problem(fmt::format("missing '{}'", key));
    return {};
  }
  std::vector<std::string> list(std::string_view key) const {
    std::vector<std::string> out;
    if (!t_.contains(key)) return out;
    const auto* arr = t_[key].as_array();
    if (!arr) {
      problem(fmt::format("'{}' must be an array of strings", key));
      return out;
    }
    for (const auto& n : *arr) {
      if (auto s = n.value<std::string>()) out.push_back(*s);
      else problem(fmt::format("'{}' must contain only strings", key));
    }
    return out;
  }
  std::optional<long long> integer(std::string_view key) const {
    if (!t_.contains(key)) return std::nullopt;
    if (auto v = t_[key].value<int64_t>(); v && t_[key].is_integer()) return *v;
    problem(fmt::format("'{}' must be an integer", key));
    return std::nullopt;
  }
  std::optional<double> number(std::string_view key) const {
    if (!t_.contains(key)) return std::nullopt;
    if (auto v = t_[key].value<double>()) return *v;
    problem(fmt::format("'{}' must be a number", key));
    return std::nullopt;
  }
  bool boolean(std::string_view key) const {
    if (!t_.contains(key)) return false;
    if (auto v = t_[key].value<bool>()) return *v;
    problem(fmt::format("'{}' must be true or false", key));
    return false;
  }
  // A table inside this one, whose problems are reported at the same place.
  TomlFields within(const toml::table& sub) const { return TomlFields(sub, where_, problems_); }
  const toml::table& table() const { return t_; }
  void problem(const std::string& what) const { problems_.push_back(where_ + ": " + what); }

 private:
  const toml::table& t_;
  std::string where_;
  std::vector<std::string>& problems_;
};

// Calls fn(table, fields) for each table of the array `key` of `root`, whose problems name the table by
// its name, id or position.
template <class F>
void each_table(const toml::table& root, std::string_view key, const std::string& path,
                std::vector<std::string>& problems, F&& fn) {
  if (!root.contains(key)) return;
  const auto* arr = root[key].as_array();
  if (!arr) {
    problems.push_back(fmt::format("{}: '{}' must be an array of tables", path, key));
    return;
  }
  size_t i = 0;
  for (const auto& node : *arr) {
    ++i;
    const auto* t = node.as_table();
    if (!t) {
      problems.push_back(fmt::format("{}: {}[{}] is not a table", path, key, i));
      continue;
    }
    std::string label = t->contains("name") ? t->at("name").value_or(std::string{}) : std::string{};
    if (label.empty()) label = t->contains("id") ? t->at("id").value_or(std::string{}) : fmt::format("#{}", i);
    if (label.empty()) label = t->contains("scenario") ? t->at("scenario").value_or(std::string{}) : label;
    TomlFields f(*t, fmt::format("{}: {} '{}'", path, key, label), problems);
    fn(*t, f);
  }
}

}  // namespace banjia::env
