#include "migrate/tree_migrator.h"

#include <algorithm>
#include <mutex>
#include <set>
#include <sys/stat.h>
#include <system_error>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/file_walk.h"
#include "common/memory_policy.h"
#include "common/thread_pool.h"
#include "common/version.h"
#include "migrate/config_rewriter.h"
#include "migrate/distributed.h"
#include "migrate/in_place_writer.h"
#include "migrate/output_tree.h"
#include "migrate/shell_rewriter.h"
#include "migrate/shim_files.h"
#include "migrate/source_tree.h"
#include "rules/core/catalog.h"
#include "rules/core/source_files.h"

namespace banjia::migrate {
namespace fs = std::filesystem;

namespace {

bool is_within(const fs::path& inner, const fs::path& outer) {
  auto in = fs::weakly_canonical(inner), out = fs::weakly_canonical(outer);
  auto [a, b] = std::mismatch(out.begin(), out.end(), in.begin(), in.end());
  return a == out.end();
}

// Where `migrate FILE -o OUT` writes: into OUT when it is a directory (or has no extension, as a
// directory to be made), else OUT itself.
struct SingleFileDestination {
  fs::path directory;
  std::string name;
};
SingleFileDestination single_file_destination(const MigrateOptions& o) {
  fs::path out(*o.output), src(o.source);
  std::error_code ec;
  struct stat st{};
  const bool exists = ::lstat(out.c_str(), &st) == 0;
  if (fs::is_directory(out, ec) || (!exists && out.extension().empty())) return {out, src.filename().string()};
  return {out.parent_path().empty() ? fs::path(".") : out.parent_path(), out.filename().string()};
}

// `migrate FILE -o DEST`: DEST must not be FILE, and an existing DEST is replaced only with --force
// (a link there is replaced, never written through).
void check_single_file_destination(const MigrateOptions& o) {
  SingleFileDestination d = single_file_destination(o);
  fs::path dest = d.directory / d.name;
  struct stat out_st{}, src_st{};
  if (::stat(dest.c_str(), &out_st) == 0 && ::stat(o.source.c_str(), &src_st) == 0 && out_st.st_dev == src_st.st_dev &&
      out_st.st_ino == src_st.st_ino)
    throw InputError(dest.string(), "is the file being migrated; choose another output (or use --in-place)");
  if (::lstat(dest.c_str(), &out_st) != 0) return;
  if (S_ISDIR(out_st.st_mode)) throw InputError(dest.string(), "is a directory");
  if (o.write && !o.force)
    throw InputError(dest.string(), std::string(S_ISLNK(out_st.st_mode) ? "is a symbolic link" : "exists") +
                                        "; use --force to replace it (a link is replaced, not written through)");
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

Finding input_error(const std::string& file, const std::string& problem) {
  return Finding{file, 0, 0, 0, 0, "input-error", "input", Severity::error, FixKind::manual, problem, std::nullopt,
                 "banjia : src/migrate/tree_migrator.cpp", {}, {}, std::nullopt};
}

PlannedFile skipped_file(const std::filesystem::path& path, const std::string& relative, const std::string& problem) {
  PlannedFile pf;
  pf.source_path = path;
  pf.relative = relative;
  pf.kind = PlannedFile::Kind::skipped;
  pf.rewrite.display = relative;
  pf.rewrite.leftovers.push_back(input_error(relative, problem));
  return pf;
}

// Every entry under `root` (source_tree.h), as planned files; what could not be read is a skipped
// file whose leftover names the problem, so that it counts as an error.
void collect(const fs::path& root, const MigrateOptions& o, MigratePlan& plan, std::vector<fs::path>& stale_temps) {
  SourceTree tree = walk_source_tree(root, o.exclude_globs);
  stale_temps = std::move(tree.stale_temps);
  for (const auto& p : tree.problems) plan.files.push_back(skipped_file(root / p.relative, p.relative, p.problem));
  for (auto& e : tree.entries) {
    if (e.type == SourceEntry::Type::other) {
      // A FIFO, socket or device has no content to copy (reading a FIFO waits for a writer); in place
      // it is left where it is, and only matters where it stands for a source file.
      if (o.output) plan.files.push_back(skipped_file(e.path, e.relative, "a " + e.other_kind + ", not a regular file: not copied"));
      else if (rewriter_for(e.path) != Rewriter::none)
        plan.files.push_back(skipped_file(e.path, e.relative, "a " + e.other_kind + ", not a regular file: not examined"));
      continue;
    }
    PlannedFile pf;
    pf.source_path = std::move(e.path);
    pf.relative = std::move(e.relative);
    if (e.type == SourceEntry::Type::symlink) pf.kind = PlannedFile::Kind::symlink;
    else if (!e.excluded && rewriter_for(pf.source_path) != Rewriter::none) pf.kind = PlannedFile::Kind::rewrite;
    plan.files.push_back(std::move(pf));
  }
  std::stable_sort(plan.files.begin(), plan.files.end(), [](const auto& a, const auto& b) { return a.relative < b.relative; });
}

// The temporary files an interrupted in-place run on the single file `src` may have left beside it:
// its own and its backup's.
std::vector<fs::path> stale_temps_of(const fs::path& src, const MigrateOptions& o) {
  std::vector<fs::path> out;
  const std::string name = src.filename().string();
  std::error_code ec;
  fs::path dir = src.parent_path().empty() ? fs::path(".") : src.parent_path();
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string entry = it->path().filename().string();
    if (is_banjia_temp_name_for(entry, name) || (o.backup && is_banjia_temp_name_for(entry, name + o.backup_suffix)))
      out.push_back(it->path());
  }
  return out;
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
    pf.seeds = std::move(seeds);
    pf.rewrite = rewrite_python(pf.rewrite.original, pf.relative, rules, o.rewrite, &*pf.seeds, &pf.directory);
  }
}

// Which Python files lie in a package (a directory with `__init__.py`): they import the shims beside
// them relatively. `tree`: the planned files of a tree; else the single file, looked up on disk.
void mark_packages(MigratePlan& plan, bool tree) {
  std::set<std::string> packages;
  for (const auto& pf : plan.files) {
    const std::string& r = pf.relative;
    if (pf.kind != PlannedFile::Kind::skipped && (r == "__init__.py" || r.ends_with("/__init__.py")))
      packages.insert(r.substr(0, r.size() - std::string_view("__init__.py").size()));
  }
  std::error_code ec;
  for (auto& pf : plan.files) {
    if (tree) pf.directory.is_package = packages.contains(pf.relative.substr(0, pf.relative.rfind('/') + 1));
    else pf.directory.is_package = fs::exists(pf.source_path.parent_path() / "__init__.py", ec);
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
  if (o.in_place && o.backup)
    if (auto problem = backup_suffix_problem(o.backup_suffix); !problem.empty()) throw InputError(o.backup_suffix, problem);
  if (o.output) {
    fs::path out(*o.output);
    if (!fs::is_directory(src, ec)) check_single_file_destination(o);
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
  const bool tree = fs::is_directory(src, ec);
  if (o.in_place && o.write) {
    fs::path parent = src.parent_path().empty() ? fs::path(".") : src.parent_path();
    plan.lock = TreeLock::acquire(tree ? src : parent, "banjia migrate --in-place");
  }
  if (tree) {
    std::vector<fs::path> stale_temps;
    collect(src, o, plan, stale_temps);
    if (o.in_place && o.write) plan.stale_temps_removed = remove_stale_temps(stale_temps);
  } else {
    if (o.in_place && o.write) plan.stale_temps_removed = remove_stale_temps(stale_temps_of(src, o));
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
  mark_packages(plan, tree);
  parallel_for(todo.size(), worker_count(o.threads), [&](size_t k) {
    PlannedFile& pf = plan.files[todo[k]];
    std::string bytes;
    try {
      bytes = read_file(pf.source_path, rules::kMaxSourceFileBytes, pf.read_as);
    } catch (const InputError& e) {
      // Found by the walk, gone when read: another program deleted it while this run went on.
      std::error_code gone_ec;
      const bool gone = !fs::exists(fs::symlink_status(pf.source_path, gone_ec));
      pf.rewrite.display = pf.relative;
      pf.rewrite.leftovers.push_back(input_error(pf.relative, gone ? "deleted during the run: not migrated" : e.problem()));
      pf.kind = PlannedFile::Kind::copy;
      return;
    }
    const Rewriter rewriter = rewriter_for(pf.source_path);
    if (is_banjia_shim(pf.source_path.filename().string(), bytes))
      pf.kind = PlannedFile::Kind::copy;  // migrated already: the imports that use it need it as it is
    else if (rewriter == Rewriter::python)
      pf.rewrite = rewrite_python(bytes, pf.relative, rules, o.rewrite, nullptr, &pf.directory);
    else if (rewriter == Rewriter::config)
      pf.rewrite = rewrite_config(bytes, pf.relative, rules);
    else if (o.rewrite.target == rules::kTargetNpu)
      pf.rewrite = rewrite_shell(bytes, pf.relative, o.target_torch_npu);
    else
      pf.rewrite = report_shell(bytes, pf.relative, rules);
  });
  resolve_across_modules(plan, todo, rules, o);
  // Where the shims of a directory go: beside the files in SRC, or in the directory a single file is
  // written to.
  const fs::path single_dir = o.output ? single_file_destination(o).directory
                                       : (src.parent_path().empty() ? fs::path(".") : src.parent_path());
  plan_shims(
      plan, rules, [&](const std::string& dir) { return tree ? src / dir : single_dir; },
      [&](PlannedFile& pf) {
        pf.rewrite = rewrite_python(pf.rewrite.original, pf.relative, rules, o.rewrite, pf.seeds ? &*pf.seeds : nullptr, &pf.directory);
      });
  if (o.distributed)
    plan_distributed(plan, o.rewrite.target, [&](const std::string& dir) { return tree ? src / dir : single_dir; });
  return plan;
}

namespace {

// Writes one planned file to OUT: new files, written without a per-file fsync; write_migration
// flushes the filesystem once at the end. In place, see in_place_writer.h.
void write_one(const PlannedFile& pf, const MigrateOptions& o, bool single_file, InPlaceWriter& in_place,
               OutputTree* out, const std::set<std::string>& missing_shims) {
  if (pf.kind == PlannedFile::Kind::skipped) return;
  for (const auto& shim : pf.rewrite.shims)
    if (const std::string path = shim_path_beside(pf.relative, shim); missing_shims.contains(path))
      throw InputError(pf.relative, "its imports need " + path + ", which could not be created");
  if (o.in_place) {
    if (pf.kind != PlannedFile::Kind::rewrite || !pf.rewrite.changed()) return;
    std::string problem = in_place.replace({pf.source_path, pf.read_as, pf.rewrite.original, pf.rewrite.rewritten});
    if (!problem.empty()) throw InputError(pf.relative, problem);
    return;
  }
  struct stat st{};
  mode_t mode = ::lstat(pf.source_path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0644;
  const std::string dest = single_file ? single_file_destination(o).name : pf.relative;
  if (pf.kind == PlannedFile::Kind::symlink) {
    std::error_code ec;
    fs::path target = fs::read_symlink(pf.source_path, ec);
    if (ec) throw InputError(pf.relative, "cannot read symlink: " + ec.message());
    out->write_symlink(dest, target);
  } else if (pf.kind == PlannedFile::Kind::shim) {
    out->write_file(pf.relative, pf.rewrite.rewritten, 0644);  // beside the file, whatever name that got
  } else if (pf.kind == PlannedFile::Kind::rewrite) {
    out->write_file(dest, pf.rewrite.rewritten, mode);
  } else {
    out->copy_file(dest, pf.source_path, mode);
  }
}

}  // namespace

std::vector<WriteError> write_migration(const MigratePlan& plan, const MigrateOptions& o) {
  std::vector<WriteError> errors;
  if (!o.write) return errors;
  bool single_file = !fs::is_directory(fs::path(o.source));
  std::unique_ptr<OutputTree> out;
  if (o.output) {
    // Created even for an empty tree: the run promised OUT.
    try {
      out = std::make_unique<OutputTree>(single_file ? single_file_destination(o).directory : fs::path(*o.output));
    } catch (const InputError& e) {
      return {{e.file(), e.problem()}};
    }
  }
  std::mutex errors_mutex;
  InPlaceWriter in_place(o.backup ? std::optional<std::string>(o.backup_suffix) : std::nullopt);
  // In place, the shims come first, each a new file: a file whose imports are redirected to one is
  // replaced only once its shim is there.
  std::set<std::string> missing_shims;
  for (size_t i = 0; o.in_place && i < plan.files.size(); ++i) {
    const PlannedFile& pf = plan.files[i];
    if (pf.kind != PlannedFile::Kind::shim) continue;
    const fs::path beside = single_file ? fs::path(o.source).parent_path() : fs::path(o.source);
    if (std::string problem = in_place.create(beside / pf.relative, pf.rewrite.rewritten); !problem.empty()) {
      errors.push_back({pf.relative, problem, i});
      missing_shims.insert(pf.relative);
    }
  }
  // Files are independent: write them in parallel (I/O overlaps), collect errors per file.
  parallel_for(plan.files.size(), worker_count(o.threads), [&](size_t i) {
    const PlannedFile& pf = plan.files[i];
    if (o.in_place && pf.kind == PlannedFile::Kind::shim) return;  // created above
    WriteError err;
    try {
      write_one(pf, o, single_file, in_place, out.get(), missing_shims);
      return;
    } catch (const InputError& e) {
      // The file is named by its place in SRC; a problem elsewhere (a directory of OUT) says where.
      const bool elsewhere = !e.file().empty() && e.file() != pf.relative;
      err = {pf.relative, elsewhere ? e.file() + ": " + e.problem() : e.problem(), i};
    } catch (const fs::filesystem_error& e) {
      err = {pf.relative, e.code().message(), i};
    }
    std::lock_guard lock(errors_mutex);
    errors.push_back(std::move(err));
  });
  for (auto& [dir, problem] : in_place.finish()) errors.push_back({dir, problem});
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
