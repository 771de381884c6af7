// The checks every automatic rewrite passes before migrate may apply it. A matcher proposes an edit
// from the tokens it matched; whether the edit keeps the program's meaning can depend on the code
// around it, which no single matcher sees. match_python runs these on all matches of a file, so scan
// and migrate report the same decisions (docs/scan-migrate.md#rewrites-that-must-not-change-meaning):
//
//  1. GPU paths (rewrite_safety_gpu_paths.cpp): in a file that already branches on the NPU, the branches that test
//     for CUDA (and the `else` of an NPU test) are the GPU path. Their matches are dropped: rewriting
//     them breaks the GPU path and changes nothing on the NPU. One `gpu-path-kept` finding says so.
//  2. Results (rewrite_safety_result_uses.cpp): a call whose NPU counterpart returns something else (None for
//     get_device_capability, fewer fields for get_device_properties) stays where its result is
//     compared, unpacked, indexed or read for a field the NPU result lacks.
//  3. Checks (rewrite_safety_guards.cpp): a CUDA availability check or a comparison with "cuda" stays (a) where its
//     result is stored under a name that means an NVIDIA GPU, (b) where the code it selects uses an
//     NVIDIA-only feature (data/vendor/nvidia.toml), and (c) where the code it selects keeps a CUDA
//     use that is not rewritten: rewriting only the check would run that use on the NPU.
//
// A match that fails a check is `blocked` (reported as manual work, with the reason) and loses its
// edit; a blocked use whose edit lives in its import blocks that import's match too.
#pragma once
#include <vector>

#include "rules/core/match.h"

namespace banjia::rules {

void make_rewrites_safe(const PythonAnalysis& a, const RuleCatalog& rules, std::vector<PyMatch>& matches);

// Whether findings of rule `id` say which files already support the NPU (check 1): information for
// the summaries, not a CUDA use.
bool is_gpu_path_rule(std::string_view id);

}  // namespace banjia::rules
