// banjia: move PyTorch workloads from NVIDIA GPUs to Ascend NPUs, and prove they run right and fast.
#include <cstdio>
#include <exception>

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
  banjia::register_verbs(app, argc, argv, exit_code);
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
