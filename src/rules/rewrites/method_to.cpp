#include "rules/rewrites/method_to.h"

#include <algorithm>

#include "python/expression.h"
#include "rules/analyses/python_analysis.h"
#include "rules/core/catalog.h"

namespace banjia::rules {

std::optional<TextEdit> method_to_edit(const PythonAnalysis& a, uint32_t name_sig, const Rule& r,
                                       const std::vector<std::string>& index_names, std::string& why) {
  const uint32_t open = name_sig + 1;
  const auto args = python::call_arguments(a.view, open);
  const python::CallArg* device = python::find_positional(args, 0);
  if (!device) device = python::find_keyword(args, "device");
  for (const auto& arg : args)
    if (arg.star || arg.double_star || arg.position > 0) {
      why = "rewrite this call to .to(...) by hand (positional or star arguments)";
      return std::nullopt;
    }
  const auto& name_tok = a.sig_token(name_sig);
  if (!device) {
    std::string text = "to(" + r.rewrite_as<DeviceRewrite>().value + (args.empty() ? "" : ", ");
    return TextEdit{name_tok.begin, a.sig_token(open).end, text};
  }
  // An index: an integer literal, or a name the device-index rule knows holds one (rank, local_rank).
  const python::SigRange range{device->first_sig, device->last_sig};
  const bool integer = device->first_sig == device->last_sig && a.sig_token(device->first_sig).kind == python::TokenKind::Number;
  const std::string_view last = python::chain_last_name(a.view, range);
  const bool named_index = !last.empty() && std::find(index_names.begin(), index_names.end(), last) != index_names.end();
  if ((!integer && !named_index) || r.rewrite_as<DeviceRewrite>().indexed.empty()) {
    why = "the device argument may be a device object or an index: rewrite this call to .to(...) by hand";
    return std::nullopt;
  }
  const uint32_t value_begin = a.sig_token(device->first_sig).begin, value_end = a.sig_token(device->last_sig).end;
  std::string indexed = r.rewrite_as<DeviceRewrite>().indexed;
  if (size_t at = indexed.find("{index}"); at != std::string::npos)
    indexed.replace(at, 7, a.text().substr(value_begin, value_end - value_begin));
  std::string text = "to" + std::string(a.text().substr(name_tok.end, value_begin - name_tok.end)) + indexed;
  return TextEdit{name_tok.begin, value_end, text};
}

}  // namespace banjia::rules
