// Match kind "device-index" (device_index.h): integer device indices where a device goes: `x.to(rank)`, `torch.device(local_rank)`,
// `torch.zeros(3, device=args.gpu)`. Whether an integer means the CUDA device or the current
// accelerator depends on the torch version, so the npu target reports these with the explicit NPU
// spelling (the name may hold None or a device object on some paths). A target whose rule has a
// device-from-index rewrite (accelerator: an integer means the accelerator, and the CPU without one)
// writes the device out, taking the listed names to hold integers as `.cuda(rank)` does.
#include "rules/kinds/device_index.h"

#include <algorithm>

#include "rules/analyses/device_values.h"
#include "rules/analyses/python_analysis.h"
#include "rules/analyses/python_prefilter.h"
#include "rules/core/catalog.h"
#include "rules/core/match.h"
#include "rules/core/match_fields.h"

namespace banjia::rules {

namespace {

// Whether sig indices [first, last] are one dotted name chain (local_rank, args.gpu).
bool plain_chain(const PythonAnalysis& a, uint32_t first, uint32_t last) {
  for (uint32_t i = first; i <= last; ++i)
    if ((i - first) % 2 == 0 ? !a.sig_is_name(i) : !a.view.is_op(i, ".")) return false;
  return (last - first) % 2 == 0;
}

// DistributedDataParallel(..., device_ids=[rank], output_device=rank): the ids name accelerator
// devices, and a module on the CPU takes neither; a rule with an `ids` template ({ids}: the argument
// as written) rewrites them so that the CPU gets None.
void match_ddp_device_ids(const PythonAnalysis& a, const Rule& r, std::vector<PyMatch>& out) {
  const size_t at = r.rewrite_as<DeviceRewrite>().ids.find("{ids}");
  if (at == std::string::npos) return;
  const auto& v = a.view;
  v.for_each_op1('(', [&](uint32_t open) {
    if (open == 0 || !a.sig_is_name(open - 1)) return;
    const Callee c = callee_of(a, open);
    if (c.last != "DistributedDataParallel" && !c.qualified.ends_with(".DistributedDataParallel")) return;
    for (const auto& arg : python::call_arguments(v, open)) {
      if (arg.keyword != "device_ids" && arg.keyword != "output_device") continue;
      uint32_t first = arg.first_sig, last = arg.last_sig;
      if (arg.keyword == "device_ids") {
        if (!v.is_op(first, "[") || v.match[first] != static_cast<int32_t>(last) || last < first + 2) continue;
        ++first;
        --last;
      }
      if (!plain_chain(a, first, last)) continue;
      const std::string_view name = v.text(last);
      const auto& names = r.params<DeviceIndexMatch>().names;
      if (std::find(names.begin(), names.end(), name) == names.end()) continue;
      const uint32_t begin = a.sig_token(arg.first_sig).begin, end = a.sig_token(arg.last_sig).end;
      PyMatch m;
      m.rule = &r;
      m.first_tok = v.sig[arg.first_sig];
      m.last_tok = v.sig[arg.last_sig];
      m.message = r.message + " (here: DistributedDataParallel's " + std::string(arg.keyword) +
                  ", which a module on the CPU takes as None)";
      std::string written = r.rewrite_as<DeviceRewrite>().ids;
      written.replace(at, 5, a.text().substr(begin, end - begin));
      m.edit = TextEdit{begin, end, written};
      out.push_back(std::move(m));
    }
  });
}

}  // namespace

DeviceIndexMatch DeviceIndexMatch::parse(const MatchFields& m) { return {m.strings("names")}; }

void DeviceIndexMatch::match(const MatchContext& c, std::vector<PyMatch>& out) {
  const PythonAnalysis& a = c.analysis;
  for (const Rule* r : c.rules.of_kind<DeviceIndexMatch>()) {
    if (r->fix == FixKind::automatic && r->rewrite == RewriteKind::device_from_index) match_ddp_device_ids(a, *r, out);
    const auto& names = r->params<DeviceIndexMatch>().names;
    for_each_device_argument(a, [&](python::SigRange arg) {
      std::string_view name = python::chain_last_name(a.view, arg);
      if (name.empty() || std::find(names.begin(), names.end(), name) == names.end()) return;
      PyMatch m;
      m.rule = r;
      m.first_tok = a.view.sig[arg.first];
      m.last_tok = a.view.sig[arg.last];
      std::string written(a.text().substr(a.sig_token(arg.first).begin, a.sig_token(arg.last).end - a.sig_token(arg.first).begin));
      m.message = r->message + " (here: " + written;
      if (!r->index_spelling.empty()) {
        std::string spelled = r->index_spelling;
        if (size_t at = spelled.find("{index}"); at != std::string::npos) spelled.replace(at, 7, written);
        m.message += "; explicit: " + spelled;
      }
      m.message += ")";
      if (r->fix == FixKind::automatic && r->rewrite == RewriteKind::device_from_index) {
        std::string device = r->rewrite_as<DeviceRewrite>().value;
        if (size_t at = device.find("{index}"); at != std::string::npos) device.replace(at, 7, written);
        m.edit = TextEdit{a.sig_token(arg.first).begin, a.sig_token(arg.last).end, device};
      }
      out.push_back(std::move(m));
    });
  }
}

void DeviceIndexMatch::add_needles(const RuleCatalog& rules, PythonNeedles& needles) {
  for (const Rule* r : rules.of_kind<DeviceIndexMatch>())
    for (const auto& n : r->params<DeviceIndexMatch>().names) needles.add_name(n);
}

}  // namespace banjia::rules
