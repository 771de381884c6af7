// `banjia env`: check, explain, template, translate and doctor for Ascend environment configuration.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "cli/output_options.h"
#include "cli/verbs.h"
#include "common/errors.h"
#include "common/file_io.h"
#include "env/checker.h"
#include "env/doctor.h"
#include "env/env_template.h"
#include "env/explain.h"
#include "env/translate.h"
#include "common/version.h"

extern char** environ;

namespace banjia {
namespace {

using namespace env;

std::optional<EnvFileKind> parse_kind(const std::string& s) {
  if (s == "shell") return EnvFileKind::shell;
  if (s == "dotenv") return EnvFileKind::dotenv;
  if (s == "dockerfile") return EnvFileKind::dockerfile;
  return std::nullopt;
}

// Environment scripts, .env files and Dockerfiles are a few KiB; the cap only stops a device or a
// huge file from being read into memory whole.
constexpr size_t kMaxScriptBytes = size_t{16} << 20;

std::string read_text(const std::string& path) { return read_text_file(path, kMaxScriptBytes, "a script"); }

std::vector<RuleInfo> env_rules() {
  std::vector<RuleInfo> out;
  for (const auto& r : knowledge_base().rules) out.push_back({r.id, r.summary, r.source, ""});
  return out;
}

void count_summary(Report& report, size_t assignments) {
  size_t e = 0, w = 0, i = 0;
  for (const auto& f : report.findings)
    (f.severity == Severity::error ? e : f.severity == Severity::warning ? w : i)++;
  report.summary_json = [=](JsonWriter& j) {
    j.field("assignments", static_cast<uint64_t>(assignments)).field("errors", static_cast<uint64_t>(e))
        .field("warnings", static_cast<uint64_t>(w)).field("infos", static_cast<uint64_t>(i));
  };
  report.summary_text = fmt::format("{} assignment(s) checked: {} error(s), {} warning(s), {} info\n", assignments, e, w, i);
}

struct CheckArgs {
  std::vector<std::string> files;
  std::string type = "auto";
  std::string purpose = "production";
  OutputOptions out;
};

int run_check(const CheckArgs& a) {
  Report report;
  report.command = "env check";
  report.rules = env_rules();
  Purpose purpose = a.purpose == "debug" ? Purpose::debug : Purpose::production;
  size_t assignments = 0;
  if (a.files.empty()) {
    std::vector<std::string> entries;
    for (char** e = environ; e && *e; ++e) entries.emplace_back(*e);
    report.findings = check_environment(entries, purpose);
    assignments = entries.size();
  }
  for (const auto& file : a.files) {
    std::string text = read_text(file);
    EnvFileKind kind = a.type == "auto" ? detect_env_file_kind(file) : *parse_kind(a.type);
    auto parsed = parse_env_file(text, kind);
    assignments += parsed.assignments.size();
    for (auto& f : check_parsed_file(file, parsed, purpose)) report.findings.push_back(std::move(f));
    ++report.files_scanned;
  }
  count_summary(report, assignments);
  return a.out.emit(report);
}

struct TranslateArgs {
  std::vector<std::string> files;
  std::string type = "auto";
  std::string output;
  bool in_place = false, check = false;
  std::string target_torch_npu;
};

int run_translate(const TranslateArgs& a) {
  if (a.files.size() > 1 && !a.in_place && !a.check)
    throw InputError("", "several files need --in-place or --check (stdout takes one file)");
  if (a.in_place && !a.output.empty()) throw InputError("", "--in-place and --output exclude each other");
  bool changed = false;
  for (const auto& file : a.files) {
    std::string text = read_text(file);
    EnvFileKind kind = a.type == "auto" ? detect_env_file_kind(file) : *parse_kind(a.type);
    std::vector<ShellEdit> edits;
    std::vector<Finding> notes;
    TranslateOptions options;
    options.target_torch_npu = a.target_torch_npu;
    std::string result = translate_env_file(text, kind, edits, &notes, options);
    changed = changed || result != text;
    // Report every edit and note on stderr (stdout stays the translated file), in the order of the
    // file as a compiler would: a note on line 3 after line 5's edit is easy to miss. An edit comes
    // before a note at the same place (stable sort).
    struct Message {
      int line, column;
      std::string text;
    };
    std::vector<Message> messages;
    for (const auto& e : edits)
      messages.push_back({e.line, e.column, fmt::format("{}: {} -> {}", e.rule, e.before, e.after)});
    for (const auto& n : notes)
      messages.push_back({n.line, n.column, fmt::format("{}: {} [{}]", to_string(n.severity), n.message, n.rule)});
    std::stable_sort(messages.begin(), messages.end(), [](const Message& x, const Message& y) {
      return std::tie(x.line, x.column) < std::tie(y.line, y.column);
    });
    for (const auto& m : messages) fmt::print(stderr, "{}:{}:{}: {}\n", file, m.line, m.column, m.text);
    if (a.check) continue;
    if (a.in_place) {
      if (result != text) write_file_atomic(file, result);
    } else {
      write_output(a.output, result);
    }
  }
  return a.check && changed ? kExitFindings : kExitOk;
}

}  // namespace

void register_env(CLI::App& app, int& exit_code) {
  auto* env = app.add_subcommand("env", "Check, explain, template and translate Ascend (torch_npu / CANN / HCCL) "
                                        "environment variables; check an installation");
  env->require_subcommand(1);
  env->footer(
      "Examples:\n"
      "  banjia env check run_npu.sh Dockerfile     check launch scripts (exit 1 on errors)\n"
      "  banjia env explain PYTORCH_NPU_ALLOC_CONF  everything known about a variable, with sources\n"
      "  banjia env template --scenario distributed --cards 8 > env_npu.sh");

  auto check_args = std::make_shared<CheckArgs>();
  auto* check = env->add_subcommand("check", "Check shell scripts, .env files and Dockerfiles (or, with no FILE, "
                                             "this process's environment)");
  check->add_option("files", check_args->files, "Files to check")->option_text("FILE...");
  check->add_option("--type", check_args->type, "File kind: auto (by name), shell, dotenv, dockerfile")
      ->check(CLI::IsMember({"auto", "shell", "dotenv", "dockerfile"}))->capture_default_str();
  check->add_option("--purpose", check_args->purpose,
                    "production: debug-only settings are warnings; debug: they are expected (a file's "
                    "'# banjia-env: purpose=debug' comment does the same)")
      ->check(CLI::IsMember({"production", "debug"}))->capture_default_str();
  check_args->out.add_to(check, {"text", "json", "sarif"});
  check->footer(
      "Examples:\n"
      "  banjia env check                              check the current environment\n"
      "  banjia env check env_npu.sh .env Dockerfile   check files (line and column per finding)\n"
      "  banjia env check train.sh -f sarif -o env.sarif --fail-on warning");
  check->callback([check_args, &exit_code] { exit_code = run_check(*check_args); });

  auto explain_name = std::make_shared<std::string>();
  auto explain_format = std::make_shared<std::string>("text");
  auto* explain_cmd = env->add_subcommand("explain", "Everything the knowledge base knows about a variable, with "
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
  auto* tpl = env->add_subcommand("template", "A commented shell script of recommended settings, each citing its "
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
    write_output(*template_out, render_template(*scenario, *cards));
    exit_code = kExitOk;
  });

  auto tr = std::make_shared<TranslateArgs>();
  auto* translate = env->add_subcommand("translate", "Rewrite CUDA/NCCL variables to their Ascend equivalents "
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
  translate->callback([tr, &exit_code] { exit_code = run_translate(*tr); });

  auto doctor_opts = std::make_shared<DoctorOptions>();
  auto doctor_out = std::make_shared<OutputOptions>();
  auto* doctor = env->add_subcommand("doctor", "Check the CANN installation (ASCEND_HOME_PATH, ASCEND_OPP_PATH, "
                                               "CANN version), python/torch/torch_npu versions and the environment");
  doctor->add_option("--timeout", doctor_opts->python_timeout_s, "Seconds allowed for the Python version probe")
      ->check(CLI::Range(0.1, 3600.0))->capture_default_str();
  doctor->add_option("--python", doctor_opts->python,
                     "Python interpreter to probe for python/torch/torch_npu versions (default: python3 on PATH)")
      ->option_text("PATH");
  doctor_out->add_to(doctor, {"text", "json", "sarif"});
  doctor->footer(
      "Examples:\n"
      "  banjia env doctor\n"
      "  banjia env doctor -f json -o doctor.json\n"
      "  banjia env doctor --python /opt/venv/bin/python   probe that interpreter's torch / torch_npu\n"
      "  source /usr/local/Ascend/ascend-toolkit/set_env.sh && banjia env doctor --fail-on warning");
  doctor->callback([=, &exit_code] {
    Report report = run_doctor(*doctor_opts);
    report.rules = env_rules();
    exit_code = doctor_out->emit(report);
  });
}

}  // namespace banjia
