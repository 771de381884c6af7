// banjia: move PyTorch workloads from NVIDIA GPUs to Ascend NPUs, and prove they run right and fast.
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>

#include <CLI/CLI.hpp>

#include "cli/verbs.h"
#include "common/errors.h"
#include "common/report.h"
#include "common/safe_paths.h"

namespace {
// A report that did not reach stdout (a full disk, a closed pipe's EPIPE, /dev/full) is a failed run:
// exit 2 with one line, whatever the verb returned.
int checked_stdout(int exit_code) {
  errno = 0;
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return exit_code;
  std::fprintf(stderr, "banjia: stdout: write failed%s%s\n", errno ? ": " : "", errno ? std::strerror(errno) : "");
  return banjia::kExitInputError;
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"banjia: move PyTorch workloads from NVIDIA GPUs to Huawei Ascend NPUs (torch_npu), "
               "and prove they run right and fast."};
  app.set_version_flag("--version", banjia::banjia_version());
  app.require_subcommand(1);
  app.fallthrough(false);
  // Past `ulimit -f` a write then fails with EFBIG, which names the file, instead of a signal killing
  // the process between a temporary file and its rename.
  std::signal(SIGXFSZ, SIG_IGN);
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
    // A file name may hold a newline or an escape sequence: the line stays one inert line.
    std::fprintf(stderr, "banjia: %s\n", banjia::printable(e.what()).c_str());
    return banjia::kExitInputError;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "banjia: internal error: %s\n", banjia::printable(e.what()).c_str());
    return banjia::kExitInputError;
  }
  return checked_stdout(exit_code);
}
