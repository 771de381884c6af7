// Inputs the rewrite fuzzer (fuzz/rewrite_fuzzer.cpp) found to break migrate's guarantees.
#include <gtest/gtest.h>

#include "migrate/python_rewriter.h"
#include "scan/rule_catalog.h"

namespace {

std::string migrated(const std::string& src, bool annotate) {
  banjia::migrate::RewriteOptions o;
  o.annotate = annotate;
  return banjia::migrate::rewrite_python(src, "t.py", banjia::scan::RuleCatalog::builtin(), o).rewritten;
}

// `import torch; <more>` used to get `import torch_npu` on a new line in front of <more>, moving <more>
// to the next line away from its `# banjia:` annotation: a second migrate annotated it again.
TEST(RewriteFuzzRegression, ImportFollowedBySemicolonStaysOnItsLine) {
  const std::string src = "import torch as th; th.cuda.synutocast()\nx = th.randn(2).cuda()\n";
  EXPECT_EQ(migrated(src, false),
            "import torch as th; import torch_npu; th.cuda.synutocast()\nx = th.randn(2).npu()\n");
  for (bool annotate : {false, true}) {
    std::string once = migrated(src, annotate);
    EXPECT_EQ(migrated(once, annotate), once) << "annotate=" << annotate;
  }
}

}  // namespace
