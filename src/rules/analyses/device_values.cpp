#include "rules/analyses/device_values.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "python/literals.h"
#include "rules/analyses/local_functions.h"
#include "rules/analyses/name_words.h"

namespace banjia::rules {

using python::kNoIndex;
using python::Part;
using python::SigRange;
using python::Slot;
using python::SlotKind;
using python::TokenKind;

namespace {

bool has_word(std::string_view name, std::initializer_list<std::string_view> wanted) {
  for (const auto& w : name_words(name))
    for (auto x : wanted)
      if (w == x) return true;
  return false;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

struct Recognised {
  ValueKind kind;
  bool cuda;
  bool specific;
  bool composite = false;
};

// What the literal's value names, extending `expr` over a .format(...) call, a % operand or a +
// operand that completes it.
std::optional<Recognised> recognise(const PythonAnalysis& a, const Literal& l, SigRange& expr) {
  const auto& v = a.view;
  std::string_view s = l.value;
  uint32_t last = v.statements.empty() || v.stmt_of[l.last_sig] == kNoIndex ? l.last_sig
                                                                              : v.statements[v.stmt_of[l.last_sig]].last_sig;
  auto operand_after = [&](uint32_t op) { return op + 1 <= last ? python::primary_end(v, op + 1, last) : op; };
  if (const auto items = composite_backend_items(s); !items.empty() && l.complete) {
    const bool cuda = std::any_of(items.begin(), items.end(), [](const auto& i) { return i.first == "cuda" || i.second == "nccl"; });
    const bool npu = std::any_of(items.begin(), items.end(), [](const auto& i) { return i.first == "npu" || i.second == "hccl"; });
    if (cuda || npu) return Recognised{ValueKind::backend, cuda, false, true};
    return std::nullopt;
  }
  for (std::string_view dev : {std::string_view("cuda"), std::string_view("npu")}) {
    bool cuda = dev == "cuda";
    if (!s.starts_with(dev)) continue;
    std::string_view rest = s.substr(dev.size());
    if (rest.empty()) {
      if (!l.complete) return std::nullopt;
      return Recognised{ValueKind::device, cuda, false};
    }
    if (rest[0] != ':') return std::nullopt;
    rest.remove_prefix(1);
    if (!l.complete) return rest.empty() ? std::optional(Recognised{ValueKind::device, cuda, true}) : std::nullopt;  // f"cuda:{i}"
    if (all_digits(rest)) return Recognised{ValueKind::device, cuda, true};
    if ((rest == "{}" || rest == "{0}") && a.sig_is_op(l.last_sig + 1, ".") && a.sig_is(l.last_sig + 2, "format") &&
        a.sig_is_op(l.last_sig + 3, "(") && v.match[l.last_sig + 3] > 0) {
      expr.last = static_cast<uint32_t>(v.match[l.last_sig + 3]);
      return Recognised{ValueKind::device, cuda, true};
    }
    if ((rest == "%d" || rest == "%s" || rest == "%i") && a.sig_is_op(l.last_sig + 1, "%")) {
      expr.last = operand_after(l.last_sig + 1);
      return Recognised{ValueKind::device, cuda, true};
    }
    if (rest.empty() && a.sig_is_op(l.last_sig + 1, "+")) {
      expr.last = operand_after(l.last_sig + 1);
      return Recognised{ValueKind::device, cuda, true};
    }
    if (rest.empty()) return Recognised{ValueKind::device, cuda, false};  // device.startswith("cuda:")
    return std::nullopt;
  }
  if (!l.complete) return std::nullopt;
  if (s == "nccl" || s == "NCCL") return Recognised{ValueKind::backend, true, false};
  if (s == "hccl" || s == "HCCL") return Recognised{ValueKind::backend, false, false};
  return std::nullopt;
}

bool is_message_call(std::string_view last) {
  static constexpr std::array<std::string_view, 11> kMessages = {
      "print", "debug", "info", "warning", "warn", "error", "critical", "exception", "log", "fatal", "write"};
  return std::find(kMessages.begin(), kMessages.end(), last) != kMessages.end();
}

// The test of `X if C else Y` names CUDA, a GPU, NCCL or an availability check.
bool test_guards_device(const PythonAnalysis& a, SigRange test) {
  for (uint32_t i = test.first; i <= test.last; ++i) {
    if (!a.sig_is_name(i)) continue;
    std::string lower;
    for (char c : a.sig_text(i)) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    if (lower.find("cuda") != std::string::npos || lower.find("gpu") != std::string::npos ||
        lower.find("nccl") != std::string::npos || lower == "is_available")
      return true;
  }
  return false;
}

std::string unquoted(const PythonAnalysis& a, SigRange r) {
  if (r.first != r.last || a.sig_token(r.first).kind != TokenKind::String) return {};
  return python::simple_string_value(a.sig_text(r.first)).value_or(std::string());
}

// argparse's dest for add_argument('-d', '--device-type', ...): dest=, else the first long option.
std::string argparse_dest(const PythonAnalysis& a, const std::vector<python::CallArg>& args) {
  if (const auto* d = python::find_keyword(args, "dest")) return unquoted(a, {d->first_sig, d->last_sig});
  std::string first_short;
  for (const auto& arg : args) {
    if (arg.position < 0) continue;
    std::string opt = unquoted(a, {arg.first_sig, arg.last_sig});
    if (opt.starts_with("--")) {
      std::string dest = opt.substr(2);
      std::replace(dest.begin(), dest.end(), '-', '_');
      return dest;
    }
    if (opt.starts_with("-") && first_short.empty()) first_short = opt.substr(1);
    else if (!opt.starts_with("-") && !opt.empty()) return opt;  // a positional argument's name
  }
  return first_short;
}

bool is_device_first_callee(const Callee& c) {
  static constexpr std::array<std::string_view, 6> kDeviceFirst = {"torch.device", "torch.autocast", "torch.amp.autocast",
                                                                   "torch.amp.GradScaler", "torch.Generator", "torch.get_device_module"};
  for (auto q : kDeviceFirst)
    if (c.qualified == q) return true;
  // A device mesh's first parameter is its device type; torch exports the two from three modules.
  static constexpr std::array<std::string_view, 3> kMeshModules = {"torch.distributed.device_mesh.", "torch.distributed.",
                                                                   "torch.distributed.tensor."};
  for (auto m : kMeshModules)
    if (c.qualified.starts_with(m) && (c.qualified.substr(m.size()) == "init_device_mesh" || c.qualified.substr(m.size()) == "DeviceMesh"))
      return true;
  // A device module's functions take the device first (torch.cuda.get_device_properties("cuda:0")).
  for (std::string_view module : {"torch.cuda.", "torch.npu.", "torch.accelerator."})
    if (c.qualified.starts_with(module) && c.qualified.find('.', module.size()) == std::string_view::npos) return true;
  return c.is_method && (c.last == "to" || c.last == "device");
}

// The last name of the callee, through an alias the imports resolve (ipg = dist.init_process_group).
std::string_view callee_last(const Callee& c) {
  if (c.qualified.empty()) return c.last;
  size_t dot = c.qualified.rfind('.');
  return dot == std::string_view::npos ? c.qualified : c.qualified.substr(dot + 1);
}

std::string_view enclosing_function(const PythonAnalysis& a, uint32_t si) {
  const auto& v = a.view;
  uint32_t s = v.stmt_of[si];
  if (s == kNoIndex) return {};
  int depth = v.statements[s].indent_depth;
  for (int64_t k = static_cast<int64_t>(s) - 1; k >= 0; --k) {
    const auto& st = v.statements[static_cast<size_t>(k)];
    if (st.indent_depth >= depth) continue;
    depth = st.indent_depth;
    if (a.sig_is(st.first_sig, "def") && a.sig_is_name(st.first_sig + 1)) return a.sig_text(st.first_sig + 1);
    if (a.sig_is(st.first_sig, "async") && a.sig_is(st.first_sig + 1, "def")) return a.sig_text(st.first_sig + 2);
  }
  return {};
}

struct FileContext {
  const PythonAnalysis& a;
  LocalFunctions functions;
  const FlowSeeds* seeds;
};

// The role of `value` (whole) in the slot `slot`: sets role, key and table_open.
void role_in_slot(const FileContext& ctx, const Slot& slot, DeviceValue& d, int depth);

// `value` is an operand somewhere inside `slot`: follow the steps from the slot down to it.
void role_of_expression(const FileContext& ctx, SigRange e, DeviceValue& d, int depth) {
  const PythonAnalysis& a = ctx.a;
  Slot slot = python::slot_of(a.view, e);
  auto steps = python::locate(a.view, slot.range, e);
  if (steps.empty()) return;
  for (const auto& st : steps) {
    if ((st.part == Part::condition_then || st.part == Part::condition_else) && test_guards_device(a, st.other))
      d.guarded = true;
    if (st.part == Part::compared) {
      d.role = ValueRole::comparison;
      d.key = std::string(key_of(a, st.other));
      std::string_view last = python::chain_last_name(a.view, st.other);
      d.subject_is_type = last == "type" || (st.other.last >= 2 && a.sig_is(st.other.last, "type") && a.sig_is_op(st.other.last - 1, "."));
      return;
    }
    if (st.part == Part::other) return;  // part of a larger value ("cuda" + x, a call, ...)
  }
  role_in_slot(ctx, slot, d, depth);
}

void role_in_slot(const FileContext& ctx, const Slot& slot, DeviceValue& d, int depth) {
  const PythonAnalysis& a = ctx.a;
  const auto& v = a.view;
  switch (slot.kind) {
    case SlotKind::call_argument: {
      Callee c = callee_of(a, slot.open_sig);
      std::string_view last = callee_last(c);
      if (is_message_call(last)) {
        d.role = ValueRole::message;
        return;
      }
      std::string_view kw = slot.keyword;
      if (d.kind == ValueKind::device &&
          (kw == "device" || kw == "device_type" || kw == "map_location" || (slot.position == 0 && kw.empty() && is_device_first_callee(c)))) {
        d.role = ValueRole::sink;
        return;
      }
      if (d.kind == ValueKind::backend &&
          (kw == "backend" || (kw.empty() && slot.position == 0 && (last == "init_process_group" || last == "new_group")))) {
        d.role = ValueRole::sink;
        return;
      }
      if (c.is_method && (last == "startswith" || last == "endswith") && slot.position == 0 && slot.open_sig >= 3) {
        d.role = ValueRole::comparison;
        uint32_t recv_end = slot.open_sig - 3;  // the receiver ends before `.startswith`
        const auto& st = v.statements[v.stmt_of[slot.open_sig]];
        d.key = std::string(key_of(a, {python::primary_start(v, recv_end, st.first_sig), recv_end}));
        return;
      }
      auto args = python::call_arguments(v, slot.open_sig);
      if (last == "add_argument" && (kw == "default" || kw == "const" || kw == "choices")) {
        d.role = ValueRole::producer;
        d.key = argparse_dest(a, args);
        return;
      }
      if ((last == "getattr" && slot.position == 2) ||
          (kw.empty() && slot.position == 1 && (last == "get" || last == "getenv" || last == "setdefault" || last == "pop"))) {
        d.role = ValueRole::producer;
        const auto* name = python::find_positional(args, slot.position - 1);
        d.key = name ? unquoted(a, {name->first_sig, name->last_sig}) : std::string();
        return;
      }
      if (!kw.empty()) {
        d.role = ValueRole::producer;
        d.key = std::string(kw);
        return;
      }
      if (auto param = ctx.functions.parameter(c.last, slot.position, c.is_method); !param.empty()) {
        d.role = ValueRole::producer;  // f("cuda") where the file defines f(device)
        d.key = std::string(param);
        return;
      }
      if (c.qualified.empty() || slot.position < 0) return;
      d.call_target = std::string(c.qualified);  // f("cuda") where f is imported: the tree may know it
      d.call_position = slot.position;
      if (ctx.seeds) {
        auto it = ctx.seeds->call_parameters.find(d.call_target + "@" + std::to_string(slot.position));
        if (it != ctx.seeds->call_parameters.end()) {
          d.role = ValueRole::producer;
          d.key = it->second;
        }
      }
      return;
    }
    case SlotKind::parameter_default:
      d.role = ValueRole::producer;
      d.key = std::string(slot.keyword);
      return;
    case SlotKind::assignment_value:
      d.role = ValueRole::producer;
      d.module_level = v.stmt_of[slot.range.first] != kNoIndex && v.statements[v.stmt_of[slot.range.first]].indent_depth == 0;
      for (const auto& t : slot.targets) {
        // `cfg["device"] = x` names the key; otherwise the target chain's last name.
        if (t.last > t.first && a.sig_is_op(t.last, "]") && v.match[t.last] >= 0) {
          uint32_t open = static_cast<uint32_t>(v.match[t.last]);
          d.key = unquoted(a, {open + 1, t.last - 1});
        } else {
          d.key = std::string(python::chain_last_name(v, t));
        }
        if (!d.key.empty()) return;
      }
      return;
    case SlotKind::dict_value: {
      std::string key = unquoted(a, slot.key);
      SigRange probe = slot.key;
      if (a.sig_token(probe.first).kind == TokenKind::String) {
        if (auto lit = literal_at(a, probe.first); lit && recognise(a, *lit, probe)) {
          d.role = ValueRole::element;  // {"cuda": "nccl"}: a table keyed by device
          d.table_open = slot.open_sig;
          return;
        }
      }
      d.role = ValueRole::producer;
      d.key = key;
      return;
    }
    case SlotKind::element: {
      d.table_open = slot.open_sig;
      d.role = ValueRole::element;
      int32_t close = v.match[slot.open_sig];
      if (close <= static_cast<int32_t>(slot.open_sig) || depth > 4) return;
      // The table's own place decides: `x in ("cuda", "mps")`, choices=[...], DEVICES = [...].
      DeviceValue outer = d;
      outer.role = ValueRole::unknown;
      role_of_expression(ctx, {slot.open_sig, static_cast<uint32_t>(close)}, outer, depth + 1);
      if (outer.role == ValueRole::comparison || outer.role == ValueRole::producer || outer.role == ValueRole::sink ||
          outer.role == ValueRole::message) {
        d.role = outer.role;
        d.key = outer.key;
        d.subject_is_type = outer.subject_is_type;
      }
      return;
    }
    case SlotKind::return_value:
      d.role = ValueRole::producer;
      d.key = std::string(enclosing_function(a, slot.range.first));
      return;
    case SlotKind::statement:
      d.role = ValueRole::message;  // a docstring or a bare expression
      return;
    default:
      return;
  }
}

}  // namespace

bool names_a_device(std::string_view name) { return has_word(name, {"device", "devices", "dev", "devs", "accelerator"}); }
bool names_a_backend(std::string_view name) { return has_word(name, {"backend", "backends"}); }

std::string_view key_of(const PythonAnalysis& a, SigRange r) {
  const auto& v = a.view;
  if (r.last < r.first) return {};
  // str(x) -> x
  if (a.sig_is(r.first, "str") && a.sig_is_op(r.first + 1, "(") && v.match[r.first + 1] == static_cast<int32_t>(r.last))
    return key_of(a, {r.first + 2, r.last - 1});
  uint32_t i = r.first;
  if (!a.sig_is_name(i)) return {};
  std::string_view last = a.sig_text(i), before = {};
  while (i + 2 <= r.last && a.sig_is_op(i + 1, ".") && a.sig_is_name(i + 2)) {
    before = last;
    i += 2;
    last = a.sig_text(i);
  }
  // A method call at the end of the chain (device.split(':'), x.lower()) leaves its receiver's name.
  if (i + 1 <= r.last && a.sig_is_op(i + 1, "(") && !before.empty()) return before;
  return last;
}

namespace {
// The argument starting at sig index `first` of a call: up to the next top-level ',' or ')'.
SigRange argument_from(const python::ModuleView& v, uint32_t first) {
  uint32_t i = first;
  while (i + 1 < v.sig.size()) {
    uint32_t n = i + 1;
    if ((v.op1[n] == '(' || v.op1[n] == '[' || v.op1[n] == '{') && v.match[n] > static_cast<int32_t>(n)) {
      i = static_cast<uint32_t>(v.match[n]);
      continue;
    }
    if (v.op1[n] == ',' || v.op1[n] == ')' || v.op1[n] == ']' || v.op1[n] == '}' || v.stmt_of[n] != v.stmt_of[first]) break;
    i = n;
  }
  return {first, i};
}
}  // namespace

void for_each_device_argument(const PythonAnalysis& a, const std::function<void(SigRange)>& fn) {
  const auto& v = a.view;
  // Keyword arguments device=/device_type=/map_location= are chain heads followed by '='.
  for (uint32_t h : v.name_heads) {
    std::string_view n = v.text(h);
    if ((n != "device" && n != "device_type" && n != "map_location") || !v.is_op(h + 1, "=") || h == 0 ||
        !(v.is_op(h - 1, "(") || v.is_op(h - 1, ",")) || h + 2 >= v.sig.size())
      continue;
    fn(argument_from(v, h + 2));
  }
  // The first argument of .to(...), torch.device(...), torch.autocast(...), ...
  v.for_each_op1('(', [&](uint32_t open) {
    if (open == 0 || !a.sig_is_name(open - 1) || open + 1 >= v.sig.size() || v.is_op(open + 1, ")")) return;
    std::string_view last = v.text(open - 1);
    if (last != "to" && last != "device" && last != "autocast" && last != "GradScaler" && last != "Generator" &&
        last != "get_device_module" && last != "init_device_mesh" && last != "DeviceMesh")
      return;
    if (!is_device_first_callee(callee_of(a, open))) return;
    SigRange arg = argument_from(v, open + 1);
    if (!(arg.last + 1 < v.sig.size() && v.is_op(arg.last + 1, "=")) && !v.is_op(open + 2, "=")) fn(arg);
  });
}

std::vector<DeviceValue> find_device_values(const PythonAnalysis& a, const FlowSeeds* seeds) {
  std::vector<DeviceValue> out;
  std::optional<FileContext> ctx;
  for (uint32_t si : a.view.string_starts) {
    auto lit = literal_at(a, si);
    if (!lit) continue;
    SigRange expr{lit->first_sig, lit->last_sig};
    auto rec = recognise(a, *lit, expr);
    if (rec) {
      DeviceValue d;
      d.lit = *lit;
      d.kind = rec->kind;
      d.cuda = rec->cuda;
      d.specific = rec->specific;
      d.composite = rec->composite;
      d.expr = expr;
      d.line = a.sig_token(lit->first_sig).line;
      if (!ctx) ctx.emplace(FileContext{a, LocalFunctions(a), seeds});
      role_of_expression(*ctx, expr, d, 0);
      out.push_back(std::move(d));
    }
    si = lit->last_sig;
  }
  return out;
}

}  // namespace banjia::rules
