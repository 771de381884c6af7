#include "env/analysis/doctor.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <fmt/format.h>

#include "common/errors.h"
#include "env/analysis/checker.h"
#include "env/analysis/doctor_compat.h"
#include "env/analysis/subprocess.h"

namespace banjia::env {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSetEnvHint = "run 'source set_env.sh' in the CANN installation path";

std::string getenv_str(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

Finding doctor_finding(std::string_view rule, Severity sev, std::string message, std::string suggestion,
                       std::string source = "") {
  if (source.empty()) source = knowledge_base().rule(rule).source;
  return make_finding(Site{"(installation)", 0, 0}, rule, sev, std::move(message), std::move(suggestion),
                      std::move(source));
}

// The interpreter to probe: `requested` (a path, or a name without '/' looked up on PATH as a shell
// would), else python3 or python on PATH ("" when there is none).
std::string python_to_probe(const std::string& requested, const std::string& path) {
  if (requested.empty()) {
    std::string found = find_in_path("python3", path);
    return found.empty() ? find_in_path("python", path) : found;
  }
  if (requested.find('/') == std::string::npos) {
    std::string found = find_in_path(requested, path);
    if (found.empty()) throw InputError(requested, "no such interpreter on PATH");
    return found;
  }
  std::error_code ec;
  if (!fs::exists(requested, ec)) throw InputError(requested, "does not exist");
  if (fs::is_directory(requested, ec)) throw InputError(requested, "is a directory, not a Python interpreter");
  if (::access(requested.c_str(), X_OK) != 0) throw InputError(requested, "is not executable");
  return requested;
}

std::string compat_suggestion(const CompatCheck& c) {
  if (c.status == CompatStatus::unknown)
    return "compare by hand with Ascend/pytorch COMPATIBILITY.md, which may list newer releases";
  if (c.what == "torch") return fmt::format("install torch {}, or the torch_npu release paired with torch {}", c.expected, release_part(c.found));
  if (c.what == "cann") return fmt::format("install CANN {}, or the torch_npu release paired with CANN {}", c.expected, c.found);
  return fmt::format("use one of Python {}", c.expected);
}

// The first ascend_*_install.info under `root` (sorted walk) and the value of its first version= line.
std::pair<std::string, std::string> cann_version(const fs::path& root) {
  // Names matching ascend_*_install.info (what torch_npu's collect_env looks for).
  auto is_info = [](const std::string& n) {
    constexpr std::string_view head = "ascend_", tail = "_install.info";
    return n.size() >= head.size() + tail.size() && n.starts_with(head) && n.ends_with(tail);
  };
  std::vector<fs::path> found;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (it.depth() > 6) it.disable_recursion_pending();
    if (it->is_regular_file(ec) && is_info(it->path().filename().string())) found.push_back(it->path());
  }
  if (found.empty()) return {};
  std::sort(found.begin(), found.end());
  std::ifstream in(found.front());
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.starts_with("version=")) return {found.front().string(), line.substr(8)};
  }
  return {found.front().string(), ""};
}

constexpr const char* kProbe =
    "import platform\n"
    "print('python=' + platform.python_version())\n"
    "for mod in ('torch', 'torch_npu'):\n"
    "    try:\n"
    "        m = __import__(mod)\n"
    "        print(mod + '=' + str(getattr(m, '__version__', 'unknown')))\n"
    "    except BaseException as e:\n"
    "        print(mod + '_error=' + type(e).__name__ + ': ' + (str(e).splitlines() or [''])[0])\n";

std::map<std::string, std::string> parse_probe(const std::string& output) {
  std::map<std::string, std::string> out;
  size_t pos = 0;
  while (pos < output.size()) {
    size_t eol = output.find('\n', pos);
    std::string line = output.substr(pos, eol == std::string::npos ? std::string::npos : eol - pos);
    size_t eq = line.find('=');
    if (eq != std::string::npos) {
      std::string key = line.substr(0, eq);
      if (key == "python" || key == "torch" || key == "torch_npu" || key == "torch_error" || key == "torch_npu_error")
        out[key] = line.substr(eq + 1);
    }
    if (eol == std::string::npos) break;
    pos = eol + 1;
  }
  return out;
}

}  // namespace

Report run_doctor(const DoctorOptions& options) {
  Report report;
  report.command = "env doctor";
  std::map<std::string, std::string> facts;
  auto& out = report.findings;
  // Before anything else: a --python that names no interpreter is a usage error, not a finding.
  std::string python = python_to_probe(options.python, getenv_str("PATH"));
  std::map<std::string, std::string> probe;

  std::string home = getenv_str("ASCEND_HOME_PATH");
  facts["ascend_home_path"] = home;
  std::error_code ec;
  if (home.empty()) {
    out.push_back(doctor_finding("env-doctor-home", Severity::warning,
                                 "ASCEND_HOME_PATH is not set (torch_npu prints \"Warning: ASCEND_HOME_PATH environment "
                                 "variable is not set.\")", kSetEnvHint));
  } else if (!fs::is_directory(home, ec)) {
    out.push_back(doctor_finding("env-doctor-home", Severity::error,
                                 fmt::format("ASCEND_HOME_PATH={} is not a directory; torch_npu raises at import", home),
                                 kSetEnvHint));
  } else {
    for (const char* sub : {"runtime", "compiler"})
      if (!fs::is_directory(fs::path(home) / sub, ec))
        out.push_back(doctor_finding("env-doctor-layout", Severity::error,
                                     fmt::format("{}/{} does not exist; torch_npu raises at import", home, sub),
                                     kSetEnvHint));
    auto [file, version] = cann_version(fs::weakly_canonical(home, ec));
    facts["cann_version"] = version;
    if (file.empty())
      out.push_back(doctor_finding("env-doctor-cann-version", Severity::warning,
                                   fmt::format("no ascend_*_install.info under {}; the CANN version is unknown", home),
                                   "reinstall the CANN toolkit or point ASCEND_HOME_PATH at it"));
    else
      out.push_back(doctor_finding("env-doctor-cann-version", Severity::info,
                                   version.empty() ? fmt::format("{} has no version= line", file)
                                                   : fmt::format("CANN version {} (from {})", version, file),
                                   "key environment rules on the installed versions"));
  }

  std::string opp = getenv_str("ASCEND_OPP_PATH");
  facts["ascend_opp_path"] = opp;
  if (opp.empty())
    out.push_back(doctor_finding("env-doctor-opp", Severity::error,
                                 "ASCEND_OPP_PATH is not set; torch_npu raises at import", kSetEnvHint));
  else if (!fs::is_directory(opp, ec))
    out.push_back(doctor_finding("env-doctor-opp", Severity::error,
                                 fmt::format("ASCEND_OPP_PATH={} is not a directory; torch_npu raises at import", opp),
                                 kSetEnvHint));

  facts["python"] = python;
  facts["python_resolved"] = python.empty() ? "" : fs::canonical(python, ec).string();
  if (python.empty()) {
    out.push_back(doctor_finding("env-doctor-python", Severity::warning,
                                 "no python3 or python on PATH; python, torch and torch_npu versions are unknown",
                                 "activate the Python environment that runs the model"));
  } else {
    auto r = run_with_timeout({python, "-c", kProbe}, options.python_timeout_s);
    probe = parse_probe(r.output);
    for (const char* k : {"python", "torch", "torch_npu"}) facts[std::string(k) + "_version"] = probe[k];
    if (!r.started) {
      out.push_back(doctor_finding("env-doctor-python", Severity::warning, fmt::format("could not run {}", python),
                                   "check the interpreter on PATH"));
    } else if (r.timed_out) {
      out.push_back(doctor_finding("env-doctor-python", Severity::warning,
                                   fmt::format("{} did not finish within {} s (importing torch / torch_npu)", python,
                                               options.python_timeout_s),
                                   "run python -c 'import torch_npu' by hand to see where it hangs; raise --timeout"));
    } else if (probe["python"].empty()) {
      out.push_back(doctor_finding("env-doctor-python", Severity::warning,
                                   fmt::format("{} exited with code {} without reporting versions", python, r.exit_code),
                                   "run it by hand to see the error"));
    } else {
      out.push_back(doctor_finding(
          "env-doctor-python", Severity::info,
          fmt::format("probed {} ({}): python {}, torch {}, torch_npu {}", python, facts["python_resolved"], probe["python"],
                      probe["torch"].empty() ? "not importable" : probe["torch"],
                      probe["torch_npu"].empty() ? "not importable" : probe["torch_npu"]),
          "--python PATH probes another interpreter"));
      for (const char* k : {"torch", "torch_npu"})
        if (probe[k].empty())
          out.push_back(doctor_finding("env-doctor-python", Severity::warning,
                                       fmt::format("import {} failed: {}", k, probe[std::string(k) + "_error"]),
                                       fmt::format("install {} for this interpreter", k)));
    }
  }

  auto compat = check_compat(compat_table(), {probe["python"], probe["torch"], probe["torch_npu"], facts["cann_version"]});
  for (const auto& c : compat)
    out.push_back(doctor_finding("env-doctor-compat", c.status == CompatStatus::mismatch ? Severity::error : Severity::info,
                                 fmt::format("{} {}: {}", c.what, to_string(c.status), c.message), compat_suggestion(c),
                                 c.source));

  for (auto& f : check_environment(current_environment(), Purpose::production)) out.push_back(std::move(f));

  report.summary_json = [facts, compat](JsonWriter& w) {
    for (const auto& [k, v] : facts) w.field(k, v);
    w.key("compatibility").begin_array();
    for (const auto& c : compat)
      w.begin_object().field("check", c.what).field("status", to_string(c.status)).field("found", c.found)
          .field("expected", c.expected).field("source", c.source).field("message", c.message).end_object();
    w.end_array();
  };
  std::string text = "Installation\n";
  for (const auto& [k, v] : facts) text += fmt::format("  {:<18} {}\n", k, v.empty() ? "-" : v);
  text += "Compatibility (data/env/compat.toml)\n";
  for (const auto& c : compat)
    text += fmt::format("  {:<7} {:<9} {}{}\n", c.what, to_string(c.status), c.message,
                        c.status == CompatStatus::mismatch ? fmt::format(" [{}]", c.source) : "");
  report.summary_text = text;
  return report;
}

}  // namespace banjia::env
