// Match kind "triton-kernel" (triton_kernel.h): the findings; triton_kernel_checks.cpp finds the
// kernels and the limits they are beyond.
#include "rules/analyses/python_prefilter.h"
#include "rules/analyses/python_analysis.h"
#include "rules/core/catalog.h"
#include "rules/kinds/triton_kernel.h"

#include "common/errors.h"
#include "rules/analyses/triton_kernel_checks.h"
#include "rules/core/match_fields.h"

namespace banjia::rules {

TritonKernelMatch TritonKernelMatch::parse(const MatchFields& m) {
  TritonKernelMatch k{m.text("report")};
  if (k.report != "kernel" && k.report != "limit") throw InputError(m.where(), "triton-kernel: report must be kernel or limit");
  return k;
}

void TritonKernelMatch::add_needles(const RuleCatalog& rules, PythonNeedles& needles) {
  if (rules.of_kind<TritonKernelMatch>().empty()) return;
  // Kernels are decorated with these, and a triton.Config names triton too.
  for (std::string_view n : {"triton.jit", "triton.autotune", "triton.heuristics", "triton.Config"}) needles.add_dotted(n);
}

void TritonKernelMatch::match(const MatchContext& c, std::vector<PyMatch>& out) {
  const Rule* kernel_rule = nullptr;
  const Rule* limit_rule = nullptr;
  for (const Rule* r : c.rules.of_kind<TritonKernelMatch>())
    (r->params<TritonKernelMatch>().report == "kernel" ? kernel_rule : limit_rule) = r;
  if (!kernel_rule && !limit_rule) return;
  const PythonAnalysis& a = c.analysis;
  std::vector<std::pair<uint32_t, uint32_t>> other_uses;
  const auto kernels = find_triton_kernels(a, other_uses);
  auto add = [&](const Rule* r, uint32_t first_sig, uint32_t last_sig) -> PyMatch& {
    PyMatch m;
    m.rule = r;
    m.first_tok = a.view.sig[first_sig];
    m.last_tok = a.view.sig[last_sig];
    out.push_back(std::move(m));
    return out.back();
  };
  if (kernel_rule) {
    for (const auto& k : kernels) add(kernel_rule, k.first_sig, k.name_sig);
    for (const auto& [first, last] : other_uses) add(kernel_rule, first, last);
  }
  if (!limit_rule) return;
  for (const auto& p : triton_problems(a, kernels, triton_limits())) {
    PyMatch& m = add(limit_rule, p.first_sig, p.last_sig);
    m.message = "`" + p.what + "`: " + p.limit->message + " (triton-ascend limit " + p.limit->id + ")";
    m.source = p.limit->source;
  }
}

}  // namespace banjia::rules
