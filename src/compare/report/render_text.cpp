// Human-readable report: counts, where things first go wrong, the worst entries, what was unmatched.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/safe_paths.h"
#include "compare/report/render.h"

namespace banjia::compare {

namespace {

std::string g(double v) { return std::isnan(v) ? "nan" : fmt::format("{:.4g}", v); }

// Severity first (error, fail, warn, pass), then how far beyond its noise floor.
double badness(const EntryResult& e) {
  double rank = e.status == Status::kError ? 4 : e.status == Status::kFail ? 3 : e.status == Status::kWarn ? 2 : 1;
  double err = e.noise.assessed && std::isfinite(e.noise.ratio) ? e.noise.ratio
               : e.metrics && std::isfinite(e.metrics->rel_l2_err) ? e.metrics->rel_l2_err : 0;
  return rank * 1e6 + std::min(err, 1e5);
}

std::string paint(const std::string& s, Status st, bool color) {
  if (!color) return s;
  const char* code = st == Status::kPass ? "32" : st == Status::kWarn ? "33" : "31";
  return fmt::format("\x1b[{}m{}\x1b[0m", code, s);
}

}  // namespace

std::string render_dump_text(const Dump& a, const Dump& b, const CompareResult& r, size_t worst_n, bool color) {
  std::string out;
  out += fmt::format("A: {} ({}, {}, {} entries)\nB: {} ({}, {}, {} entries)  [reference]\n", printable(a.path), a.format,
                     a.task, a.entries.size(), printable(b.path), b.format, b.task, b.entries.size());
  out += fmt::format("compared {}: {} pass, {} warn, {} fail, {} error, {} skipped; unmatched: {} in A, {} in B\n",
                     r.entries.size(), r.count(Status::kPass), r.count(Status::kWarn), r.count(Status::kFail),
                     r.count(Status::kError), r.count(Status::kSkipped), r.unmatched_a.size(), r.unmatched_b.size());
  auto where = [&](const std::optional<size_t>& i) {
    const EntryResult& e = r.entries[*i];
    return fmt::format("{} ({})", e.a->key, display_module(*e.a));
  };
  if (r.suspect) {
    const NoiseAssessment& n = r.entries[*r.suspect].noise;
    out += fmt::format("suspect: {} [{}] error {} is {:.1f}x its noise floor {} ({} {}){}\n", where(r.suspect),
                       phase_name(n.phase), g(n.error), n.ratio, g(n.floor),
                       n.own_inputs ? "its own output gradient and input's error" : "inputs' error", g(n.input_error),
                       n.history_jump ? fmt::format("; its role's largest ratio before it: {:.2g}", n.history_ratio)
                                      : "");
  } else {
    size_t structural = 0;
    for (const EntryResult& e : r.entries) structural += e.status == Status::kFail && !e.noise.assessed;
    out += fmt::format("suspect: none (no module's error exceeds its noise floor by more than {:g}x, or exceeds it "
                       "and {:g}x its role's earlier ratio){}\n",
                       r.clear_factor, r.history_factor,
                       structural ? fmt::format("; {} {} on nan/inf positions or shapes instead", structural,
                                                structural == 1 ? "entry fails" : "entries fail")
                                  : "");
  }
  if (!r.gradient_ranking.empty()) {
    out += "parameter gradients beyond their noise floor:";
    for (size_t k = 0; k < std::min<size_t>(3, r.gradient_ranking.size()); ++k) {
      const EntryResult& e = r.entries[r.gradient_ranking[k]];
      out += fmt::format(" {} {:.1f}x;", e.a->key, e.noise.ratio);
    }
    if (r.gradient_ranking.size() > 3) out += fmt::format(" {} more", r.gradient_ranking.size() - 3);
    out += "\n";
  }
  if (r.first_divergence) {
    const EntryResult& e = r.entries[*r.first_divergence];
    out += fmt::format("first divergence: {} [{}] {}\n", where(r.first_divergence),
                       paint(std::string(status_name(e.status)), e.status, color), e.message);
  } else if (size_t errors = r.count(Status::kError); errors > 0) {
    out += fmt::format("first divergence: none found, but {} {} could not be compared (status error)\n", errors,
                       errors == 1 ? "entry" : "entries");
  } else {
    out += "first divergence: none\n";
  }
  auto nonfinite = [&](const char* side, const std::optional<size_t>& i, size_t masks, bool side_a) {
    std::string skipped = masks ? fmt::format("{} mask {} (-inf or the dtype's lowest value by construction) passed over",
                                              masks, masks == 1 ? "entry" : "entries")
                                : "";
    if (i) {
      const EntryResult& e = r.entries[*i];
      out += fmt::format("first nan/inf in {}: {} ({} non-finite values){}\n", side, where(i),
                         side_a ? e.nonfinite_a : e.nonfinite_b, skipped.empty() ? "" : "; " + skipped);
    } else if (masks) {
      out += fmt::format("first nan/inf in {}: none outside masks; {}\n", side, skipped);
    }
  };
  nonfinite("A", r.first_nonfinite_a, r.masks_skipped_a, true);
  nonfinite("B", r.first_nonfinite_b, r.masks_skipped_b, false);
  if (r.first_ref_beyond_fp16)
    out += fmt::format("reference leaves fp16's range (|x| > 65504, would overflow in fp16) first at: {} ({} values)\n",
                       where(r.first_ref_beyond_fp16), r.entries[*r.first_ref_beyond_fp16].ref_beyond_fp16);
  if (r.growth) {
    auto at = [&](size_t i) { return fmt::format("{} at {}", g(r.entries[i].metrics->rel_l2_err), r.entries[i].a->key); };
    out += fmt::format("error growth (relative L2): first {}; peak {}; last {}\n", at(r.growth->first_nonzero),
                       at(r.growth->peak), at(r.growth->last));
  }
  if (r.largest_jump) {
    const EntryResult& e = r.entries[r.largest_jump->index];
    out += fmt::format("largest error jump: {}: relative L2 error {} = {:.1f}x the largest before it ({})\n",
                       where(std::optional<size_t>(r.largest_jump->index)), g(e.metrics->rel_l2_err),
                       r.largest_jump->factor, g(r.largest_jump->baseline));
  } else if (r.growth) {
    out += fmt::format("largest error jump: none above {:g}x (the error first appears at {})\n", r.jump_min,
                       r.entries[r.growth->first_nonzero].a->key);
  }
  std::vector<size_t> order(r.entries.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return badness(r.entries[x]) > badness(r.entries[y]); });
  if (worst_n > 0 && !order.empty()) {
    out += fmt::format("\nworst {} entries:\n", std::min(worst_n, order.size()));
    out += fmt::format("  {:<6} {:<44} {:>10} {:>10} {:>10} {:>10}  {}\n", "status", "key", "cosine", "max_abs",
                       "max_rel", "rel_l2", "message");
    for (size_t k = 0; k < std::min(worst_n, order.size()); ++k) {
      const EntryResult& e = r.entries[order[k]];
      const PairMetrics* m = e.metrics ? &*e.metrics : nullptr;
      std::string st = fmt::format("{:<6}", status_name(e.status));
      out += fmt::format("  {} {:<44} {:>10} {:>10} {:>10} {:>10}  {}\n", paint(st, e.status, color), e.a->key,
                         m ? (std::isnan(m->cosine) ? std::string("nan") : fmt::format("{:.6f}", m->cosine)) : "-", m ? g(m->max_abs_err) : "-", m ? g(m->max_rel_err) : "-",
                         m ? g(m->rel_l2_err) : "-", e.message);
    }
  }
  auto list = [&](const char* side, const std::vector<const DumpEntry*>& v) {
    if (v.empty()) return;
    out += fmt::format("\nunmatched in {} ({}):\n", side, v.size());
    for (const DumpEntry* e : v) out += fmt::format("  {} {}\n", e->key, shape_string(e->shape));
  };
  list("A", r.unmatched_a);
  list("B", r.unmatched_b);
  return out;
}

}  // namespace banjia::compare
