// `scan` and `migrate` for configuration files (YAML, JSON, TOML): the rules of kind `config-value`
// matched on the file's scalars (config_document.h). A value is rewritten only under a key that says
// what it is (the device and backend roles); every other CUDA-specific value is reported with its
// key path.
//
// Roles (ConfigValueMatch::role):
//   device     "cuda", "cuda:N" under one of `keys` (device, device_type)
//   backend    "nccl", or a backend per device naming CUDA ("cpu:gloo,cuda:nccl"), under one of `keys`
//   env        a CUDA/NCCL environment variable set under one of `keys` (env, environment, ...): as a
//              key (`CUDA_VISIBLE_DEVICES: "0"`) or as a `name:` entry (`- name: CUDA_VISIBLE_DEVICES`)
//   fp8        an FP8 setting: a key naming fp8 set to anything but off, or a value "fp8"
//   attention  one of the rule's `values` ("flash_attention_2"): an attention implementation name
//   other      a CUDA device or NCCL backend under any other key
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostic.h"
#include "common/line_index.h"
#include "rules/core/catalog.h"
#include "rules/core/match.h"
#include "rules/sources/config_document.h"

namespace banjia::rules {

struct ConfigMatch {
  const Rule* rule = nullptr;
  ByteRange at;                         // what the finding points at
  std::string message;
  std::optional<TextEdit> edit;         // automatic rules, where the value is spelled verbatim
  std::optional<std::string> replacement;
  std::string source;                   // overrides the rule's when not empty
};

// Throws InputError for a file that does not parse.
std::vector<ConfigMatch> match_config(std::string_view text, ConfigFormat format, const std::string& display,
                                      const RuleCatalog& rules);

Finding finding_for_config_match(const ConfigMatch& m, const std::string& display, const LineIndex& lines);

// Appends the findings of one configuration file; a file over kMaxConfigBytes gets an input-skipped
// finding, one that does not parse an input-error finding (through InputError).
void scan_config(std::string_view text, const std::string& display, const RuleCatalog& rules, std::vector<Finding>& out);

// The finding for a file scan does not read, with why (a configuration file over the size cap).
Finding skipped_file_finding(const std::string& file, const std::string& why);

}  // namespace banjia::rules
