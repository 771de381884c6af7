#include "scan/scanner.h"

#include <algorithm>
#include <atomic>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/memory_policy.h"
#include "common/thread_pool.h"
#include "rules/sources/config_scanner.h"
#include "rules/sources/cuda_source_scanner.h"
#include "rules/sources/python_scanner.h"
#include "rules/sources/requirements_scanner.h"
#include "rules/sources/shell_scanner.h"

namespace banjia::scan {
using namespace rules;  // the engine this front-end drives
namespace fs = std::filesystem;

void scan_buffer(std::string_view bytes, FileKind kind, const std::string& display, const RuleCatalog& rules,
                 std::vector<Finding>& out, const TreeContext* tree) {
  try {
    switch (kind) {
      case FileKind::python:
        scan_python(bytes, display, rules, out, tree);
        // setup.py is also a dependency list.
        if (fs::path(display).filename() == "setup.py")
          scan_dependency_file(bytes, DependencyFile::setup_py, display, rules, out);
        break;
      case FileKind::shell: scan_shell(bytes, display, rules, out); break;
      case FileKind::cuda_source: scan_cuda_source(bytes, display, rules, out); break;
      case FileKind::dependency_list:
        scan_dependency_file(bytes, dependency_file_kind(fs::path(display).filename().string()), display, rules, out);
        break;
      case FileKind::config: scan_config(bytes, display, rules, out); break;
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
  if (f.category == "input") return true;  // never hide that a file was not (or not wholly) scanned
  if (!o.select.empty() && !in(o.select)) return false;
  return !in(o.ignore);
}
}  // namespace

namespace {
// One file of a tree scan: found by the walk, then scanned by a worker.
struct ScannedFile {
  WalkedFile file;
  FileKind kind = FileKind::other;
  size_t bytes = 0;
  std::vector<Finding> findings;
  TreeQuestions questions;  // device values only the other files can resolve (tree_flow.h)
};

// Files whose device values other modules of the tree resolve are scanned again with what the tree
// knows (as migrate does: both report the same). Only files with such questions cost anything here.
void resolve_across_modules(std::deque<ScannedFile>& files, const RuleCatalog& rules) {
  std::vector<TreeFile> tree;
  std::vector<TreeQuestions> questions;
  std::vector<ScannedFile*> scanned;
  bool any = false;
  for (auto& sf : files) {
    if (sf.kind != FileKind::python) continue;
    tree.push_back({sf.file.display, sf.file.path});
    questions.push_back(std::move(sf.questions));
    scanned.push_back(&sf);
    any = any || !questions.back().empty();
  }
  if (!any) return;
  for (auto& [k, seeds] : answer_tree_questions(tree, questions)) {
    ScannedFile& sf = *scanned[k];
    TreeContext ctx{&seeds, nullptr};
    std::vector<Finding> findings;
    try {
      std::string bytes = read_file(sf.file.path, kMaxSourceFileBytes);
      scan_buffer(bytes, sf.kind, sf.file.display, rules, findings, &ctx);
    } catch (const InputError&) {
      continue;  // the first pass's findings stand
    }
    sort_findings(findings);
    sf.findings = std::move(findings);
  }
}
}  // namespace

ScanResult scan_paths(const std::vector<std::string>& paths, const ScanOptions& options) {
  // Each worker's token, view and name buffers grow to the largest file it has seen and are reused;
  // they, the findings and the report come from one heap on huge pages (before the workers start).
  back_heap_with_huge_pages();
  WalkOptions wo;
  wo.exclude_globs = options.exclude_globs;
  wo.keep = [](std::string_view name) { return classify_file(name) != FileKind::other; };
  WalkResult walked;
  std::atomic<size_t> found{0}, done{0};
  // The walk runs on this thread while the workers scan the files it has found so far: the workers'
  // first file also loads the rule catalogue (a few milliseconds), which overlaps the walk too.
  std::deque<ScannedFile> files = parallel_stream<ScannedFile>(
      worker_count(options.threads),
      [&](auto&& emit) {
        wo.on_file = [&](WalkedFile&& f) {
          found.fetch_add(1, std::memory_order_relaxed);
          emit(ScannedFile{std::move(f)});
        };
        walked = walk_paths(paths, wo);
      },
      [&](size_t, ScannedFile& sf) {
        const RuleCatalog& rules = options.rules ? *options.rules : RuleCatalog::builtin();
        const std::string& path = sf.file.path.native();
        sf.kind = classify_file(std::string_view(path).substr(path.rfind('/') + 1));
        if (sf.kind == FileKind::other) sf.kind = FileKind::python;  // a file named explicitly: treat as Python
        try {
          thread_local std::string buffer;  // grows to the largest file; no allocation or zeroing per file
          std::string_view bytes = read_file_into(sf.file.path, buffer, kMaxSourceFileBytes);
          sf.bytes = bytes.size();
          TreeContext tree{nullptr, &sf.questions};
          scan_buffer(bytes, sf.kind, sf.file.display, rules, sf.findings, &tree);
          sort_findings(sf.findings);  // here, in parallel, so that the merged list is usually in order
        } catch (const InputError& e) {
          sf.findings.push_back(input_error_finding(sf.file.display, e.problem()));
        }
        size_t d = done.fetch_add(1) + 1;
        if (options.progress) options.progress(d, found.load(std::memory_order_relaxed));
      });

  resolve_across_modules(files, options.rules ? *options.rules : RuleCatalog::builtin());
  ScanResult result;
  for (const auto& p : walked.problems) {
    // A missing command-line path is a usage error; problems found while walking are per-item.
    if (std::find(paths.begin(), paths.end(), p.path) != paths.end()) throw InputError(p.path, p.problem);
    result.findings.push_back(input_error_finding(p.path, p.problem));
    ++result.file_errors;
  }
  for (ScannedFile& sf : files) {
    switch (sf.kind) {
      case FileKind::python: ++result.files.python; break;
      case FileKind::shell: ++result.files.shell; break;
      case FileKind::cuda_source: ++result.files.cuda_source; break;
      case FileKind::dependency_list: ++result.files.dependency_list; break;
      case FileKind::config: ++result.files.config; break;
      case FileKind::other: ++result.files.python; break;
    }
    result.files.bytes += sf.bytes;
    for (auto& f : sf.findings) {
      if (f.rule == "input-error") ++result.file_errors;
      if (f.rule == "input-skipped") ++result.files_skipped;
      if (selected(f, options)) result.findings.push_back(std::move(f));
    }
  }
  sort_findings(result.findings);
  return result;
}

}  // namespace banjia::scan
