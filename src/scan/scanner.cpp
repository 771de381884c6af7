#include "scan/scanner.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/thread_pool.h"
#include "env/knowledge_base.h"
#include "scan/cuda_source_scanner.h"
#include "scan/python_scanner.h"
#include "scan/requirements_scanner.h"
#include "scan/shell_scanner.h"

namespace banjia::scan {
namespace fs = std::filesystem;

std::string_view to_string(FileKind k) {
  switch (k) {
    case FileKind::python: return "python";
    case FileKind::shell: return "shell";
    case FileKind::cuda_source: return "cuda-source";
    case FileKind::dependency_list: return "dependency-list";
    case FileKind::other: return "other";
  }
  return "other";
}

FileKind classify_file(const fs::path& path) {
  std::string name = path.filename().string();
  std::string ext = path.extension().string();
  if (ext == ".py" || ext == ".pyi") return FileKind::python;
  if (ext == ".sh" || ext == ".bash") return FileKind::shell;
  if (ext == ".cu" || ext == ".cuh" || ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".h" ||
      ext == ".hpp")
    return FileKind::cuda_source;
  if (dependency_file_kind(name) != DependencyFile::none) return FileKind::dependency_list;
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
  f.source = "banjia : src/scan/scanner.cpp (input validation)";
  return f;
}

void scan_buffer(std::string_view bytes, FileKind kind, const std::string& display, const RuleCatalog& rules,
                 std::vector<Finding>& out) {
  try {
    switch (kind) {
      case FileKind::python:
        scan_python(bytes, display, rules, out);
        // setup.py is also a dependency list.
        if (fs::path(display).filename() == "setup.py")
          scan_dependency_file(bytes, DependencyFile::setup_py, display, rules, out);
        break;
      case FileKind::shell: scan_shell(bytes, display, rules, out); break;
      case FileKind::cuda_source: scan_cuda_source(bytes, display, rules, out); break;
      case FileKind::dependency_list:
        scan_dependency_file(bytes, dependency_file_kind(fs::path(display).filename().string()), display, rules, out);
        break;
      case FileKind::other: break;
    }
  } catch (const InputError& e) {
    out.push_back(input_error_finding(display, e.problem()));
  }
}

namespace {
bool selected(const Finding& f, const ScanOptions& o) {
  auto in = [&](const std::vector<std::string>& list) {
    return std::find(list.begin(), list.end(), f.rule) != list.end() ||
           std::find(list.begin(), list.end(), f.category) != list.end();
  };
  if (f.rule == "input-error") return true;  // never hide that a file was not scanned
  if (!o.select.empty() && !in(o.select)) return false;
  return !in(o.ignore);
}
}  // namespace

namespace {
// Parsing the built-in rule catalogue and the environment knowledge base (TOML, a few milliseconds
// each) does not depend on the walk: for a tree scan with more than one thread it runs on its own
// thread while the directories are read, instead of before the walk or inside the first worker.
std::jthread warm_up_knowledge(const std::vector<std::string>& paths, const ScanOptions& options) {
  if (options.rules || worker_count(options.threads) < 2) return {};
  std::error_code ec;
  if (std::none_of(paths.begin(), paths.end(), [&](const std::string& p) { return fs::is_directory(p, ec); }))
    return {};
  return std::jthread([] {
    try {
      (void)RuleCatalog::builtin();
      (void)env::cuda_name_pairs();
    } catch (...) {
      // The workers load them again and report the problem where it matters.
    }
  });
}
}  // namespace

ScanResult scan_paths(const std::vector<std::string>& paths, const ScanOptions& options) {
  std::jthread warm_up = warm_up_knowledge(paths, options);  // joins even if the walk throws
  WalkOptions wo;
  wo.exclude_globs = options.exclude_globs;
  wo.keep = [](const fs::path& p) { return classify_file(p) != FileKind::other; };
  WalkResult walked = walk_paths(paths, wo);
  if (warm_up.joinable()) warm_up.join();
  const RuleCatalog& rules = options.rules ? *options.rules : RuleCatalog::builtin();

  ScanResult result;
  for (const auto& p : walked.problems) {
    // A missing command-line path is a usage error; problems found while walking are per-item.
    if (std::find(paths.begin(), paths.end(), p.path) != paths.end()) throw InputError(p.path, p.problem);
    result.findings.push_back(input_error_finding(p.path, p.problem));
    ++result.file_errors;
  }

  std::vector<std::vector<Finding>> per_file(walked.files.size());
  std::vector<size_t> sizes(walked.files.size(), 0);
  std::atomic<size_t> done{0};
  parallel_for(walked.files.size(), worker_count(options.threads), [&](size_t i) {
    const auto& wf = walked.files[i];
    FileKind kind = classify_file(wf.path);
    if (kind == FileKind::other) kind = FileKind::python;  // a file named explicitly: treat as Python
    try {
      thread_local std::string buffer;  // grows to the largest file; no allocation or zeroing per file
      std::string_view bytes = read_file_into(wf.path, buffer);
      sizes[i] = bytes.size();
      scan_buffer(bytes, kind, wf.display, rules, per_file[i]);
    } catch (const InputError& e) {
      per_file[i].push_back(input_error_finding(wf.display, e.problem()));
    }
    size_t d = done.fetch_add(1) + 1;
    if (options.progress) options.progress(d, walked.files.size());
  });

  for (size_t i = 0; i < walked.files.size(); ++i) {
    switch (classify_file(walked.files[i].path)) {
      case FileKind::python: ++result.files.python; break;
      case FileKind::shell: ++result.files.shell; break;
      case FileKind::cuda_source: ++result.files.cuda_source; break;
      case FileKind::dependency_list: ++result.files.dependency_list; break;
      case FileKind::other: ++result.files.python; break;
    }
    result.files.bytes += sizes[i];
    for (auto& f : per_file[i]) {
      if (f.rule == "input-error") ++result.file_errors;
      if (selected(f, options)) result.findings.push_back(std::move(f));
    }
  }
  std::stable_sort(result.findings.begin(), result.findings.end(), finding_less);
  return result;
}

}  // namespace banjia::scan
