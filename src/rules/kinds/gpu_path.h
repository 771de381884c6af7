// Match kind "gpu-path": the GPU branches of a file that already branches on the NPU. Found by the
// rewrite-safety check that keeps those branches as they are (safety/rewrite_safety_gpu_paths.cpp), which needs the
// matches of every other kind; so the kind has no matcher of its own, and no needles: a file with
// nothing CUDA-specific has no GPU branch to keep.
#pragma once
#include "rules/core/kind.h"

namespace banjia::rules {

struct GpuPathMatch {
  static constexpr std::string_view kName = "gpu-path";
  static GpuPathMatch parse(const MatchFields&) { return {}; }
  static void add_needles(const RuleCatalog&, PythonNeedles&) {}
};

}  // namespace banjia::rules
