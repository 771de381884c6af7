// The rewrite kinds of the rule catalogue: how an automatic rule edits code, as data/rules names it
// (`rewrite.kind`), and the params each reads from its [rewrite] table. One entry per kind in
// rewrite_kinds.cpp; the edits are made by the kind units that match the rule (kinds/) and, for the
// edits several kinds share, by the units of rewrites/.
#pragma once
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace banjia::rules {

struct TomlTable;  // toml_table.h

enum class RewriteKind {
  none,
  rename_attribute,   // `.cuda(` -> `.npu(`: replace the attribute name token
  replace_module,     // torch.cuda.X -> torch.npu.X: replace the `cuda` component (or the import)
  rename_last,        // dist.is_nccl_available -> dist.is_hccl_available
  replace_in_string,  // "cuda:0" -> "npu:0" inside the literal
  rename_env,         // "CUDA_VISIBLE_DEVICES" -> "ASCEND_RT_VISIBLE_DEVICES" (table in data/env)
  rename_call,        // torch.cuda.synchronize -> torch.accelerator.synchronize, per name (`renames`); a
                      // `to` with "(...)" is a call template: torch.amp.GradScaler({device_type}, ...)
  device_expression,  // "cuda:0" -> (<value> + ':0'), compared: <compare>; the literal becomes an expression
  method_to,          // `.cuda(...)` -> `.to(<value>, ...)`; an index argument i -> `.to(<indexed>)`
  device_from_index,  // an index `rank` where a device goes -> <value> with {index} = rank
  redirect_import,    // `from flash_attn import f` -> `from <to> import f`: a shim module migrate writes beside the file
};

// The params of the rewrite kinds, one struct per group of kinds that read the same fields.
// rename_attribute, replace_module, rename_last, replace_in_string, rename_env: what is replaced, and by
// what; redirect_import: `to`, the shim module (data/shims/<to>.py).
struct NameRewrite {
  std::string from, to;
  bool operator==(const NameRewrite&) const = default;
};
// rename_call: per qualified name, the new name or a call template.
struct CallRewrite {
  std::vector<std::pair<std::string, std::string>> renames;
  bool positional_only = false;  // the new functions take positional arguments only
  // Per qualified name: the original's parameters in position order, so that arguments passed by
  // position can be passed by keyword to a new function that orders its parameters differently.
  std::vector<std::pair<std::string, std::vector<std::string>>> positional;
};
// device_expression, method_to, device_from_index: the expressions a device value becomes.
struct DeviceRewrite {
  std::string value;     // what a value (or `.cuda()`) becomes; device_from_index: with {index}
  std::string compare;   // device_expression: what a compared value becomes
  std::string specific;  // device_expression: what a value naming one device becomes ({rest}: after "cuda")
  std::string indexed;   // method_to: `.cuda(i)`; device_expression: `torch.device("cuda", i)` ({index})
  std::string ids;       // device_from_index: DistributedDataParallel's device_ids/output_device ({ids})
};
using RewriteParams = std::variant<std::monostate, NameRewrite, CallRewrite, DeviceRewrite>;

// One rewrite kind: its name in data/rules, and the parser of its params from the [rewrite] table
// (throws InputError(where, ...) on a missing or malformed field).
struct RewriteKindEntry {
  std::string_view name;
  RewriteKind kind;
  RewriteParams (*parse)(const TomlTable& rewrite, std::string_view name, const std::string& where);
};
std::span<const RewriteKindEntry> rewrite_kinds();
const RewriteKindEntry* find_rewrite_kind(std::string_view name);
std::string_view to_string(RewriteKind k);  // as data/rules spells it; "" for none

}  // namespace banjia::rules
