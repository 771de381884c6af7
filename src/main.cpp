// banjia: move PyTorch workloads from NVIDIA GPUs to Ascend NPUs, and prove they run right and fast.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <iterator>
#include <string_view>
#include <utility>

#include <CLI/CLI.hpp>

#include "cli/verbs.h"
#include "common/errors.h"
#include "common/report.h"

int main(int argc, char** argv) {
  CLI::App app{"banjia: move PyTorch workloads from NVIDIA GPUs to Huawei Ascend NPUs (torch_npu), "
               "and prove they run right and fast."};
  app.set_version_flag("--version", banjia::banjia_version());
  app.require_subcommand(1);
  app.fallthrough(false);
  int exit_code = banjia::kExitOk;
  using Register = void (*)(CLI::App&, int&);
  static constexpr std::pair<std::string_view, Register> kVerbs[] = {
      {"scan", banjia::register_scan},   {"migrate", banjia::register_migrate},
      {"env", banjia::register_env},     {"trace", banjia::register_trace},
      {"compare", banjia::register_compare}, {"bench", banjia::register_bench}};
  // `banjia VERB ...` registers only VERB: building every verb's options and help text would be most
  // of what banjia does before reading its input (a scan of one file). Anything else (`--help`, no
  // verb, a misspelt one) registers them all, so the listing and CLI11's messages list every verb.
  const auto named = argc > 1 ? std::find_if(std::begin(kVerbs), std::end(kVerbs),
                                             [&](const auto& v) { return v.first == argv[1]; })
                              : std::end(kVerbs);
  if (named != std::end(kVerbs)) named->second(app, exit_code);
  else
    for (const auto& [name, add] : kVerbs) add(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line: what was wrong with the command line.
    std::fprintf(stderr, "banjia: %s (see --help)\n", e.what());
    return banjia::kExitInputError;
  } catch (const banjia::InputError& e) {
    std::fprintf(stderr, "banjia: %s\n", e.what());
    return banjia::kExitInputError;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "banjia: internal error: %s\n", e.what());
    return banjia::kExitInputError;
  }
  return exit_code;
}
