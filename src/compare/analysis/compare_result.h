// The result of comparing two dumps: every entry's pairing, metrics, noise assessment and status, and
// where the run diverges. compare_dumps (comparison.h) makes it; every output format renders it.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compare/analysis/metrics.h"
#include "compare/analysis/noise_assessment.h"
#include "compare/analysis/verdict.h"
#include "compare/model/dump_model.h"

namespace banjia::compare {

// kSkipped: nothing to compare on either side (empty tensors): reported, never a failure.
enum class Status { kPass, kSkipped, kWarn, kFail, kError };
std::string_view status_name(Status s);

struct EntryResult {
  const DumpEntry* a = nullptr;
  const DumpEntry* b = nullptr;
  bool fuzzy = false;       // matched by (name without call count, shape), not by key
  std::string mode;         // "tensor" or "statistics"
  Status status = Status::kError;
  std::string message;      // why (msprobe Err_message wording where one exists)
  std::string dtype_a, dtype_b;
  std::vector<int64_t> shape_a, shape_b;
  std::optional<PairMetrics> metrics;  // tensor mode
  SummaryStats stats_a, stats_b;       // statistics mode (or derived from tensors)
  StatsDiff stats_diff;
  Tolerance tol;
  std::string msprobe_result;  // "Yes"/"No"/"Unmatched" (tensor) or "Warning"/"" (statistics)
  bool dtype_pass = false;     // torch.testing-style: no element outside atol + rtol*|b|
  int64_t nonfinite_a = 0, nonfinite_b = 0;
  int64_t ref_beyond_fp16 = 0;  // floating-point reference values with |x| > 65504
  bool numeric = false;         // scored by its numbers: the noise model decides its status
  bool mask_or_index = false;   // see is_mask_or_index
  NoiseAssessment noise;
};

struct Located {
  size_t index;  // into CompareResult::entries
};

struct ErrorJump {
  size_t index;
  double factor;    // rel_l2_err / baseline
  double baseline;  // largest rel_l2_err of the entries before it
};

// How the scale-free error (rel_l2_err) evolves in execution order: where it first becomes nonzero,
// where it peaks, and where it ends.
struct ErrorGrowth {
  size_t first_nonzero, peak, last;
};

struct CompareResult {
  std::vector<EntryResult> entries;  // in A's execution order
  std::vector<const DumpEntry*> unmatched_a, unmatched_b;
  std::optional<size_t> first_divergence, first_nonfinite_a, first_nonfinite_b, first_ref_beyond_fp16;
  size_t masks_skipped_a = 0, masks_skipped_b = 0;  // non-finite masks passed over before first_nonfinite_*
  std::optional<ErrorJump> largest_jump;
  std::optional<ErrorGrowth> growth;
  std::optional<size_t> suspect;        // first forward (else backward) entry beyond its floor by a clear factor
  std::vector<size_t> gradient_ranking;  // parameter gradients beyond their floor, worst first
  double clear_factor = 0, history_factor = 0, jump_min = 0;
  size_t count(Status s) const;
};

}  // namespace banjia::compare
