// Matcher on integer device indices where a device goes: `x.to(rank)`, `torch.device(local_rank)`,
// `torch.zeros(3, device=args.gpu)`. Whether an integer means the CUDA device or the current
// accelerator depends on the torch version, so these are reported with the explicit NPU spelling;
// they are not rewritten, since the name may hold None or a device object on some paths.
#include <algorithm>

#include "scan/device_values.h"
#include "scan/python_matches.h"

namespace banjia::scan {

void match_device_indices(const PythonAnalysis& a, const RuleCatalog& rules, std::vector<PyMatch>& out) {
  for (const Rule* r : rules.of_kind(MatchKind::device_index)) {
    for_each_device_argument(a, [&](python::SigRange arg) {
      std::string_view name = python::chain_last_name(a.view, arg);
      if (name.empty() || std::find(r->names.begin(), r->names.end(), name) == r->names.end()) return;
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
      out.push_back(std::move(m));
    });
  }
}

void add_device_index_needles(const RuleCatalog& rules, PythonNeedles& needles) {
  for (const Rule* r : rules.of_kind(MatchKind::device_index))
    for (const auto& n : r->names) needles.add_name(n);
}

}  // namespace banjia::scan
