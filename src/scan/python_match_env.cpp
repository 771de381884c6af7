// Matcher on CUDA/NCCL environment variable names used as such in Python: os.environ["X"],
// "X" in os.environ, os.getenv("X"), os.environ.get/setdefault/pop("X"). Names with a documented
// Ascend equivalent are renamed (data/env); the others are reported.
#include "scan/python_matches.h"
#include "scan/string_literal_site.h"

namespace banjia::scan {

namespace {

bool is_env_position(const PythonAnalysis& a, const Position& p) {
  if (p.subscript_of_environ || p.membership_in_environ) return true;
  if (!p.in_call || p.positional_index != 0) return false;
  Callee c = callee_of(a, p.open_sig);
  if (c.last == "getenv" || c.last == "putenv" || c.last == "unsetenv") return true;
  if (c.last == "get" || c.last == "setdefault" || c.last == "pop")
    return p.open_sig >= 3 && a.sig_is_op(p.open_sig - 2, ".") && a.sig_is(p.open_sig - 3, "environ");
  return false;
}

}  // namespace

void match_env_names(const PythonAnalysis& a, const RuleCatalog& rules, const EnvNameTable& env,
                     std::vector<PyMatch>& out) {
  const Rule* env_equiv = nullptr;
  const Rule* env_none = nullptr;
  for (const Rule* r : rules.of_kind(MatchKind::env_name)) (r->equivalent.value_or(false) ? env_equiv : env_none) = r;
  if (!env_equiv && !env_none) return;
  const auto& sig = a.view.sig;
  for (uint32_t si : a.view.string_starts) {
    auto lit = literal_at(a, si);
    if (!lit) continue;
    si = lit->last_sig;
    std::string_view v = lit->value;
    if (!lit->complete || !env.is_cuda_name(v) || !is_env_position(a, position_of(a, *lit))) continue;
    PyMatch m;
    m.first_tok = sig[lit->first_sig];
    m.last_tok = sig[lit->last_sig];
    auto eq = env.equivalent ? env.equivalent(v) : std::nullopt;
    if (eq && env_equiv) {
      m.rule = env_equiv;
      if (env_equiv->fix == FixKind::automatic)
        m.edit = TextEdit{static_cast<uint32_t>(lit->value_offset), static_cast<uint32_t>(lit->value_offset + v.size()), *eq};
      m.message = env_equiv->message + ": " + std::string(v) + " -> " + *eq;
    } else if (env_none) {
      m.rule = env_none;
    } else {
      continue;
    }
    out.push_back(std::move(m));
  }
}

void add_env_needles(const RuleCatalog& rules, const EnvNameTable& env, PythonNeedles& needles) {
  if (!rules.of_kind(MatchKind::env_name).empty())
    for (const auto& p : env.cuda_prefixes) needles.add_string_prefix(p);
}

}  // namespace banjia::scan
