#include "migrate/tree_migrator.h"

#include <algorithm>
#include <mutex>
#include <sys/stat.h>
#include <system_error>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/file_walk.h"
#include "common/memory_policy.h"
#include "common/thread_pool.h"
#include "common/version.h"
#include "migrate/config_rewriter.h"
#include "migrate/shell_rewriter.h"
#include "rules/catalog.h"
#include "rules/source_files.h"

namespace banjia::migrate {
namespace fs = std::filesystem;

namespace {

bool is_within(const fs::path& inner, const fs::path& outer) {
  auto in = fs::weakly_canonical(inner), out = fs::weakly_canonical(outer);
  auto [a, b] = std::mismatch(out.begin(), out.end(), in.begin(), in.end());
  return a == out.end();
}

bool dir_non_empty(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec) && fs::directory_iterator(p, ec) != fs::directory_iterator();
}

enum class Rewriter { none, python, shell, config };
Rewriter rewriter_for(const fs::path& p) {
  auto ext = p.extension().string();
  if (ext == ".py") return Rewriter::python;
  if (ext == ".sh" || ext == ".bash") return Rewriter::shell;
  if (rules::classify_file(p.filename().string()) == rules::FileKind::config) return Rewriter::config;
  return Rewriter::none;
}

// Every entry under `root` (not following directory symlinks), sorted; VCS metadata is skipped.
void collect(const fs::path& root, const MigrateOptions& o, std::vector<PlannedFile>& out) {
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end;
  if (ec) throw InputError(root.string(), "cannot read directory: " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) throw InputError(it->path().string(), "cannot read directory: " + ec.message());
    const auto& e = *it;
    std::string name = e.path().filename().string();
    std::string rel = e.path().lexically_relative(root).generic_string();
    bool excluded = false;
    for (const auto& g : o.exclude_globs) excluded = excluded || glob_match(g, rel) || glob_match(g, name);
    if (e.is_directory(ec) && !e.is_symlink(ec)) {
      if (name == ".git" || name == ".hg" || name == ".svn" || name == "__pycache__" || excluded)
        it.disable_recursion_pending();
      continue;
    }
    PlannedFile pf;
    pf.source_path = e.path();
    pf.relative = rel;
    if (e.is_symlink(ec)) pf.kind = PlannedFile::Kind::symlink;
    else if (!e.is_regular_file(ec)) continue;  // sockets, fifos, devices: not part of a source tree
    else if (!excluded && rewriter_for(e.path()) != Rewriter::none) pf.kind = PlannedFile::Kind::rewrite;
    out.push_back(std::move(pf));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.relative < b.relative; });
}

}  // namespace

namespace {

// Device values one file leaves unresolved that other modules of the tree resolve (a constant used
// as a device where it is imported, a value passed to a function defined elsewhere): those files are
// rewritten again with what the tree knows. Only files with such questions cost anything here.
void resolve_across_modules(MigratePlan& plan, const std::vector<size_t>& todo, const rules::RuleCatalog& rules,
                            const MigrateOptions& o) {
  std::vector<rules::TreeFile> files;
  std::vector<rules::TreeQuestions> questions;
  std::vector<size_t> plan_index;
  bool any = false;
  for (size_t i : todo) {
    const PlannedFile& pf = plan.files[i];
    if (rewriter_for(pf.source_path) != Rewriter::python) continue;
    files.push_back({pf.relative, pf.source_path});
    questions.push_back(pf.rewrite.questions);
    plan_index.push_back(i);
    any = any || !pf.rewrite.questions.empty();
  }
  if (!any) return;
  for (auto& [k, seeds] : rules::answer_tree_questions(files, questions)) {
    PlannedFile& pf = plan.files[plan_index[k]];
    pf.rewrite = rewrite_python(pf.rewrite.original, pf.relative, rules, o.rewrite, &seeds);
  }
}

}  // namespace

MigratePlan plan_migration(const MigrateOptions& o) {
  fs::path src(o.source);
  std::error_code ec;
  if (!fs::exists(src, ec)) throw InputError(o.source, "no such file or directory");
  // A device or FIFO has no end to copy (/dev/zero) and no file to write back in place.
  if (!fs::is_directory(src, ec) && !fs::is_regular_file(src, ec))
    throw InputError(o.source, "not a regular file or directory");
  if (!o.target_torch_npu.empty() && !is_release_version(o.target_torch_npu))
    throw InputError(o.target_torch_npu, "--target-torch-npu takes a TorchNPU release such as 7.3.0 or 26.1.0");
  if (o.output && o.in_place) throw InputError(o.source, "use either -o OUT or --in-place, not both");
  if (o.write && !o.output && !o.in_place)
    throw InputError(o.source, "say where to write: -o OUT (a new tree) or --in-place (with backups)");
  if (o.output) {
    fs::path out(*o.output);
    if (fs::is_directory(src) && is_within(out, src))
      throw InputError(*o.output, "output directory is inside the source tree; choose a directory outside it");
    if (is_within(src, out)) throw InputError(*o.output, "source tree is inside the output directory");
    if (o.write && dir_non_empty(out) && !o.force)
      throw InputError(*o.output, "output directory exists and is not empty (use --force to write into it)");
    if (o.write && fs::exists(out, ec) && !fs::is_directory(out, ec) && fs::is_directory(src, ec))
      throw InputError(*o.output, "exists and is not a directory");
  }

  back_heap_with_huge_pages();  // as scan: the same per-file buffers (before the workers start)
  MigratePlan plan;
  if (fs::is_directory(src, ec)) {
    collect(src, o, plan.files);
  } else {
    PlannedFile pf;
    pf.source_path = src;
    pf.relative = src.filename().string();
    pf.kind = rewriter_for(src) != Rewriter::none ? PlannedFile::Kind::rewrite : PlannedFile::Kind::copy;
    plan.files.push_back(std::move(pf));
  }
  const rules::RuleCatalog* target_rules = rules::RuleCatalog::for_target(o.rewrite.target);
  if (!target_rules) throw InputError(o.rewrite.target, "--target takes npu or accelerator");
  const auto& rules = *target_rules;
  std::vector<size_t> todo;
  for (size_t i = 0; i < plan.files.size(); ++i)
    if (plan.files[i].kind == PlannedFile::Kind::rewrite) todo.push_back(i);
  plan.rewritable = todo.size();
  parallel_for(todo.size(), worker_count(o.threads), [&](size_t k) {
    PlannedFile& pf = plan.files[todo[k]];
    std::string bytes;
    try {
      bytes = read_file(pf.source_path, rules::kMaxSourceFileBytes);
    } catch (const InputError& e) {
      pf.rewrite.display = pf.relative;
      pf.rewrite.leftovers.push_back(Finding{pf.relative, 0, 0, 0, 0, "input-error", "input", Severity::error,
                                             FixKind::manual, e.problem(), std::nullopt,
                                             "banjia : src/migrate/tree_migrator.cpp", {}, {}, std::nullopt});
      pf.kind = PlannedFile::Kind::copy;
      return;
    }
    const Rewriter rewriter = rewriter_for(pf.source_path);
    if (rewriter == Rewriter::python)
      pf.rewrite = rewrite_python(bytes, pf.relative, rules, o.rewrite);
    else if (rewriter == Rewriter::config)
      pf.rewrite = rewrite_config(bytes, pf.relative, rules);
    else if (o.rewrite.target == rules::kTargetNpu)
      pf.rewrite = rewrite_shell(bytes, pf.relative, o.target_torch_npu);
    else
      pf.rewrite = report_shell(bytes, pf.relative, rules);
  });
  resolve_across_modules(plan, todo, rules, o);
  return plan;
}

namespace {

// Writes one planned file. In place: backup first (durable), then the rewrite (durable). To OUT: new
// files, written without a per-file fsync; write_migration flushes the filesystem once at the end.
void write_one(const PlannedFile& pf, const MigrateOptions& o, bool single_file) {
  struct stat st{};
  mode_t mode = ::lstat(pf.source_path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0644;
  if (o.in_place) {
    if (pf.kind != PlannedFile::Kind::rewrite || !pf.rewrite.changed()) return;
    if (o.backup) {
      fs::path backup = pf.source_path.string() + o.backup_suffix;
      if (fs::exists(fs::symlink_status(backup)))
        throw InputError(backup.string(), "backup already exists; move it away first (it may hold your original)");
      write_file_atomic(backup, pf.rewrite.original, mode);
    }
    write_file_atomic(pf.source_path, pf.rewrite.rewritten, mode);
    return;
  }
  fs::path out(*o.output);
  fs::path dest = single_file && out.extension() != "" ? out : out / pf.relative;
  // `-o out.py` has no parent: create_directories("") would fail with EINVAL.
  if (dest.has_parent_path()) fs::create_directories(dest.parent_path());
  if (pf.kind == PlannedFile::Kind::symlink) {
    std::error_code ec;
    fs::path target = fs::read_symlink(pf.source_path, ec);
    if (ec) throw InputError(pf.relative, "cannot read symlink: " + ec.message());
    fs::remove(dest, ec);
    fs::create_symlink(target, dest, ec);
    if (ec) throw InputError(dest.string(), "cannot create symlink: " + ec.message());
    return;
  }
  std::string bytes = pf.kind == PlannedFile::Kind::rewrite ? pf.rewrite.rewritten : read_file(pf.source_path);
  write_file_atomic(dest, bytes, mode, /*durable=*/false);
}

}  // namespace

std::vector<WriteError> write_migration(const MigratePlan& plan, const MigrateOptions& o) {
  std::vector<WriteError> errors;
  if (!o.write) return errors;
  bool single_file = !fs::is_directory(fs::path(o.source));
  std::mutex errors_mutex;
  // Files are independent: write them in parallel (I/O overlaps), collect errors per file.
  parallel_for(plan.files.size(), worker_count(o.threads), [&](size_t i) {
    const PlannedFile& pf = plan.files[i];
    WriteError err;
    try {
      write_one(pf, o, single_file);
      return;
    } catch (const InputError& e) {
      err = {e.file().empty() ? pf.relative : e.file(), e.problem()};
    } catch (const fs::filesystem_error& e) {
      err = {pf.relative, e.code().message()};
    }
    std::lock_guard lock(errors_mutex);
    errors.push_back(std::move(err));
  });
  std::sort(errors.begin(), errors.end(), [](const auto& a, const auto& b) { return a.file < b.file; });
  if (o.output && errors.empty()) {
    try {
      sync_filesystem(*o.output);
    } catch (const InputError& e) {
      errors.push_back({e.file(), e.problem()});
    }
  }
  return errors;
}

}  // namespace banjia::migrate
