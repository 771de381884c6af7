// `banjia env`'s command line: check, explain, template, translate and doctor.
#include <memory>
#include <optional>
#include <string>

#include "cli/output_flags.h"
#include "cli/verbs.h"
#include "common/errors.h"
#include "common/file_io.h"
#include "common/version.h"
#include "env/command.h"
#include "env/report/env_template.h"
#include "env/report/explain.h"

namespace banjia {

void register_env(CLI::App& verb, int& exit_code) {
  CLI::App* env_cmd = &verb;
  env_cmd->require_subcommand(1);
  env_cmd->footer(
      "Examples:\n"
      "  banjia env check run_npu.sh Dockerfile     check launch scripts (exit 1 on errors)\n"
      "  banjia env explain PYTORCH_NPU_ALLOC_CONF  everything known about a variable, with sources\n"
      "  banjia env template --scenario distributed --cards 8 > env_npu.sh");

  struct CheckParsed {
    env::EnvCheckOptions check;
    OutputOptions out;
  };
  auto check_args = std::make_shared<CheckParsed>();
  auto* check = env_cmd->add_subcommand("check", "Check shell scripts, .env files and Dockerfiles (or, with no FILE, "
                                             "this process's environment)");
  check->add_option("files", check_args->check.files, "Files to check")->option_text("FILE...");
  check->add_option("--type", check_args->check.type, "File kind: auto (by name), shell, dotenv, dockerfile")
      ->check(CLI::IsMember({"auto", "shell", "dotenv", "dockerfile"}))->capture_default_str();
  check->add_option("--purpose", check_args->check.purpose,
                    "production: debug-only settings are warnings; debug: they are expected (a file's "
                    "'# banjia-env: purpose=debug' comment does the same)")
      ->check(CLI::IsMember({"production", "debug"}))->capture_default_str();
  check->add_option("--explain", check_args->check.explain,
                    "Print the documentation page of a rule across variables (Markdown: condition, example, source) and exit")
      ->option_text("RULE");
  add_output_flags(check, check_args->out, {.formats = {"text", "json", "sarif"}});
  check->footer(
      "Examples:\n"
      "  banjia env check                              check the current environment\n"
      "  banjia env check env_npu.sh .env Dockerfile   check files (line and column per finding)\n"
      "  banjia env check train.sh -f sarif -o env.sarif --fail-on warning\n"
      "  banjia env check --explain env-event-timeout-order   what a rule across variables checks, and why\n" +
      std::string(kOutputFlagsFooter));
  check->callback([check_args, &exit_code] { exit_code = env::run_env_check(check_args->check, check_args->out); });

  auto explain_name = std::make_shared<std::string>();
  auto explain_format = std::make_shared<std::string>("text");
  auto* explain_cmd = env_cmd->add_subcommand("explain", "Everything the knowledge base knows about a variable, with "
                                                     "sources (a partial NAME lists matches)");
  explain_cmd->add_option("name", *explain_name, "Variable, allocator option or word to look up")->required()
      ->option_text("NAME");
  explain_cmd->add_option("-f,--format", *explain_format, "Output format")->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  explain_cmd->footer(
      "Examples:\n"
      "  banjia env explain TASK_QUEUE_ENABLE\n"
      "  banjia env explain alloc            lists every entry whose name contains ALLOC\n"
      "  banjia env explain NPU_FORCE_FP32 -f json");
  explain_cmd->callback([=, &exit_code] {
    write_output("-", env::explain(*explain_name, *explain_format == "json"));
    exit_code = kExitOk;
  });

  auto scenario = std::make_shared<std::string>();
  auto cards = std::make_shared<std::optional<int>>();
  auto template_out = std::make_shared<std::string>("-");
  auto* tpl = env_cmd->add_subcommand("template", "A commented shell script of recommended settings, each citing its "
                                              "source (passes `banjia env check` without warnings)");
  tpl->add_option("--scenario", *scenario, "training, inference, debug or distributed")->required()
      ->check(CLI::IsMember({"training", "inference", "debug", "distributed"}));
  tpl->add_option("--cards", *cards, "Devices per node for the distributed scenario (ASCEND_RT_VISIBLE_DEVICES=0..N-1)");
  tpl->add_option("-o,--output", *template_out, "Write the script to FILE (atomically) instead of stdout")
      ->option_text("FILE");
  tpl->footer(
      "Examples:\n"
      "  banjia env template --scenario training > env_npu.sh\n"
      "  banjia env template --scenario distributed --cards 8 -o env_dist.sh\n"
      "  banjia env template --scenario debug | banjia env check /dev/stdin");
  tpl->callback([=, &exit_code] {
    write_output(*template_out, env::render_template(*scenario, *cards));
    exit_code = kExitOk;
  });

  auto tr = std::make_shared<env::EnvTranslateOptions>();
  auto* translate = env_cmd->add_subcommand("translate", "Rewrite CUDA/NCCL variables to their Ascend equivalents "
                                                     "(edits and notes go to stderr)");
  translate->add_option("files", tr->files, "Shell script, .env file or Dockerfile")->required()->option_text("FILE...");
  translate->add_option("--type", tr->type, "File kind: auto (by name), shell, dotenv, dockerfile")
      ->check(CLI::IsMember({"auto", "shell", "dotenv", "dockerfile"}))->capture_default_str();
  translate->add_option("-o,--output", tr->output, "Write the result to FILE (atomically) instead of stdout")
      ->option_text("FILE");
  translate->add_flag("-i,--in-place", tr->in_place, "Rewrite the files themselves (atomically)");
  translate->add_flag("--check", tr->check, "Write nothing; exit 1 when a file would change");
  translate->add_option("--target-torch-npu", tr->target_torch_npu,
                        "TorchNPU release to target (e.g. 7.3.0): allocator options it lacks are dropped")
      ->option_text("VERSION")
      ->check([](const std::string& v) { return is_release_version(v) ? std::string() : "expected a release such as 7.3.0"; });
  translate->footer(
      "Examples:\n"
      "  banjia env translate run_gpu.sh > run_npu.sh\n"
      "  banjia env translate -i scripts/*.sh Dockerfile\n"
      "  banjia env translate --check run.sh        exit 1 if CUDA variables remain");
  translate->callback([tr, &exit_code] { exit_code = env::run_env_translate(*tr); });

  auto doctor_opts = std::make_shared<env::DoctorOptions>();
  auto doctor_out = std::make_shared<OutputOptions>();
  auto* doctor = env_cmd->add_subcommand("doctor", "Check the CANN installation (ASCEND_HOME_PATH, ASCEND_OPP_PATH, "
                                               "CANN version), python/torch/torch_npu versions and the environment");
  doctor->add_option("--timeout", doctor_opts->python_timeout_s, "Seconds allowed for the Python version probe")
      ->check(CLI::Range(0.1, 3600.0))->capture_default_str();
  doctor->add_option("--python", doctor_opts->python,
                     "Python interpreter to probe for python/torch/torch_npu versions (default: python3 on PATH)")
      ->option_text("PATH");
  add_output_flags(doctor, *doctor_out, {.formats = {"text", "json", "sarif"}});
  doctor->footer(
      "Examples:\n"
      "  banjia env doctor\n"
      "  banjia env doctor -f json -o doctor.json\n"
      "  banjia env doctor --python /opt/venv/bin/python   probe that interpreter's torch / torch_npu\n"
      "  source /usr/local/Ascend/ascend-toolkit/set_env.sh && banjia env doctor --fail-on warning\n" +
      std::string(kOutputFlagsFooter));
  doctor->callback([=, &exit_code] { exit_code = env::run_env_doctor(*doctor_opts, *doctor_out); });
}

}  // namespace banjia
