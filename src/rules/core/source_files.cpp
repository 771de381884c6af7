#include "rules/core/source_files.h"

#include <array>

namespace banjia::rules {

namespace {

bool ends_with_any(std::string_view name, std::initializer_list<std::string_view> tails) {
  for (auto t : tails)
    if (name.ends_with(t)) return true;
  return false;
}

}  // namespace


std::string_view to_string(FileKind k) {
  switch (k) {
    case FileKind::python: return "python";
    case FileKind::shell: return "shell";
    case FileKind::cuda_source: return "cuda-source";
    case FileKind::dependency_list: return "dependency-list";
    case FileKind::config: return "config";
    case FileKind::other: return "other";
  }
  return "other";
}

DependencyFile dependency_file_kind(std::string_view name) {
  if (name == "setup.py") return DependencyFile::setup_py;
  if (name == "pyproject.toml") return DependencyFile::pyproject_toml;
  if (name.starts_with("requirements") && name.ends_with(".txt")) return DependencyFile::requirements_txt;
  return DependencyFile::none;
}

std::optional<ConfigFormat> config_format(std::string_view name) {
  // Files of other tools that happen to be JSON/YAML/TOML: package managers' manifests and lockfiles,
  // TypeScript and editor settings. Their values are never device settings of a training run.
  static constexpr std::array<std::string_view, 8> kNotConfigs = {
      "package.json", "package-lock.json", "composer.json", "jsconfig.json", "pnpm-lock.yaml",
      "pyproject.toml", "Pipfile.lock", ".eslintrc.json"};
  for (auto n : kNotConfigs)
    if (name == n) return std::nullopt;
  if (name.starts_with("tsconfig") || ends_with_any(name, {"-lock.json", ".lock.json", "-lock.yaml", ".lock.yaml"}))
    return std::nullopt;
  if (ends_with_any(name, {".yaml", ".yml"})) return ConfigFormat::yaml;
  if (name.ends_with(".json")) return ConfigFormat::json;
  if (name.ends_with(".toml")) return ConfigFormat::toml;
  return std::nullopt;
}

FileKind classify_file(std::string_view name) {
  const size_t dot = name.rfind('.');
  // As std::filesystem::path::extension(): none for a name that starts with its only dot (".bashrc").
  const std::string_view ext = dot == std::string_view::npos || dot == 0 ? std::string_view() : name.substr(dot);
  if (ext == ".py" || ext == ".pyi") return FileKind::python;
  if (ext == ".sh" || ext == ".bash") return FileKind::shell;
  if (ext == ".cu" || ext == ".cuh" || ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".h" ||
      ext == ".hpp")
    return FileKind::cuda_source;
  if (dependency_file_kind(name) != DependencyFile::none) return FileKind::dependency_list;
  if (config_format(name)) return FileKind::config;
  return FileKind::other;
}

Finding input_error_finding(const std::string& file, const std::string& problem, int line, int column) {
  Finding f;
  f.file = file;
  f.line = line;
  f.column = column;
  f.end_line = line;
  f.end_column = column;
  f.rule = "input-error";
  f.category = "input";
  f.severity = Severity::error;
  f.fix = FixKind::manual;
  f.message = problem;
  f.source = "banjia : src/rules/core/source_files.cpp (input validation)";
  return f;
}

}  // namespace banjia::rules
