// Pairs the entries of two dumps and scores every pair (compare_result.h: the result all output
// formats render), then lets the noise model decide each numeric entry's status.
#pragma once
#include "compare/analysis/compare_result.h"
#include "compare/model/dump_model.h"

namespace banjia::compare {

struct CompareOptions {
  unsigned threads = 0;  // 0 = all cores
};

CompareResult compare_dumps(const Dump& a, const Dump& b, const CompareOptions& options);

}  // namespace banjia::compare
