#include "env/analysis/checker.h"

#include <set>

#include <fmt/format.h>

#include "env/analysis/translate.h"

namespace banjia::env {
namespace {

Purpose purpose_from(const std::vector<std::string>& directives, Purpose fallback) {
  for (const auto& d : directives) {
    if (d == "purpose=debug") return Purpose::debug;
    if (d == "purpose=production") return Purpose::production;
  }
  return fallback;
}

// The advisor's ASCEND_GLOBAL_LOG_LEVEL rule repeats what the debug-only rule already said.
void drop_repeated_advice(std::vector<Finding>& findings) {
  auto subject = [](const Finding& f) { return f.message.substr(0, f.message.find('=')); };
  std::vector<bool> repeated(findings.size(), false);
  for (size_t i = 0; i < findings.size(); ++i) {
    const auto& f = findings[i];
    if (f.rule != "env-advisor") continue;
    for (const auto& g : findings)
      if ((g.rule == "env-debug-in-production" || g.rule == "env-debug-setting" || g.rule == "env-invalid-value") &&
          g.file == f.file && g.line == f.line && g.column == f.column && subject(g) == subject(f))
        repeated[i] = true;
  }
  std::vector<Finding> kept;
  for (size_t i = 0; i < findings.size(); ++i)
    if (!repeated[i]) kept.push_back(std::move(findings[i]));
  findings = std::move(kept);
}

// A CUDA name whose Ascend counterpart the file sets to another value is not renamed by env translate
// (the two settings would contradict): its env-cuda-name findings offer no automatic rename either.
void withdraw_contradicting_renames(const ParsedEnvFile& parsed, std::vector<Finding>& findings) {
  const AscendConflicts conflicts(parsed);
  std::map<std::pair<int, int>, const CudaPair*> cuda_at;  // where the file sets a CUDA name
  for (const auto& a : parsed.assignments)
    if (const CudaPair* pair = knowledge_base().cuda_pair(a.name)) cuda_at.emplace(std::pair{a.line, a.column}, pair);
  for (auto& f : findings) {
    if (f.rule != "env-cuda-name" || !f.replacement) continue;
    auto at = cuda_at.find({f.line, f.column});
    const Assignment* ascend = at == cuda_at.end() ? nullptr : conflicts.of_pair(*at->second);
    if (!ascend) continue;
    f.fix = FixKind::manual;
    f.replacement.reset();
    f.suggestion = fmt::format("not renamed: line {} sets {}={} and the two would contradict; keep one of them",
                               ascend->line, at->second->ascend, ascend->value);
  }
}

}  // namespace

std::vector<Finding> check_parsed_file(const std::string& display, const ParsedEnvFile& parsed, Purpose purpose) {
  purpose = purpose_from(parsed.directives, purpose);
  std::vector<Finding> out;
  for (const auto& p : parsed.problems) {
    Site site{display, p.line, p.column};
    out.push_back(make_finding(site, "env-parse-error", Severity::warning,
                               fmt::format("cannot parse: {}", p.message),
                               "assignments inside this construct are not checked; simplify it or check the value by hand",
                               knowledge_base().rule("env-parse-error").source));
  }
  Environment env;
  std::set<std::string> unknown_shell_vars;  // plain NAME=VALUE not (yet) exported: maybe a script variable
  for (const auto& a : parsed.assignments) {
    Site site{display, a.line, a.column};
    if (a.kind == AssignKind::unset) {
      if (!a.scoped) env.erase(a.name);
      continue;
    }
    const VarInfo* v = nullptr;
    if (a.kind == AssignKind::export_only) {
      // The value comes from an earlier line (already checked) or from outside the file.
      if (!env.count(a.name) && !check_known_name(a.name, site, out, &v)) check_unknown_name(a.name, site, out);
      if (unknown_shell_vars.erase(a.name)) check_unknown_name(a.name, site, out);
      continue;
    }
    std::optional<std::string_view> value;
    if (a.has_value && !a.unresolved) value = a.value;
    if (!check_known_name(a.name, site, out, &v, value)) {
      if (a.kind == AssignKind::plain) unknown_shell_vars.insert(a.name);
      else check_unknown_name(a.name, site, out);
    }
    if (v) check_value(*v, a.value, a.unresolved, site, purpose, out);
    if (!a.scoped) env[a.name] = Setting{a.value, a.unresolved, site};
  }
  // Scoped assignments (X=1 cmd, Dockerfile RUN bodies) apply to one command, so they do not enter the
  // file's environment.
  check_cross_rules(env, out);
  withdraw_contradicting_renames(parsed, out);
  drop_repeated_advice(out);
  return out;
}

std::vector<Finding> check_environment(const std::vector<std::string>& entries, Purpose purpose) {
  std::vector<Finding> out;
  Environment env;
  for (const auto& e : entries) {
    size_t eq = e.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    std::string name = e.substr(0, eq), value = e.substr(eq + 1);
    Site site{"(environment)", 0, 0};
    const VarInfo* v = nullptr;
    if (!check_known_name(name, site, out, &v, value)) check_unknown_name(name, site, out);
    if (v) check_value(*v, value, false, site, purpose, out);
    env[name] = Setting{value, false, site};
  }
  check_cross_rules(env, out);
  drop_repeated_advice(out);
  return out;
}

}  // namespace banjia::env
