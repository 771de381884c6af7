// What the migrate tests of single files share: one file migrated for a target, as `banjia migrate`
// would (import insertion off unless asked: it has tests of its own).
#pragma once
#include <string>
#include <string_view>

#include "migrate/python_rewriter.h"
#include "rules/core/catalog.h"

namespace banjia::testing {

inline migrate::FileRewrite rewrite_file(const std::string& src, std::string_view target = rules::kTargetNpu,
                                         bool insert_import = false) {
  migrate::RewriteOptions o;
  o.insert_import = insert_import;
  o.target = std::string(target);
  return migrate::rewrite_python(src, "t.py", *rules::RuleCatalog::for_target(target), o);
}

}  // namespace banjia::testing
