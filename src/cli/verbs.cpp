// The verb table: which register function serves which `banjia VERB`. A new verb is one line here,
// its register function (cli/verbs_<verb>.cpp) and its module (docs/design/README.md lists the rest).
#include "cli/verbs.h"

#include <algorithm>
#include <string>

namespace banjia {

namespace {

constexpr Verb kVerbs[] = {
    {"scan", "Find every CUDA-specific use in a Python project and say how it migrates", register_scan},
    {"migrate", "Rewrite CUDA code for Ascend NPUs (torch_npu): minimal, format-preserving edits", register_migrate},
    {"env", "Check, explain, template and translate Ascend (torch_npu / CANN / HCCL) environment variables; check an installation",
     register_env},
    {"trace", "Analyse GPU (Kineto) and Ascend NPU (torch_npu) profiler traces", register_trace},
    {"compare",
     "Compare two tensor dumps (banjia capture dirs, msprobe dumps, .npy/.npz) entry by entry and find the first "
     "layer where they diverge. B is the reference (msprobe's \"bench\").",
     register_compare},
    {"bench", "Benchmark results: compare runs recorded with banjia.bench (or CSV)", register_bench},
};

void add_verb(CLI::App& app, const Verb& v, int& exit_code) {
  v.add(*app.add_subcommand(std::string(v.name), std::string(v.description)), exit_code);
}

}  // namespace

std::span<const Verb> verbs() { return kVerbs; }

void register_verbs(CLI::App& app, int argc, const char* const* argv, int& exit_code) {
  // `banjia VERB ...` registers only VERB: building every verb's options and help text would be most
  // of what banjia does before reading its input (a scan of one file). Anything else (`--help`, no
  // verb, a misspelt one) registers them all, so the listing and CLI11's messages list every verb.
  const auto named = argc > 1 ? std::ranges::find(kVerbs, std::string_view(argv[1]), &Verb::name) : std::end(kVerbs);
  if (named != std::end(kVerbs)) add_verb(app, *named, exit_code);
  else
    for (const auto& v : kVerbs) add_verb(app, v, exit_code);
}

}  // namespace banjia
