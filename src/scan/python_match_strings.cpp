// Matchers on string literals in code positions: device strings ("cuda", "cuda:0", f"cuda:{i}") and
// "nccl" backends. Strings that merely mention cuda (messages, docstrings, comments) never match:
// the literal's whole value must be the device/backend, and its position must be one where the
// value is used as such.
#include <algorithm>
#include <cctype>

#include "scan/python_matches.h"
#include "scan/string_literal_site.h"

namespace banjia::scan {

namespace {

// What the literals below start with: the prefilter's needles (add_string_needles) are these.
constexpr std::string_view kCudaDevice = "cuda", kCudaDevicePrefix = "cuda:";
constexpr std::string_view kNccl = "nccl", kNcclUpper = "NCCL";

bool is_cuda_device_value(const Literal& l) {
  std::string_view v = l.value;
  if (v == kCudaDevice) return l.complete;
  if (!v.starts_with(kCudaDevicePrefix)) return false;
  std::string_view rest = v.substr(kCudaDevicePrefix.size());
  if (!l.complete) return rest.empty();  // f"cuda:{rank}"
  if (rest == "{}") return true;         // "cuda:{}".format(i)
  return !rest.empty() && std::all_of(rest.begin(), rest.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

bool is_device_position(const PythonAnalysis& a, const Position& p) {
  if (p.compared) return p.compared_with_last == "type" || p.compared_with_last.find("device") != std::string_view::npos;
  if (!p.in_call) return false;
  if (p.keyword == "device" || p.keyword == "device_type" || p.keyword == "map_location") return true;
  if (p.positional_index != 0) return false;
  Callee c = callee_of(a, p.open_sig);
  static const std::string_view kDeviceFirst[] = {"torch.device", "torch.autocast", "torch.amp.autocast",
                                                  "torch.amp.GradScaler", "torch.Generator", "torch.get_device_module"};
  for (auto q : kDeviceFirst)
    if (c.qualified == q) return true;
  return c.is_method && (c.last == "to" || c.last == "device");
}

bool is_backend_position(const PythonAnalysis& a, const Position& p) {
  if (!p.in_call) return false;
  if (p.keyword == "backend") return true;
  if (p.positional_index != 0) return false;
  Callee c = callee_of(a, p.open_sig);
  return c.last == "init_process_group" || c.last == "new_group";
}

}  // namespace

void match_strings(const PythonAnalysis& a, const RuleCatalog& rules, std::vector<PyMatch>& out) {
  const Rule* device = nullptr;
  const Rule* backend = nullptr;
  const Rule* backend_other = nullptr;
  for (const Rule* r : rules.of_kind(MatchKind::device_string)) device = r;
  for (const Rule* r : rules.of_kind(MatchKind::backend_string)) (r->position == "backend" ? backend : backend_other) = r;

  const auto& sig = a.view.sig;
  for (uint32_t si : a.view.string_starts) {
    auto lit = literal_at(a, si);
    if (!lit) continue;
    std::string_view v = lit->value;
    const Rule* hit = nullptr;
    std::optional<TextEdit> edit;
    if (device && v.starts_with(kCudaDevice) && is_cuda_device_value(*lit)) {
      Position p = position_of(a, *lit);
      if (is_device_position(a, p)) {
        hit = device;
        edit = replace_in_value(*lit, device->rewrite_from, device->rewrite_to);
      }
    } else if ((v == kNccl || v == kNcclUpper) && lit->complete) {
      Position p = position_of(a, *lit);
      if (backend && is_backend_position(a, p)) {
        hit = backend;
        edit = replace_in_value(*lit, backend->rewrite_from, backend->rewrite_to);
      } else {
        hit = backend_other;
      }
    }
    if (hit) {
      PyMatch m;
      m.rule = hit;
      m.first_tok = sig[lit->first_sig];
      m.last_tok = sig[lit->last_sig];
      if (hit->fix == FixKind::automatic) m.edit = edit;
      out.push_back(std::move(m));
    }
    si = lit->last_sig;
  }
}

void add_string_needles(const RuleCatalog& rules, PythonNeedles& needles) {
  if (!rules.of_kind(MatchKind::device_string).empty()) {  // is_cuda_device_value
    needles.add_string_value(kCudaDevice);
    needles.add_string_prefix(kCudaDevicePrefix);
  }
  if (!rules.of_kind(MatchKind::backend_string).empty()) {
    needles.add_string_value(kNccl);
    needles.add_string_value(kNcclUpper);
  }
}

}  // namespace banjia::scan
