// Device and backend values in one Python file: every string literal whose whole value names a CUDA
// device ("cuda", "cuda:0", "cuda:{}".format(i), "cuda:%d" % i, "cuda:" + s, f"cuda:{rank}") or the
// NCCL backend ("nccl", or per device: "cpu:gloo,cuda:nccl"), with the role it plays where it stands and the name its value is known by.
// The Ascend counterparts ("npu", "hccl") are collected too: code that already names them beside
// CUDA is device-agnostic there. device_flow.h decides from these what migrate may rewrite.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "python/expression.h"
#include "rules/analyses/python_analysis.h"
#include "rules/analyses/string_literal_site.h"

namespace banjia::rules {

enum class ValueKind { device, backend };

enum class ValueRole {
  sink,        // used as a device/backend right here: device=, .to(x), torch.device(x), backend=, ...
  producer,    // stored under a name (`key`): assignment, default, argparse default/choices, getattr/get default, ...
  comparison,  // compared with an expression whose name is `key`: ==, !=, in, .startswith(...)
  element,     // an element of a tuple/list/dict that is none of the above (a table)
  message,     // text of a message or a docstring: not a code value
  unknown,
};

struct DeviceValue {
  Literal lit;
  ValueKind kind = ValueKind::device;
  bool cuda = true;            // a CUDA/NCCL value; false: an Ascend one ("npu", "npu:0", "hccl")
  bool specific = false;       // names one device ("cuda:0", f"cuda:{i}", "cuda:" + s): a device whatever its role
  bool composite = false;      // a backend per device ("cpu:gloo,cuda:nccl"): kind is backend
  python::SigRange expr;       // the literal with its .format(...) call, % operand or + operand
  ValueRole role = ValueRole::unknown;
  std::string key;             // producer: the name stored under; comparison: the subject's name
  bool subject_is_type = false;  // comparison with `<x>.type` (torch.device.type)
  bool guarded = false;        // a branch of `X if <test naming cuda, gpu or is_available> else Y`
  uint32_t table_open = python::kNoIndex;  // element/comparison: the display it sits in, if any
  bool module_level = false;   // producer: a module-level assignment (a constant other modules may import)
  std::string call_target;     // passed positionally to a function known only by its import: its qualified name
  int call_position = -1;
  uint32_t line = 0;
};

// Names other modules of the tree know to hold devices or backends, and the parameter names of the
// imported functions this file passes values to ("pkg.utils.setup@0" -> "device").
struct FlowSeeds {
  std::unordered_set<std::string> device_names, backend_names;
  std::unordered_map<std::string, std::string> call_parameters;
  const std::unordered_set<std::string>& names(ValueKind k) const { return k == ValueKind::device ? device_names : backend_names; }
  std::unordered_set<std::string>& names(ValueKind k) { return k == ValueKind::device ? device_names : backend_names; }
};

// Seeds (optional): the parameter names of imported functions, learnt from the rest of the tree.
std::vector<DeviceValue> find_device_values(const PythonAnalysis& a, const FlowSeeds* seeds = nullptr);

// The items of a backend string that names a backend per device ("cpu:gloo,cuda:nccl", "cuda:nccl"):
// (device, backend) each, for the devices cpu, cuda and npu and the backends torch registers; empty
// for anything else. torch.distributed.Backend accepts this form wherever it takes a backend.
std::vector<std::pair<std::string_view, std::string_view>> composite_backend_items(std::string_view value);

// Whether a name says it holds a device (device, device_type, dev, accelerator, map_location, ...)
// or a process-group backend (backend, dist_backend, ...). Words are split at '_' and case changes.
bool names_a_device(std::string_view name);
bool names_a_backend(std::string_view name);

// Call arguments in device positions (device=, device_type=, map_location=, the first argument of
// .to(), torch.device(), torch.autocast(), ...): fn(argument range) for each. Also used to learn
// which names reach a device position.
void for_each_device_argument(const PythonAnalysis& a, const std::function<void(python::SigRange)>& fn);

// The name an expression is known by: the last name of its leading chain, looking through str(...)
// and method calls (`args.device` -> device, `str(x.device)` -> device, `device.split(':')[0]` ->
// device, `get_device()` -> get_device); "" when it has none.
std::string_view key_of(const PythonAnalysis& a, python::SigRange r);

}  // namespace banjia::rules
