// Match kinds "device-string" and "backend-string" (device_string.h): device and backend values ("cuda", "cuda:0", f"cuda:{i}", "nccl"): each value found by
// device_values.h gets the decision of device_flow.h — rewritten, reported for a person, or left in
// code that already handles the Ascend value. Messages and docstrings are not code values.
#include "rules/kinds/device_string.h"

#include <algorithm>

#include <fmt/format.h>

#include "rules/analyses/device_flow.h"
#include "rules/analyses/python_analysis.h"
#include "rules/analyses/python_prefilter.h"
#include "rules/analyses/tree_flow.h"
#include "rules/core/catalog.h"
#include "rules/core/match.h"
#include "rules/core/match_fields.h"
#include "rules/rewrites/replace_in_string.h"

namespace banjia::rules {

namespace {

// What the literals below start with: the prefilter's needles (add_needles) are these;
// device_values.cpp recognises no CUDA value that does not start with one of them.
constexpr std::string_view kCudaDevice = "cuda", kCudaDevicePrefix = "cuda:";
constexpr std::string_view kNccl = "nccl", kNcclUpper = "NCCL";
// A backend per device starts with its first device: "cuda:nccl,..." (kCudaDevicePrefix) or "cpu:...".
constexpr std::string_view kCpuDevicePrefix = "cpu:";

struct DeviceRules {
  const Rule* rewrite[2] = {nullptr, nullptr};     // device-string, nccl-backend
  const Rule* unresolved[2] = {nullptr, nullptr};  // device-string-unresolved, nccl-string
  const Rule* beside_npu = nullptr;

  explicit DeviceRules(const RuleCatalog& rules) {
    for (const Rule* r : rules.of_kind<DeviceStringMatch>()) {
      const std::string& position = r->params<DeviceStringMatch>().position;
      if (position.empty()) rewrite[0] = r;
      else if (position == "unresolved") unresolved[0] = r;
      else if (position == "beside-npu") beside_npu = r;
    }
    for (const Rule* r : rules.of_kind<BackendStringMatch>())
      (r->params<BackendStringMatch>().position == "backend" ? rewrite[1] : unresolved[1]) = r;
  }
};

// The literal replaced by an expression (a device-expression rewrite). The whole value ("cuda")
// becomes the expression. A longer one ("cuda:0", f"cuda:{i}") becomes `(<expression> + <the rest of
// the literal>)`: the parentheses keep `.format(i)` or `% i` after it applying to the whole. Compared
// values get the rule's compare expression. A value naming one device, where the rule has a
// `specific` template, becomes that template around the rest of its whole expression ({rest}:
// `':{}'.format(i)`, `f':{rank}'`). Only the opening up to "cuda" is replaced and the closing
// inserted after, so that edits inside (an f-string's fields) still apply. The expression's quotes
// follow the literal's.
void expression_edit(const PythonAnalysis& a, const DeviceValue& d, const Rule& rule, std::string_view from, PyMatch& m) {
  const DeviceRewrite& w = rule.rewrite_as<DeviceRewrite>();
  const bool compared = d.role == ValueRole::comparison;
  const bool specific = !compared && d.specific && !w.specific.empty() && d.expr.first == d.lit.first_sig;
  std::string expr = compared ? w.compare : specific ? w.specific : w.value;
  const uint32_t begin = a.sig_token(d.lit.first_sig).begin;
  const uint32_t end = a.sig_token(specific ? d.expr.last : d.lit.last_sig).end;
  const std::string_view prefix = a.text().substr(begin, d.lit.value_offset - begin);  // f" or '
  if (prefix.find('"') != std::string_view::npos) std::replace(expr.begin(), expr.end(), '\'', '"');
  const auto opened = static_cast<uint32_t>(d.lit.value_offset + from.size());
  if (!specific && d.lit.complete && d.lit.value.size() == from.size()) {
    m.edit = TextEdit{begin, end, expr};
    return;
  }
  std::string open = "(" + expr + " + ", close = ")";
  if (specific) {
    const size_t at = expr.find("{rest}");
    open = expr.substr(0, at);
    close = at == std::string::npos ? std::string() : expr.substr(at + 6);
  }
  m.edit = TextEdit{begin, opened, open + std::string(prefix)};
  m.closing_edit = TextEdit{end, end, close};
}

// `torch.device("cuda", i)`: the whole call becomes the rule's `indexed` template around the index
// argument ({index}), since the type and the index must change together (the CPU has no device with
// an index: torch.device('cpu', 0) is not the device of CPU tensors). The opening replaces the call
// up to the index, the closing the rest, so that edits inside the index still apply.
bool indexed_device_edit(const PythonAnalysis& a, const DeviceValue& d, const Rule& rule, PyMatch& m) {
  const uint32_t open = d.lit.first_sig - 1;
  const std::string& indexed = rule.rewrite_as<DeviceRewrite>().indexed;
  if (indexed.empty() || d.role != ValueRole::sink || d.specific || !d.lit.complete ||
      d.lit.first_sig == 0 || !a.view.is_op(open, "(") || callee_of(a, open).qualified != "torch.device")
    return false;
  const auto args = python::call_arguments(a.view, open);
  const python::CallArg* index = python::find_positional(args, 1);
  if (args.size() != 2 || args[0].first_sig != d.lit.first_sig || args[0].last_sig != d.lit.last_sig || !index)
    return false;
  uint32_t callee_first = open - 1;  // back over the dotted callee chain: torch . device
  while (callee_first >= 2 && a.view.is_op(callee_first - 1, ".") && a.sig_is_name(callee_first - 2)) callee_first -= 2;
  const size_t at = indexed.find("{index}");
  if (at == std::string::npos) return false;
  std::string before = indexed.substr(0, at), after = indexed.substr(at + 7);
  if (a.text().substr(a.sig_token(d.lit.first_sig).begin, d.lit.value_offset - a.sig_token(d.lit.first_sig).begin).find('"') !=
      std::string_view::npos) {
    std::replace(before.begin(), before.end(), '\'', '"');
    std::replace(after.begin(), after.end(), '\'', '"');
  }
  const auto close = static_cast<uint32_t>(a.view.match[open]);
  m.edit = TextEdit{a.sig_token(callee_first).begin, a.sig_token(index->first_sig).begin, before};
  m.closing_edit = TextEdit{a.sig_token(index->last_sig).end, a.sig_token(close).end, after};
  return true;
}

// A backend per device ("cpu:gloo,cuda:nccl") rewritten item by item with the plain rewrites of the
// device-string and backend-string rules ("cuda" -> "npu", "nccl" -> "hccl"): the devices and their
// backends change together. A target whose rules write expressions instead has no such string.
bool composite_edit(const DeviceValue& d, const DeviceRules& r, PyMatch& m) {
  const Rule* device = r.rewrite[0];
  const Rule* backend = r.rewrite[1];
  const auto* dev_w = device && device->fix == FixKind::automatic ? std::get_if<NameRewrite>(&device->rewrite_params) : nullptr;
  const auto* be_w = backend && backend->fix == FixKind::automatic ? std::get_if<NameRewrite>(&backend->rewrite_params) : nullptr;
  if (!dev_w || !be_w) return false;
  std::string value;
  for (const auto& [dev, be] : composite_backend_items(d.lit.value)) {
    if (!value.empty()) value += ',';
    value.append(dev == dev_w->from ? std::string_view(dev_w->to) : dev).append(":");
    value.append(be == be_w->from ? std::string_view(be_w->to) : be);
  }
  m.edit = TextEdit{static_cast<uint32_t>(d.lit.value_offset), static_cast<uint32_t>(d.lit.value_offset + d.lit.value.size()), value};
  return true;
}

std::string lines_text(const std::vector<uint32_t>& lines) {
  std::string s;
  for (size_t i = 0; i < lines.size() && i < 3; ++i) s += (i ? ", " : "") + std::to_string(lines[i]);
  if (lines.size() > 3) s += ", ...";
  return s;
}

}  // namespace

DeviceStringMatch DeviceStringMatch::parse(const MatchFields& m) { return {m.text("position")}; }

BackendStringMatch BackendStringMatch::parse(const MatchFields& m) { return {m.text("position")}; }

void DeviceStringMatch::match(const MatchContext& c, std::vector<PyMatch>& out) {
  const PythonAnalysis& a = c.analysis;
  const TreeContext* tree = c.tree;
  DeviceRules r(c.rules);
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
        } else if (m.rule->fix == FixKind::automatic && d.composite) {
          if (!composite_edit(d, r, m)) {
            m.blocked = true;
            m.message = "a backend per device: write each device's backend for this target by hand (the backend of the "
                        "accelerator's device type is torch.distributed.get_default_backend_for_device(device_type))";
          }
        } else if (m.rule->fix == FixKind::automatic && m.rule->rewrite == RewriteKind::device_expression) {
          if (d.kind == ValueKind::device && indexed_device_edit(a, d, *m.rule, m)) break;
          expression_edit(a, d, *m.rule, d.kind == ValueKind::device ? kCudaDevice : kNccl, m);
        } else if (m.rule->fix == FixKind::automatic) {
          const auto& w = m.rule->rewrite_as<NameRewrite>();
          m.edit = replace_in_value(d.lit, w.from, w.to);
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

void DeviceStringMatch::add_needles(const RuleCatalog& rules, PythonNeedles& needles) {
  if (rules.of_kind<DeviceStringMatch>().empty()) return;
  needles.add_string_value(kCudaDevice);
  needles.add_string_prefix(kCudaDevicePrefix);
}

void BackendStringMatch::add_needles(const RuleCatalog& rules, PythonNeedles& needles) {
  if (rules.of_kind<BackendStringMatch>().empty()) return;
  needles.add_string_value(kNccl);
  needles.add_string_value(kNcclUpper);
  // A backend per device naming CUDA or NCCL (device_values.cpp, composite_backend_items) starts with
  // one of its devices: "cuda:" or "cpu:"; one that starts with "npu:"
  // names an Ascend backend first and CUDA later ("npu:hccl,cuda:nccl"), which needs this too.
  needles.add_string_prefix(kCudaDevicePrefix);
  needles.add_string_prefix(kCpuDevicePrefix);
  needles.add_string_prefix("npu:");
}

}  // namespace banjia::rules
