#include "rules/analyses/device_flow.h"

#include <array>
#include <unordered_map>

#include "python/literals.h"

namespace banjia::rules {

using python::kNoIndex;
using python::SigRange;

namespace {

using Names = std::unordered_set<std::string>;

size_t kind_index(ValueKind k) { return k == ValueKind::device ? 0 : 1; }

// `a = b` makes a and b names of the same value; `a = torch.device(...)` makes a hold a device.
struct Assignments {
  std::vector<std::pair<std::string, std::string>> same_value;
  Names device_objects;
};

std::string target_name(const PythonAnalysis& a, SigRange t) {
  const auto& v = a.view;
  if (t.last > t.first && a.sig_is_op(t.last, "]") && v.match[t.last] >= 0) {
    uint32_t open = static_cast<uint32_t>(v.match[t.last]);
    if (open + 1 == t.last - 1 && a.sig_token(open + 1).kind == python::TokenKind::String)
      return python::simple_string_value(a.sig_text(open + 1)).value_or(std::string());
    return {};
  }
  return std::string(python::chain_last_name(v, t));
}

Assignments assignments_of(const PythonAnalysis& a) {
  Assignments out;
  const auto& v = a.view;
  for (const auto& st : v.statements) {
    std::vector<uint32_t> eqs;
    for (uint32_t i = st.first_sig; i <= st.last_sig; ++i) {
      if ((v.op1[i] == '(' || v.op1[i] == '[' || v.op1[i] == '{') && v.match[i] > static_cast<int32_t>(i)) {
        i = static_cast<uint32_t>(v.match[i]);
        continue;
      }
      if (v.op1[i] == '=') eqs.push_back(i);
    }
    if (eqs.empty() || eqs.back() >= st.last_sig) continue;
    SigRange rhs{eqs.back() + 1, st.last_sig};
    std::string rhs_name;
    bool device_object = false;
    uint32_t end = python::primary_end(v, rhs.first, rhs.last);
    if (end == rhs.last) {
      if (!python::chain_last_name(v, rhs).empty()) rhs_name = std::string(key_of(a, rhs));
      if (a.sig_is_op(end, ")") && v.match[end] > 0) {
        Callee c = callee_of(a, static_cast<uint32_t>(v.match[end]));
        device_object = c.qualified == "torch.device";
      }
    }
    uint32_t from = st.first_sig;
    for (uint32_t eq : eqs) {
      if (eq > from) {
        std::string t = target_name(a, {from, eq - 1});
        if (!t.empty() && !rhs_name.empty()) out.same_value.emplace_back(t, rhs_name);
        if (!t.empty() && device_object) out.device_objects.insert(t);
      }
      from = eq + 1;
    }
  }
  return out;
}

bool names_kind(ValueKind k, std::string_view name) { return k == ValueKind::device ? names_a_device(name) : names_a_backend(name); }

// The names of a file that hold devices [0] and backends [1].
std::array<Names, 2> holding_names(const PythonAnalysis& a, const std::vector<DeviceValue>& values, const FlowSeeds* seeds) {
  std::array<Names, 2> held;
  for (const auto& d : values) {
    if (d.key.empty() || (d.role != ValueRole::producer && d.role != ValueRole::comparison)) continue;
    Names& k = held[kind_index(d.kind)];
    if (names_kind(d.kind, d.key)) k.insert(d.key);
    if (d.role == ValueRole::producer && (d.guarded || d.specific || !d.cuda)) k.insert(d.key);
  }
  for_each_device_argument(a, [&](SigRange arg) {
    if (!python::chain_last_name(a.view, arg).empty()) held[0].insert(std::string(key_of(a, arg)));
  });
  if (seeds) {
    held[0].insert(seeds->device_names.begin(), seeds->device_names.end());
    held[1].insert(seeds->backend_names.begin(), seeds->backend_names.end());
  }
  Assignments as = assignments_of(a);
  held[0].insert(as.device_objects.begin(), as.device_objects.end());
  for (auto& k : held) {
    for (bool grew = true; grew;) {
      grew = false;
      for (const auto& [x, y] : as.same_value) {
        bool hx = k.count(x) > 0, hy = k.count(y) > 0;
        if (hx != hy) {
          k.insert(hx ? y : x);
          grew = true;
        }
      }
    }
  }
  return held;
}

// The statement index of the `if` that starts the if/elif chain statement `s` is a header of, or `s`
// itself: two tests of one name in the same chain choose between the values they test for.
uint32_t chain_of(const PythonAnalysis& a, uint32_t s) {
  const auto& sts = a.view.statements;
  if (s == kNoIndex || !a.sig_is(sts[s].first_sig, "elif")) return s;
  int depth = sts[s].indent_depth;
  for (int64_t k = static_cast<int64_t>(s) - 1; k >= 0; --k) {
    const auto& st = sts[static_cast<size_t>(k)];
    if (st.indent_depth > depth) continue;
    if (st.indent_depth < depth) break;
    if (a.sig_is(st.first_sig, "if")) return static_cast<uint32_t>(k);
    if (!a.sig_is(st.first_sig, "elif")) break;
  }
  return s;
}

}  // namespace

DeviceNames device_names_of(const PythonAnalysis& a, const std::vector<DeviceValue>& values, const FlowSeeds* seeds) {
  auto held = holding_names(a, values, seeds);
  return {std::move(held[0]), std::move(held[1])};
}

std::vector<ValueDecision> decide_device_values(const PythonAnalysis& a, const std::vector<DeviceValue>& values,
                                                const FlowSeeds* seeds) {
  auto held = holding_names(a, values, seeds);
  // "kind name chain" of each test against an Ascend value, and the tables that hold one.
  auto test_id = [&](const DeviceValue& d) {
    return std::to_string(kind_index(d.kind)) + d.key + "@" + std::to_string(chain_of(a, a.view.stmt_of[d.lit.first_sig]));
  };
  std::unordered_set<std::string> tested_for_npu;
  std::unordered_set<uint32_t> tables_with_npu;
  for (const auto& d : values) {
    if (d.cuda) continue;
    if (d.role == ValueRole::comparison) tested_for_npu.insert(test_id(d));
    if (d.table_open != kNoIndex) tables_with_npu.insert(d.table_open);
  }
  std::vector<ValueDecision> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const DeviceValue& d = values[i];
    ValueAction& act = out[i].action;
    if (!d.cuda) continue;
    bool beside_npu = d.table_open != kNoIndex && tables_with_npu.count(d.table_open) > 0;
    const Names& k = held[kind_index(d.kind)];
    if (beside_npu && d.role != ValueRole::sink && d.role != ValueRole::message) {
      act = ValueAction::beside_npu;
      continue;
    }
    switch (d.role) {
      case ValueRole::message: act = ValueAction::ignore; break;
      case ValueRole::sink: act = ValueAction::rewrite; break;
      case ValueRole::producer:
        act = (d.guarded || d.specific || k.count(d.key)) ? ValueAction::rewrite : ValueAction::unresolved;
        break;
      case ValueRole::comparison:
        if (tested_for_npu.count(test_id(d))) act = ValueAction::beside_npu;
        else if (d.subject_is_type || k.count(d.key)) act = ValueAction::rewrite;
        else act = ValueAction::unresolved;
        break;
      case ValueRole::element:
      case ValueRole::unknown:
        act = beside_npu ? ValueAction::beside_npu : d.specific ? ValueAction::rewrite : ValueAction::unresolved;
        break;
    }
  }
  // The invariant: a rewritten comparison meets only rewritten values under its name.
  std::unordered_map<std::string, std::vector<uint32_t>> staying;  // kind+name -> lines of values that stay
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i].cuda && values[i].role == ValueRole::producer && out[i].action != ValueAction::rewrite)
      staying[std::to_string(kind_index(values[i].kind)) + values[i].key].push_back(values[i].line);
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].role != ValueRole::comparison || out[i].action != ValueAction::rewrite) continue;
    auto it = staying.find(std::to_string(kind_index(values[i].kind)) + values[i].key);
    if (it == staying.end()) continue;
    out[i].action = ValueAction::blocked;
    out[i].blocking_lines = it->second;
  }
  return out;
}

}  // namespace banjia::rules
