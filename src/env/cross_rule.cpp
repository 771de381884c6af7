#include "env/cross_rule.h"

#include <algorithm>

namespace banjia::env {

const std::vector<CrossKind>& cross_rule_kinds() {
  static const std::vector<CrossKind> kinds = {
      {"assignment", {"evidence", "suggestion"}, {"var", "value", "line", "other", "other_value", "other_line"}},
      {"timeout-order",
       {"evidence", "evidence_default", "suggestion"},
       {"longer", "longer_value", "shorter", "shorter_value"}},
      {"cuda-pair-differs",
       {"evidence", "evidence_no_line", "suggestion"},
       {"var", "value", "other", "other_value", "other_line"}},
      {"deprecated-and-replacement", {"evidence", "suggestion"}, {"var", "value", "line", "replacement"}},
  };
  return kinds;
}

const CrossKind* cross_rule_kind(std::string_view name) {
  for (const auto& k : cross_rule_kinds())
    if (k.name == name) return &k;
  return nullptr;
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
