#include "env/analysis/alloc_conf.h"

#include <charconv>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "common/fuzzy.h"
#include "env/model/knowledge_base.h"

namespace banjia::env {
namespace {

std::string_view trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string_view::npos ? std::string_view{} : s.substr(b, e - b + 1);
}

std::optional<double> parse_double(std::string_view s) {
  std::string tmp(s);
  if (tmp.empty()) return std::nullopt;
  char* end = nullptr;
  double d = std::strtod(tmp.c_str(), &end);
  if (end != tmp.c_str() + tmp.size()) return std::nullopt;
  return d;
}

bool is_integer(std::string_view s) {
  long long v;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return !s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// Returns a description of why `value` is outside the option's documented values, or empty when fine.
std::string option_value_problem(const AllocOption& o, std::string_view value) {
  if (o.type == "bool") return value == "True" || value == "False" ? "" : "documented values are True and False";
  if (o.type == "enum") {
    for (const auto& v : o.values)
      if (v == value) return "";
    return fmt::format("the only documented value is {}", fmt::join(o.values, ", "));
  }
  if (o.type == "roundup") {
    if (is_integer(value)) return "";
    if (value.starts_with('[') && value.ends_with(']')) return "";
    return "expected N or [size:N,...,>:N]";
  }
  if (o.type == "int" && !is_integer(value)) return "expected an integer";
  if (o.type == "mb" && !is_integer(value)) return "expected an integer number of MB";
  auto d = parse_double(value);
  if (!d) return "expected a number";
  auto num = [](double x) { return fmt::format("{}", x); };
  if (o.min && *d < *o.min) return "must be >= " + num(*o.min);
  if (o.max && *d > *o.max) return "must be <= " + num(*o.max);
  if (o.gt && *d <= *o.gt) return "must be > " + num(*o.gt);
  if (o.lt && *d >= *o.lt) return "must be < " + num(*o.lt);
  return "";
}

}  // namespace

std::vector<AllocEntry> split_alloc_conf(std::string_view value) {
  std::vector<AllocEntry> out;
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i <= value.size(); ++i) {
    char c = i < value.size() ? value[i] : ',';
    if (c == '[') ++depth;
    else if (c == ']' && depth > 0) --depth;
    else if (c == ',' && depth == 0) {
      std::string_view entry = value.substr(start, i - start);
      if (!trim(entry).empty()) {
        AllocEntry e;
        e.begin = start;
        e.end = i;
        size_t colon = entry.find(':');
        e.has_colon = colon != std::string_view::npos;
        e.key = std::string(trim(entry.substr(0, colon)));
        e.value = e.has_colon ? std::string(trim(entry.substr(colon + 1))) : std::string();
        out.push_back(std::move(e));
      }
      start = i + 1;
    }
  }
  return out;
}

void check_alloc_conf(std::string_view var, std::string_view value, const Site& site, std::vector<Finding>& out) {
  const auto& kb = knowledge_base();
  const VarInfo* info = kb.var(var);
  std::string var_source = info ? info->source : std::string(kb.rule("env-alloc-unknown-option").source);
  std::vector<std::string> option_names;
  for (const auto& o : kb.alloc_options) option_names.push_back(o.name);

  auto entries = split_alloc_conf(value);
  const AllocEntry* expandable_true = nullptr;
  std::optional<double> max_split, large_segment;
  bool pinned_register = false, pinned_expandable = false;
  for (const auto& e : entries) {
    if (!e.has_colon) {
      out.push_back(make_finding(site, "env-alloc-syntax", Severity::error,
                                 fmt::format("{} entry '{}' is not opt:value", var, e.key),
                                 "write options as opt1:v1,opt2:v2", var_source));
      continue;
    }
    const AllocOption* o = kb.alloc_option(e.key);
    if (!o) {
      auto near = closest_names(e.key, option_names);
      out.push_back(make_finding(
          site, "env-alloc-unknown-option", Severity::error,
          fmt::format("{}: unknown option '{}'; torch_npu fails with \"Unrecognized key '{}' in NPU allocator config\"",
                      var, e.key, e.key),
          near.empty() ? fmt::format("remove '{}'; known options: {}", e.key, fmt::join(option_names, ", "))
                       : fmt::format("did you mean {}?", fmt::join(near, ", ")),
          var_source));
      continue;
    }
    std::string problem = option_value_problem(*o, e.value);
    if (!problem.empty()) {
      bool fatal = o->invalid == InvalidPolicy::error;
      out.push_back(make_finding(
          site, "env-alloc-invalid-value", fatal ? Severity::error : Severity::warning,
          fmt::format("{}: {}:{} - {}{}", var, e.key, e.value, problem,
                      fatal && !o->invalid_message.empty() ? fmt::format(" (torch_npu: \"{}\")", o->invalid_message) : ""),
          fmt::format("{} (default {})", o->meaning, o->default_value), o->source));
    }
    if (o->deprecated)
      out.push_back(make_finding(site, "env-alloc-deprecated-option", Severity::warning,
                                 fmt::format("{}: option '{}' is deprecated", var, e.key),
                                 fmt::format("use {}", o->replacement), o->source));
    if (e.key == "expandable_segments" && e.value == "True") expandable_true = &e;
    if (e.key == "max_split_size_mb") max_split = parse_double(e.value);
    if (e.key == "large_segment_size_mb") large_segment = parse_double(e.value);
    if (e.key == "pinned_mem_register" && e.value == "True") pinned_register = true;
    if (e.key == "pin_memory_expandable_segments" && e.value == "True") pinned_expandable = true;
  }
  if (expandable_true) {
    for (const auto& e : entries) {
      if (e.key != "max_split_size_mb" && e.key != "garbage_collection_threshold") continue;
      out.push_back(make_finding(
          site, "env-alloc-expandable-conflict", Severity::error,
          fmt::format("{}: expandable_segments:True cannot be combined with {}; torch_npu fails with "
                      "\"`max_split_size_mb` or `garbage_collection_threshold`, cannot be enabled with "
                      "`expandable_segments`\"",
                      var, e.key),
          fmt::format("drop {} or expandable_segments:True", e.key), kb.alloc_option("expandable_segments")->source));
    }
  }
  if (max_split && large_segment && *max_split < *large_segment)
    out.push_back(make_finding(site, "env-alloc-option-conflict", Severity::warning,
                               fmt::format("{}: large_segment_size_mb requires max_split_size_mb >= it", var),
                               "raise max_split_size_mb or lower large_segment_size_mb",
                               kb.alloc_option("large_segment_size_mb")->source));
  if (pinned_register && pinned_expandable)
    out.push_back(make_finding(site, "env-alloc-option-conflict", Severity::warning,
                               fmt::format("{}: pinned_mem_register is not supported together with "
                                           "pin_memory_expandable_segments", var),
                               "enable only one of the two", kb.alloc_option("pinned_mem_register")->source));
}

}  // namespace banjia::env
