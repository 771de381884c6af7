// Running a helper program (the Python interpreter for `env doctor`) with a deadline: its stdout+stderr
// are captured, and it is killed when the deadline passes, so a hanging import never hangs banjia.
#pragma once
#include <string>
#include <vector>

namespace banjia::env {

struct ProcessResult {
  bool started = false;    // false when the program could not be executed
  bool timed_out = false;
  int exit_code = -1;      // -1 when killed by a signal or not started
  std::string output;      // stdout and stderr interleaved, capped at 1 MiB
};

ProcessResult run_with_timeout(const std::vector<std::string>& argv, double timeout_s);

// This process's environment, one "NAME=value" string per variable.
std::vector<std::string> current_environment();

// The first executable `name` in the PATH-style list `path` ("" when none).
std::string find_in_path(const std::string& name, const std::string& path);

}  // namespace banjia::env
