#include "migrate/shim_files.h"

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>
#include <sys/stat.h>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/file_io.h"
#include "rules/core/catalog.h"
#include "rules/kinds/shim_import.h"

namespace banjia::migrate {
namespace fs = std::filesystem;

namespace {

std::string parent_of(const std::string& relative) {
  const size_t slash = relative.rfind('/');
  return slash == std::string::npos ? std::string() : relative.substr(0, slash);
}

std::string joined(const std::string& dir, const std::string& name) { return dir.empty() ? name : dir + "/" + name; }

// What stands where the shim `module` would go in `dir`: nothing, banjia's shim (same bytes), or
// something else: a file of its name with other bytes, a link, a package of its name (which `import
// module` would find first).
enum class Spot { free, ours, other };
Spot spot_in(const fs::path& dir, const std::string& module, std::string_view bytes) {
  struct stat st{};
  if (::lstat((dir / module / "__init__.py").c_str(), &st) == 0) return Spot::other;
  const fs::path file = dir / (module + ".py");
  if (::lstat(file.c_str(), &st) != 0) return errno == ENOENT || errno == ENOTDIR ? Spot::free : Spot::other;
  if (!S_ISREG(st.st_mode) || static_cast<size_t>(st.st_size) != bytes.size()) return Spot::other;
  try {
    return read_file(file, bytes.size()) == bytes ? Spot::ours : Spot::other;
  } catch (const InputError&) {
    return Spot::other;
  }
}

// The rule whose imports are redirected to `module`, and the library it stands in for (the first
// component of the modules it provides for: flash_attn).
std::pair<std::string, std::string> rule_and_library(const rules::RuleCatalog& rules, const std::string& module) {
  for (const auto& r : rules.rules()) {
    if (r.rewrite != rules::RewriteKind::redirect_import || r.rewrite_as<rules::NameRewrite>().to != module) continue;
    const auto& provides = r.params<rules::ShimImportMatch>().provides;
    const std::string& first = provides.front().first;
    return {r.id, first.substr(0, first.find('.'))};
  }
  return {};
}

using DirectoryShim = std::pair<std::string, std::string>;  // (directory relative to SRC, shim module)

}  // namespace

std::string shim_path_beside(const std::string& relative, const std::string& module) {
  return joined(parent_of(relative), module + ".py");
}

bool is_banjia_shim(std::string_view name, std::string_view bytes) {
  if (!name.ends_with(".py")) return false;
  const auto shim = rules::shim_source(name.substr(0, name.size() - 3));
  return shim && *shim == bytes;
}

void plan_shims(MigratePlan& plan, const rules::RuleCatalog& rules, const ShimDirectory& on_disk, const RewriteAgain& again) {
  std::map<DirectoryShim, std::string> blocked;  // why the shim cannot go there
  std::set<DirectoryShim> free, examined;
  for (const PlannedFile& pf : plan.files) {
    if (pf.kind != PlannedFile::Kind::rewrite) continue;
    for (const std::string& shim : pf.rewrite.shims) {
      const DirectoryShim at{parent_of(pf.relative), shim};
      if (!examined.insert(at).second) continue;
      // A script's directory comes first on sys.path: a module there named as the library is what
      // its imports import, the project's own code, not the library.
      const std::string library = rule_and_library(rules, shim).second;
      if (!pf.directory.is_package && spot_in(on_disk(at.first), library, "") != Spot::free) {
        blocked[at] = fmt::format("{} is this project's own module {}, not the library", joined(at.first, library + ".py"), library);
        continue;
      }
      switch (spot_in(on_disk(at.first), shim, rules::shim_source(shim).value_or(""))) {
        case Spot::free: free.insert(at); break;
        case Spot::ours: break;  // in place already, or copied with the tree
        case Spot::other: blocked[at] = joined(at.first, shim + ".py") + " exists and is not banjia's shim"; break;
      }
    }
  }
  // The files of a directory that cannot take a shim keep their imports of the library.
  for (PlannedFile& pf : plan.files) {
    if (pf.kind != PlannedFile::Kind::rewrite) continue;
    bool changed = false;
    for (const std::string& shim : pf.rewrite.shims)
      if (auto it = blocked.find({parent_of(pf.relative), shim}); it != blocked.end()) {
        pf.directory.blocked_shims.emplace_back(shim, it->second);
        changed = true;
      }
    if (changed) again(pf);
  }
  std::vector<PlannedFile> shims;
  std::set<DirectoryShim> planned;
  for (const PlannedFile& pf : plan.files) {
    if (pf.kind != PlannedFile::Kind::rewrite) continue;
    for (const std::string& shim : pf.rewrite.shims) {
      const DirectoryShim at{parent_of(pf.relative), shim};
      if (!free.contains(at) || !planned.insert(at).second) continue;
      PlannedFile s;
      s.kind = PlannedFile::Kind::shim;
      s.relative = shim_path_beside(pf.relative, shim);
      s.rewrite.display = s.relative;
      s.rewrite.rewritten = std::string(rules::shim_source(shim).value_or(""));
      std::tie(s.shim_rule, s.shim_library) = rule_and_library(rules, shim);
      shims.push_back(std::move(s));
    }
  }
  if (shims.empty()) return;
  for (auto& s : shims) plan.files.push_back(std::move(s));
  std::stable_sort(plan.files.begin(), plan.files.end(), [](const auto& a, const auto& b) { return a.relative < b.relative; });
}

}  // namespace banjia::migrate
