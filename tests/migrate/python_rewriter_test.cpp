// migrate's guarantees on single files: import placement, format preservation, idempotence,
// untouched strings/comments, refusal to rewrite what it cannot rewrite safely.
#include <gtest/gtest.h>

#include "migrate/python_rewriter.h"
#include "python/source.h"
#include "rules/core/catalog.h"

namespace {

banjia::migrate::FileRewrite rw(const std::string& src, bool annotate = false) {
  banjia::migrate::RewriteOptions o;
  o.annotate = annotate;
  return banjia::migrate::rewrite_python(src, "t.py", banjia::rules::RuleCatalog::builtin(), o);
}

std::string migrated(const std::string& src) { return rw(src).rewritten; }

}  // namespace

TEST(ImportInsertion, AfterFirstTorchImport) {
  EXPECT_EQ(migrated("import os\nimport torch\nx = y.cuda()\n"), "import os\nimport torch\nimport torch_npu\nx = y.npu()\n");
}

TEST(ImportInsertion, AfterDocstringAndFutureWhenNoTorchImport) {
  EXPECT_EQ(migrated("# -*- coding: utf-8 -*-\n\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\nx = y.cuda()\n"),
            "# -*- coding: utf-8 -*-\n\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\nimport torch_npu\nx = y.npu()\n");
}

TEST(ImportInsertion, BeforeAFirstTorchImportThatBecomesTorchNpu) {
  EXPECT_EQ(migrated("from torch.cuda.amp import autocast\nimport torch\n"),
            "import torch_npu\nfrom torch.npu.amp import autocast\nimport torch\n");
  EXPECT_EQ(migrated("import torch.cuda as tc\ntc.synchronize()\n"),
            "import torch_npu\nimport torch.npu as tc\ntc.synchronize()\n");
}

TEST(ImportInsertion, NeverDuplicated) {
  std::string src = "import torch\nimport torch_npu\nx = y.cuda()\n";
  EXPECT_EQ(migrated(src), "import torch\nimport torch_npu\nx = y.npu()\n");
}

TEST(ImportInsertion, NotAddedWhenNothingChanges) {
  std::string src = "import torch\nx = torch.zeros(3)\n";
  EXPECT_EQ(migrated(src), src);
}

TEST(FormatPreservation, CrlfBomTabsAndMissingFinalNewline) {
  EXPECT_EQ(migrated("import torch\r\nx = y.cuda()\r\n"), "import torch\r\nimport torch_npu\r\nx = y.npu()\r\n");
  EXPECT_EQ(migrated("\xEF\xBB\xBFimport torch\nx = y.cuda()\n"), "\xEF\xBB\xBFimport torch\nimport torch_npu\nx = y.npu()\n");
  EXPECT_EQ(migrated("import torch\ndef f(x):\n\treturn x.cuda()  # keep me\n"),
            "import torch\nimport torch_npu\ndef f(x):\n\treturn x.npu()  # keep me\n");
  EXPECT_EQ(migrated("import torch\nx = y.cuda()"), "import torch\nimport torch_npu\nx = y.npu()");
}

TEST(FormatPreservation, StringsCommentsAndDocstringsAreNotEdited) {
  std::string src = "\"\"\"Runs on cuda with nccl.\"\"\"\n# call x.cuda() first\nmsg = 'use .cuda() and \"cuda:0\"'\n";
  EXPECT_EQ(migrated(src), src);
}

TEST(Idempotence, MigratingTwiceEqualsOnce) {
  const char* cases[] = {
      "import torch\nimport torch.distributed as dist\ndist.init_process_group('nccl')\nx = torch.zeros(2, device='cuda:0').cuda()\n",
      "from torch.cuda.amp import GradScaler, autocast\nimport torch\ns = GradScaler()\nif t.is_cuda: torch.cuda.synchronize()\n",
      "import os\nos.environ['CUDA_VISIBLE_DEVICES'] = '0'\n",
  };
  for (const char* c : cases) {
    std::string once = migrated(c);
    EXPECT_NE(once, c);
    EXPECT_EQ(migrated(once), once) << c;
  }
}

TEST(Safety, SyntaxErrorFileIsUnchangedAndReported) {
  auto fr = rw("import torch\nx = y.cuda(\ns = 'unterminated\n");
  EXPECT_FALSE(fr.changed());
  ASSERT_FALSE(fr.leftovers.empty());
  EXPECT_EQ(fr.leftovers[0].rule, "input-error");
}

TEST(Safety, AliasSharedWithUnsupportedUseIsNotRewritten) {
  std::string src = "import torch.cuda as tc\ntc.synchronize()\ntc.comm.scatter(t, d)\n";
  auto fr = rw(src);
  EXPECT_EQ(fr.rewritten, src);
  bool blocked = false;
  for (const auto& f : fr.leftovers) blocked = blocked || (f.rule == "torch-cuda-module" && f.fix == banjia::FixKind::manual);
  EXPECT_TRUE(blocked);
}

TEST(Safety, NonUtf8EncodingIsRewrittenInThatEncoding) {  // more in source_encoding_test.cpp
  std::string src = "# -*- coding: latin-1 -*-\nimport torch\ns = '\xe9'\nx = y.cuda()\n";
  auto fr = rw(src);
  EXPECT_EQ(fr.rewritten, "# -*- coding: latin-1 -*-\nimport torch\nimport torch_npu\ns = '\xe9'\nx = y.npu()\n");
  EXPECT_TRUE(fr.leftovers.empty());
}

// utf7-cookie-annotate (docs/fuzzing.md): --annotate must not insert comments into a utf-7 file and
// write the decoded text back as UTF-8 under the utf-7 cookie ("+-" and "+AGE-" would read back as
// other characters).
TEST(Safety, NonUtf8EncodingIsNotAnnotatedEither) {
  std::string src = "# -*- coding: utf-7 -*-\nimport torch\ndef f(m):\n    return torch.nn.DataParallel(m) +- 1\n";
  auto fr = rw(src, true);
  EXPECT_EQ(fr.rewritten, src);
  bool reported = false;
  for (const auto& f : fr.leftovers) reported = reported || f.rule == "input-error";
  EXPECT_TRUE(reported);
}

// fuzz_rewrite regression: with lone-CR line ends, a comment inserted above line 2 made line 2 a
// comment holding "coding: ut..." from the code after it: a new (unknown) PEP 263 cookie.
TEST(Safety, RewriteNeverChangesTheEncodingCookie) {
  std::string src = "# header\rimport torch\nx = torch.nn.DataParallel(m) # coding: latin-1\n";
  auto fr = rw(src, true);
  EXPECT_EQ(banjia::python::find_coding_cookie(fr.rewritten), banjia::python::find_coding_cookie(src));
}

TEST(Annotate, AddsCommentOnceAboveManualWork) {
  std::string src = "import torch\ndef f(m):\n    return torch.nn.DataParallel(m)\n";
  std::string once = rw(src, true).rewritten;
  EXPECT_NE(once.find("    # banjia: [data-parallel]"), std::string::npos) << once;
  EXPECT_EQ(rw(once, true).rewritten, once);
}

TEST(ChangeLog, RecordsRuleBeforeAndAfter) {
  auto fr = rw("import torch\nx = y.cuda()\n");
  ASSERT_EQ(fr.changes.size(), 2u);
  EXPECT_EQ(fr.changes[0].rule, "import-torch-npu");
  EXPECT_EQ(fr.changes[1].rule, "tensor-cuda-call");
  EXPECT_EQ(fr.changes[1].line, 2);
  EXPECT_EQ(fr.changes[1].column, 6);
  EXPECT_EQ(fr.changes[1].before, ".cuda");
  EXPECT_EQ(fr.changes[1].after, ".npu");
}
