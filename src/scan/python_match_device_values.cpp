// Matcher on device and backend values ("cuda", "cuda:0", f"cuda:{i}", "nccl"): each value found by
// device_values.h gets the decision of device_flow.h — rewritten, reported for a person, or left in
// code that already handles the Ascend value. Messages and docstrings are not code values.
#include <fmt/format.h>

#include "scan/device_flow.h"
#include "scan/python_matches.h"
#include "scan/tree_flow.h"

namespace banjia::scan {

namespace {

// What the literals below start with: the prefilter's needles (add_string_needles) are these;
// device_values.cpp recognises no CUDA value that does not start with one of them.
constexpr std::string_view kCudaDevice = "cuda", kCudaDevicePrefix = "cuda:";
constexpr std::string_view kNccl = "nccl", kNcclUpper = "NCCL";

struct DeviceRules {
  const Rule* rewrite[2] = {nullptr, nullptr};     // device-string, nccl-backend
  const Rule* unresolved[2] = {nullptr, nullptr};  // device-string-unresolved, nccl-string
  const Rule* beside_npu = nullptr;

  explicit DeviceRules(const RuleCatalog& rules) {
    for (const Rule* r : rules.of_kind(MatchKind::device_string)) {
      if (r->position.empty()) rewrite[0] = r;
      else if (r->position == "unresolved") unresolved[0] = r;
      else if (r->position == "beside-npu") beside_npu = r;
    }
    for (const Rule* r : rules.of_kind(MatchKind::backend_string))
      (r->position == "backend" ? rewrite[1] : unresolved[1]) = r;
  }
};

std::string lines_text(const std::vector<uint32_t>& lines) {
  std::string s;
  for (size_t i = 0; i < lines.size() && i < 3; ++i) s += (i ? ", " : "") + std::to_string(lines[i]);
  if (lines.size() > 3) s += ", ...";
  return s;
}

}  // namespace

void match_device_values(const PythonAnalysis& a, const RuleCatalog& rules, const TreeContext* tree,
                         std::vector<PyMatch>& out) {
  DeviceRules r(rules);
  const FlowSeeds* seeds = tree ? tree->seeds : nullptr;
  auto values = find_device_values(a, seeds);
  if (values.empty()) return;
  auto decisions = decide_device_values(a, values, seeds);
  if (tree && tree->questions) {
    std::vector<bool> unresolved(values.size());
    for (size_t i = 0; i < values.size(); ++i) unresolved[i] = decisions[i].action == ValueAction::unresolved;
    add_tree_questions(values, unresolved, *tree->questions);
  }
  const auto& sig = a.view.sig;
  for (size_t i = 0; i < values.size(); ++i) {
    const DeviceValue& d = values[i];
    const ValueDecision& dec = decisions[i];
    size_t k = d.kind == ValueKind::device ? 0 : 1;
    PyMatch m;
    m.first_tok = sig[d.lit.first_sig];
    m.last_tok = sig[d.lit.last_sig];
    switch (dec.action) {
      case ValueAction::ignore: continue;
      case ValueAction::rewrite:
      case ValueAction::blocked:
        m.rule = r.rewrite[k];
        if (!m.rule) continue;
        if (dec.action == ValueAction::blocked) {
          m.blocked = true;
          m.message = fmt::format("left as is: '{}' is compared here, and the value set on line {} stays (not a device "
                                  "banjia can follow); change both together",
                                  d.key, lines_text(dec.blocking_lines));
        } else if (m.rule->fix == FixKind::automatic) {
          m.edit = replace_in_value(d.lit, m.rule->rewrite_from, m.rule->rewrite_to);
        }
        break;
      case ValueAction::unresolved:
        m.rule = r.unresolved[k];
        break;
      case ValueAction::beside_npu:
        m.rule = r.beside_npu;
        break;
    }
    if (m.rule) out.push_back(std::move(m));
  }
}

void add_string_needles(const RuleCatalog& rules, PythonNeedles& needles) {
  if (!rules.of_kind(MatchKind::device_string).empty()) {
    needles.add_string_value(kCudaDevice);
    needles.add_string_prefix(kCudaDevicePrefix);
  }
  if (!rules.of_kind(MatchKind::backend_string).empty()) {
    needles.add_string_value(kNccl);
    needles.add_string_value(kNcclUpper);
  }
}

}  // namespace banjia::scan
