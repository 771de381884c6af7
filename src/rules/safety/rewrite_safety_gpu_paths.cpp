// Check 1 of rewrite_safety.h: code that already supports the NPU keeps its CUDA branches. A file
// branches on the NPU when a test names it (`device.type == "npu"`, `is_torch_npu_available()`,
// `torch.npu.is_available()`, an `NPU` enum member, `is_vllm_ascend_available()`). There, an if/elif arm whose test is about CUDA,
// and the `else` of a chain that tests for the NPU first, is what runs on NVIDIA GPUs: rewriting it
// breaks that path and changes nothing on the NPU.
#include <algorithm>

#include "rules/core/catalog.h"
#include "rules/kinds/gpu_path.h"
#include "rules/analyses/name_words.h"
#include "rules/analyses/string_literal_site.h"
#include "rules/safety/rewrite_safety_parts.h"

namespace banjia::rules::safety {

namespace {

using python::SigRange;

bool has_word(std::string_view name, std::initializer_list<std::string_view> wanted) {
  for (const auto& w : name_words(name))
    if (std::find(wanted.begin(), wanted.end(), w) != wanted.end()) return true;
  return false;
}

bool npu_value(std::string_view v) { return v == "npu" || v.starts_with("npu:") || v == "hccl"; }
bool cuda_value(std::string_view v) { return v == "cuda" || v.starts_with("cuda:") || v == "nccl"; }

struct TestKind {
  bool npu = false, cuda = false;
};

TestKind classify_test(const PythonAnalysis& a, SigRange test) {
  TestKind k;
  for (uint32_t si = test.first; si <= test.last && si < a.view.sig.size(); ++si) {
    if (a.sig_is_name(si)) {
      const std::string_view n = a.sig_text(si);
      k.npu = k.npu || has_word(n, {"npu", "ascend"});
      k.cuda = k.cuda || has_word(n, {"cuda", "nccl", "gpu", "nvidia"});
    } else if (auto lit = literal_at(a, si)) {
      k.npu = k.npu || npu_value(lit->value);
      k.cuda = k.cuda || cuda_value(lit->value);
      si = lit->last_sig;
    }
  }
  return k;
}

SigRange header_test(const PythonAnalysis& a, uint32_t stmt) {
  const auto& st = a.view.statements[stmt];
  return {st.first_sig + 1, st.last_sig > st.first_sig + 1 ? st.last_sig - 1 : st.first_sig};
}

bool is_header(const PythonAnalysis& a, uint32_t stmt, std::initializer_list<std::string_view> keywords) {
  const auto& st = a.view.statements[stmt];
  if (!a.sig_is_op(st.last_sig, ":")) return false;
  for (auto k : keywords)
    if (a.sig_is(st.first_sig, k)) return true;
  return false;
}

// The first sig index that shows the file branches on the NPU, or kNoIndex.
uint32_t npu_branch_evidence(const PythonAnalysis& a) {
  const auto& v = a.view;
  for (uint32_t s = 0; s < v.statements.size(); ++s)
    if (is_header(a, s, {"if", "elif", "while"}) && classify_test(a, header_test(a, s)).npu) return v.statements[s].first_sig;
  for (uint32_t si : v.name_heads) {
    const std::string_view n = v.text(si);
    if (has_word(n, {"npu", "ascend"}) && has_word(n, {"available"})) return si;  // is_torch_npu_available()
  }
  for (const auto& ref : a.dotted.refs)
    if (ref.qualified.ends_with("npu.is_available")) return ref.first_sig;
  for (uint32_t si : v.string_starts) {
    auto lit = literal_at(a, si);
    if (!lit || !lit->complete || !npu_value(lit->value)) continue;
    const bool compared = (si > 0 && (a.sig_is_op(si - 1, "==") || a.sig_is_op(si - 1, "!=") || a.sig_is(si - 1, "in"))) ||
                          a.sig_is_op(lit->last_sig + 1, "==") || a.sig_is_op(lit->last_sig + 1, "!=");
    if (compared) return si;
  }
  return python::kNoIndex;
}

// The sig ranges (header through body) of the arms that are the GPU path.
std::vector<SigRange> gpu_arms(const PythonAnalysis& a, const Blocks& b) {
  std::vector<SigRange> out;
  const auto& stmts = a.view.statements;
  for (uint32_t s = 0; s < stmts.size(); ++s) {
    if (!is_header(a, s, {"if"})) continue;
    bool npu_before = false, cuda_before = false;
    for (const Arm& arm : chain_arms(a, b, s)) {
      const TestKind k = arm.is_else ? TestKind{} : classify_test(a, header_test(a, arm.header));
      const bool kept = (k.cuda && !k.npu) || (arm.is_else && npu_before && !cuda_before);
      if (kept && arm.body_first <= arm.body_last)
        out.push_back({stmts[arm.header].first_sig, stmts[arm.body_last].last_sig});
      npu_before = npu_before || (k.npu && !k.cuda);
      cuda_before = cuda_before || k.cuda;
    }
  }
  return out;
}

// Every CUDA use in a GPU branch stays, the advice on it too (a comparison already beside "npu").
bool is_cuda_use(const PyMatch& m) { return !m.rule->match.is<GpuPathMatch>(); }

}  // namespace

void keep_gpu_paths(const PythonAnalysis& a, const RuleCatalog& rules, const Blocks& b, Blocker& blocker) {
  std::vector<PyMatch>& matches = blocker.matches();
  const auto& kinds = rules.of_kind<GpuPathMatch>();
  if (kinds.empty()) return;
  const uint32_t evidence = npu_branch_evidence(a);
  if (evidence == python::kNoIndex) return;
  const auto arms = gpu_arms(a, b);
  if (arms.empty()) return;
  std::vector<char> in_arms(a.view.sig.size(), 0);
  for (const SigRange& r : arms) std::fill(in_arms.begin() + r.first, in_arms.begin() + r.last + 1, 1);
  auto in_arm = [&](const PyMatch& m) { return in_arms[sig_of_token(a, m.first_tok)] != 0; };
  std::vector<uint32_t> lines;
  const std::string why = "in a GPU branch of code that already supports the NPU: kept as it is";
  for (size_t i = 0; i < matches.size(); ++i) {
    if (!is_cuda_use(matches[i]) || !in_arm(matches[i])) continue;
    lines.push_back(line_of_token(a, matches[i].first_tok));
    // A use rewritten through its import would change with that import: the import stays too.
    blocker.block(i, why, PyMatch::Hold::nvidia_path);
  }
  if (lines.empty()) return;
  std::erase_if(matches, [&](const PyMatch& m) { return m.blocked && m.message == why && in_arm(m); });
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  std::string shown;
  for (size_t i = 0; i < lines.size() && i < 8; ++i) shown += (i ? ", " : "") + std::to_string(lines[i]);
  if (lines.size() > 8) shown += ", ...";
  PyMatch kept;
  kept.rule = kinds.front();
  kept.first_tok = kept.last_tok = a.view.sig[evidence];
  kept.message = "this file already branches on the NPU (line " + std::to_string(a.sig_token(evidence).line) +
                 "): its CUDA branches are the GPU path and stay as they are (CUDA uses on line" +
                 (lines.size() > 1 ? "s " : " ") + shown + ")";
  matches.push_back(std::move(kept));
}

}  // namespace banjia::rules::safety
