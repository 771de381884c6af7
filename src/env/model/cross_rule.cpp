#include "env/model/cross_rule.h"

#include <algorithm>

namespace banjia::env {

const CrossKind* cross_rule_kind(std::string_view name) {
  for (const auto& k : cross_rule_kinds())
    if (k.name == name) return &k;
  return nullptr;
}

std::vector<std::string> kinds_without_rules(const std::vector<CrossRule>& rules) {
  std::vector<std::string> out;
  for (const auto& k : cross_rule_kinds())
    if (std::none_of(rules.begin(), rules.end(), [&](const CrossRule& r) { return r.kind == k.name; })) out.push_back(k.name);
  return out;
}

const std::vector<std::string>& cross_clause_tests() {
  static const std::vector<std::string> tests = {"set",           "unset",      "equals",
                                                 "integer-nonzero", "unresolved", "alloc-conf-has"};
  return tests;
}

std::optional<std::vector<std::string>> template_placeholders(std::string_view text) {
  std::vector<std::string> names;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '}') {
      if (i + 1 < text.size() && text[i + 1] == '}') {
        ++i;
        continue;
      }
      return std::nullopt;
    }
    if (text[i] != '{') continue;
    if (i + 1 < text.size() && text[i + 1] == '{') {
      ++i;
      continue;
    }
    size_t close = text.find('}', i);
    if (close == std::string_view::npos) return std::nullopt;
    std::string name(text.substr(i + 1, close - i - 1));
    if (name.empty() || name.find('{') != std::string::npos) return std::nullopt;
    names.push_back(std::move(name));
    i = close;
  }
  return names;
}

std::string fill_template(std::string_view text, const std::map<std::string, std::string>& values) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    size_t close = c == '{' ? text.find('}', i) : std::string_view::npos;
    auto it = close == std::string_view::npos ? values.end() : values.find(std::string(text.substr(i + 1, close - i - 1)));
    if (it == values.end()) {
      out += c;
      continue;
    }
    out += it->second;
    i = close;
  }
  return out;
}

}  // namespace banjia::env
