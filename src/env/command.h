// `banjia env`'s entry points: each subcommand's options as the CLI layer (cli/verbs_env.cpp) parses them.
// explain and template call env::explain and env::render_template directly.
#pragma once
#include <string>
#include <vector>

#include "common/output_options.h"
#include "env/analysis/doctor.h"

namespace banjia::env {

struct EnvCheckOptions {
  std::vector<std::string> files;  // empty: this process's environment
  std::string type = "auto";       // auto (by name), shell, dotenv, dockerfile
  std::string purpose = "production";
  std::string explain;  // a rule across variables: print its page instead of checking
};

struct EnvTranslateOptions {
  std::vector<std::string> files;
  std::string type = "auto";
  std::string output;  // one file's result; empty: stdout
  bool in_place = false, check = false;
  std::string target_torch_npu;
};

// Each returns the process exit code.
int run_env_check(const EnvCheckOptions& options, const OutputOptions& out);
int run_env_translate(const EnvTranslateOptions& options);
int run_env_doctor(const DoctorOptions& options, const OutputOptions& out);

}  // namespace banjia::env
