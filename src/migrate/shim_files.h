// The shim modules migrate writes beside the files whose imports it redirects to them
// (rules/kinds/shim_import.h): one copy of data/shims/<module>.py, byte for byte, in every directory
// that has such a file. A shim is a new file, never written over anything: where the directory
// already has a file of its name with other bytes (or a package of that name), the files there are
// planned again with the shim blocked, and their imports stay, reported with the reason. A file
// that is banjia's shim byte for byte is copied as it is (a second run over a migrated tree).
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "migrate/migrate_plan.h"
#include "rules/core/catalog.h"

namespace banjia::migrate {

// The path of the shim `module` beside the file `relative` (both relative to SRC).
std::string shim_path_beside(const std::string& relative, const std::string& module);

// Whether `name` (a file name) with these bytes is one of banjia's shims, unchanged.
bool is_banjia_shim(std::string_view name, std::string_view bytes);

// Where the shims of the directory `relative` (of SRC, "" for its top) go on disk, as SRC or the
// directory written into has it now: what is checked for a file of the shim's name.
using ShimDirectory = std::function<std::filesystem::path(const std::string& relative)>;
// Plans the file again (with its `directory`, now naming the blocked shims).
using RewriteAgain = std::function<void(PlannedFile&)>;

// Adds a Kind::shim file for every directory and shim the planned files need, after planning again
// the files whose directory cannot take one.
void plan_shims(MigratePlan& plan, const rules::RuleCatalog& rules, const ShimDirectory& on_disk, const RewriteAgain& again);

}  // namespace banjia::migrate
