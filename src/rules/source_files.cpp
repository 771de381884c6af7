#include "rules/source_files.h"

#include "rules/config_document.h"
#include "rules/requirements_scanner.h"

namespace banjia::rules {

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
  f.source = "banjia : src/rules/source_files.cpp (input validation)";
  return f;
}

}  // namespace banjia::rules
