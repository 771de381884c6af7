// The facts `banjia trace` uses, loaded from data/trace/*.toml (compiled into the binary): kernel
// classes, names of sync / cast / compile events, and advisor rules with their thresholds.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace banjia::trace {

struct KernelClass {
  std::string name;
  std::vector<std::string> prefix, contains;  // lower-case
  std::string source;
};

struct NameSet {
  std::vector<std::string> exact, prefix;
  std::string source;
  bool matches(std::string_view name) const;
};

// What an advisor rule needs from a trace (`needs = [...]` in advisors.toml). A rule whose need the
// trace does not meet is skipped, and the summary says why (rule_needs.h).
enum class Need : uint8_t {
  device,          // device activity (kernels, copies, communication): not a CPU-only trace
  device_kernels,  // device compute kernels
  input_shapes,    // host ops with "Input Dims" (profiled with record_shapes=True)
  ascend,          // a torch_npu (Ascend) profile
  communication,   // collective or point-to-point communication
};
std::optional<Need> parse_need(std::string_view name);
std::string_view to_string(Need n);

struct AdvisorRule {
  std::string id, severity, message, advice, source;
  // [rule.example]: a trace the rule fires on, in words, and the evidence of its finding there (the
  // rule's page shows both; the tests build that trace and check the evidence).
  std::string example_trace, example_evidence;
  std::map<std::string, double> params;
  std::vector<Need> needs;
  double param(const std::string& key) const;  // throws std::logic_error when missing
};

struct TraceRules {
  std::vector<KernelClass> classes;
  NameSet sync, cast, compile, step;
  NameSet host_collective;  // host ranges that are a collective's own run (gloo's worker threads)
  std::vector<AdvisorRule> advisors;

  // First class whose pattern matches (case-insensitive), else "other".
  std::string_view classify_kernel(std::string_view name) const;
  const AdvisorRule* advisor(std::string_view id) const;
};

// Parsed once from the embedded data; throws std::runtime_error on a malformed data file.
const TraceRules& trace_rules();
// Parses rules from TOML texts (used by trace_rules() and by tests).
TraceRules parse_trace_rules(std::string_view classes_toml, std::string_view events_toml,
                             std::string_view advisors_toml);

// Kernel classes in report order, "other" last.
const std::vector<std::string>& kernel_class_names();

}  // namespace banjia::trace
