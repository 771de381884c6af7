// compare's noise model: for every numerically compared entry, the difference two runs that differ
// only in precision and reduction order should show (its floor), the error it does show, and the
// verdict that follows; then the suspect (the first forward module whose error grows beyond its
// floor by a clear factor) and the parameter gradients ranked by the same measure.
// The model and its parameters: data/compare/noise.toml; docs/compare.md explains it.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "compare/analysis/noise_assessment.h"
#include "compare/model/dump_model.h"

namespace banjia::compare {

struct CompareResult;

bool is_mask_or_index(const std::string& dtype, const SummaryStats& s);

// Decides the status of every entry scored numerically (EntryResult::numeric) and fills
// CompareResult::suspect and ::gradient_ranking. Entries must be in A's execution order.
void apply_noise_model(const Dump& a, const Dump& b, CompareResult& r);

}  // namespace banjia::compare
