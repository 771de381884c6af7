// Check 2 of rewrite_safety.h: calls whose NPU counterpart returns something else. torch_npu's
// get_device_capability() returns None unless TORCH_NPU_DEVICE_CAPABILITY is set, and its
// get_device_properties() result lacks fields CUDA code reads (major, minor, multi_processor_count
// in older releases; unset in newer ones). Where the result is compared, unpacked, indexed or read
// for such a field, the rewrite would fail (TypeError at import) or decide wrongly on an NPU.
#include <algorithm>
#include <unordered_map>

#include "rules/core/catalog.h"
#include "rules/kinds/qualified.h"
#include "rules/safety/rewrite_safety_parts.h"

namespace banjia::rules::safety {

namespace {

using python::Part;
using python::SigRange;
using python::SlotKind;

enum class UseKind { message, discarded, field, indexed, compared, unpacked, truth_test, called, passed_on };

struct ResultUse {
  UseKind kind = UseKind::passed_on;
  std::string field;
  uint32_t line = 0;
};

bool is_message_callee(std::string_view last) {
  static constexpr std::string_view kMessages[] = {"print", "debug", "info", "warning", "warn", "error", "critical",
                                                   "exception", "log", "write", "str", "repr", "format"};
  return std::find(std::begin(kMessages), std::end(kMessages), last) != std::end(kMessages);
}

// Whether sig index si lies inside an f-string (a replacement field of one).
bool in_fstring(const PythonAnalysis& a, uint32_t si) {
  const auto& starts = a.view.string_starts;
  auto it = std::upper_bound(starts.begin(), starts.end(), si);
  for (int n = 0; it != starts.begin() && n < 8; ++n) {
    const uint32_t s = *--it;
    if (a.sig_token(s).kind == python::TokenKind::FStringStart && a.view.match[s] > static_cast<int32_t>(si)) return true;
  }
  return false;
}

bool has_top_level_comma(const PythonAnalysis& a, SigRange r) {
  for (uint32_t i = r.first; i <= r.last; ++i) {
    if ((a.view.op1[i] == '(' || a.view.op1[i] == '[') && a.view.match[i] > static_cast<int32_t>(i) &&
        !(i == r.first && static_cast<uint32_t>(a.view.match[i]) == r.last))
      i = static_cast<uint32_t>(a.view.match[i]);
    else if (a.view.op1[i] == ',') return true;
  }
  // `(a, b) = ...` / `[a, b] = ...`: the whole target is one bracketed group holding a comma.
  if (r.first < r.last && (a.view.op1[r.first] == '(' || a.view.op1[r.first] == '['))
    return has_top_level_comma(a, {r.first + 1, r.last - 1});
  return false;
}

// How the value of `e` is used where it stands. `target` receives the name it is assigned to.
ResultUse classify(const PythonAnalysis& a, SigRange e, std::string& target) {
  const auto& v = a.view;
  ResultUse u;
  u.line = a.sig_token(e.first).line;
  const uint32_t after = e.last + 1;
  if (a.sig_is_op(after, ".") && a.sig_is_name(after + 1)) {
    u.kind = UseKind::field;
    u.field = std::string(a.sig_text(after + 1));
    return u;
  }
  if (a.sig_is_op(after, "[")) return u.kind = UseKind::indexed, u;
  if (a.sig_is_op(after, "(")) return u.kind = UseKind::called, u;
  if (in_fstring(a, e.first)) return u.kind = UseKind::message, u;
  const python::Slot slot = python::slot_of(v, e);
  for (const auto& step : python::locate(v, slot.range, e)) {
    if (step.part == Part::compared) return u.kind = UseKind::compared, u;
    if (step.part == Part::boolean_operand || step.part == Part::condition_test) return u.kind = UseKind::truth_test, u;
    if (step.part == Part::other) return u;
  }
  switch (slot.kind) {
    case SlotKind::call_argument:
      if (is_message_callee(callee_of(a, slot.open_sig).last)) u.kind = UseKind::message;
      return u;
    case SlotKind::statement: return u.kind = UseKind::discarded, u;
    case SlotKind::header: return u.kind = UseKind::truth_test, u;
    case SlotKind::assignment_value:
      if (slot.targets.size() == 1 && has_top_level_comma(a, slot.targets[0])) return u.kind = UseKind::unpacked, u;
      if (slot.targets.size() == 1) target = std::string(python::chain_last_name(v, slot.targets[0]));
      u.kind = target.empty() ? UseKind::passed_on : UseKind::discarded;
      return u;
    default: return u;
  }
}

// Where each name occurs (sig indices, in order), built once per file and only when a result is stored.
class NameIndex {
 public:
  explicit NameIndex(const PythonAnalysis& a) : a_(a) {}
  const std::vector<uint32_t>& occurrences(std::string_view name) {
    if (by_name_.empty())
      for (uint32_t si = 0; si < a_.view.sig.size(); ++si)
        if (a_.sig_is_name(si)) by_name_[a_.sig_text(si)].push_back(si);
    static const std::vector<uint32_t> none;
    auto it = by_name_.find(name);
    return it == by_name_.end() ? none : it->second;
  }

 private:
  const PythonAnalysis& a_;
  std::unordered_map<std::string_view, std::vector<uint32_t>> by_name_;
};

// The reads of a name after sig index `after_sig`, up to where it is assigned again: each occurrence
// (a Name, or the last name of a chain such as self.cap) classified where it stands.
void uses_of_name(const PythonAnalysis& a, NameIndex& names, std::string_view name, uint32_t after_sig,
                  std::vector<ResultUse>& out) {
  const auto& at = names.occurrences(name);
  for (auto it = std::upper_bound(at.begin(), at.end(), after_sig); it != at.end(); ++it) {
    const uint32_t si = *it;
    if (a.sig_is_op(si + 1, "=")) break;  // assigned again: later reads see another value
    uint32_t first = si;
    while (first >= 2 && a.sig_is_op(first - 1, ".") && a.sig_is_name(first - 2)) first -= 2;
    std::string ignored;
    out.push_back(classify(a, {first, si}, ignored));
  }
}

std::vector<ResultUse> result_uses(const PythonAnalysis& a, NameIndex& names, SigRange call) {
  std::string target;
  std::vector<ResultUse> uses{classify(a, call, target)};
  if (!target.empty()) {
    uses.clear();
    uses_of_name(a, names, target, a.view.statements[statement_of(a, call.first)].last_sig, uses);
  }
  return uses;
}

std::string describe(const ResultUse& u) {
  switch (u.kind) {
    case UseKind::field: return "its field `." + u.field + "` is read";
    case UseKind::indexed: return "it is indexed";
    case UseKind::compared: return "it is compared";
    case UseKind::unpacked: return "it is unpacked";
    case UseKind::truth_test: return "it is tested for truth";
    case UseKind::called: return "it is called";
    default: return "it is passed on where banjia cannot follow it";
  }
}

// The first use that does not hold for the NPU result, if any.
const ResultUse* first_unsafe(const std::vector<ResultUse>& uses, const QualifiedMatch& q) {
  for (const auto& u : uses) {
    if (u.kind == UseKind::message || u.kind == UseKind::discarded) continue;
    if (!q.returns_none && u.kind == UseKind::field &&
        std::find(q.result_fields.begin(), q.result_fields.end(), u.field) != q.result_fields.end())
      continue;
    return &u;
  }
  return nullptr;
}

}  // namespace

void block_unsafe_results(const PythonAnalysis& a, Blocker& blocker) {
  std::vector<PyMatch>& matches = blocker.matches();
  NameIndex names(a);
  for (size_t i = 0; i < matches.size(); ++i) {
    const PyMatch& m = matches[i];
    if (m.blocked || m.rule->fix != FixKind::automatic || !m.rule->match.is<QualifiedMatch>()) continue;
    const auto& q = m.rule->params<QualifiedMatch>();
    if (!q.returns_none && q.result_fields.empty()) continue;
    const uint32_t first = sig_of_token(a, m.first_tok);
    const python::DottedRef* ref = a.ref_ending_at(sig_of_token(a, m.last_tok));
    if (!ref || ref->first_sig != first) continue;  // an import: its uses decide
    std::vector<ResultUse> uses;
    if (ref->is_call && a.view.match[ref->call_open_sig] > 0)
      uses = result_uses(a, names, {ref->first_sig, static_cast<uint32_t>(a.view.match[ref->call_open_sig])});
    else
      uses.push_back({UseKind::passed_on, {}, a.sig_token(first).line});  // the function itself is passed on
    const ResultUse* bad = first_unsafe(uses, q);
    if (!bad) continue;
    const std::string why = (m.rule->caution.empty() ? m.rule->message : m.rule->caution) + "; here " + describe(*bad) +
                            " (line " + std::to_string(bad->line) +
                            "), which fails or decides wrongly on an NPU: not rewritten, decide by hand what it means there";
    blocker.block(i, why);
  }
}

}  // namespace banjia::rules::safety
