// The verb table: which register function serves which `banjia VERB`.
#include "cli/verbs.h"

#include <algorithm>
#include <iterator>
#include <string_view>
#include <utility>

namespace banjia {

void register_verbs(CLI::App& app, int argc, const char* const* argv, int& exit_code) {
  using Register = void (*)(CLI::App&, int&);
  static constexpr std::pair<std::string_view, Register> kVerbs[] = {
      {"scan", register_scan},   {"migrate", register_migrate}, {"env", register_env},
      {"trace", register_trace}, {"compare", register_compare}, {"bench", register_bench}};
  // `banjia VERB ...` registers only VERB: building every verb's options and help text would be most
  // of what banjia does before reading its input (a scan of one file). Anything else (`--help`, no
  // verb, a misspelt one) registers them all, so the listing and CLI11's messages list every verb.
  const auto named = argc > 1 ? std::find_if(std::begin(kVerbs), std::end(kVerbs),
                                             [&](const auto& v) { return v.first == argv[1]; })
                              : std::end(kVerbs);
  if (named != std::end(kVerbs)) named->second(app, exit_code);
  else
    for (const auto& [name, add] : kVerbs) add(app, exit_code);
}

}  // namespace banjia
