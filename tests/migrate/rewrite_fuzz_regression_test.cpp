// Inputs the rewrite fuzzer (fuzz/rewrite_fuzzer.cpp) found to break migrate's guarantees.
#include <gtest/gtest.h>

#include "migrate/python_rewriter.h"
#include "rules/core/catalog.h"

namespace {

std::string migrated(const std::string& src, bool annotate) {
  banjia::migrate::RewriteOptions o;
  o.annotate = annotate;
  return banjia::migrate::rewrite_python(src, "t.py", banjia::rules::RuleCatalog::builtin(), o).rewritten;
}

// import-semicolon (docs/fuzzing.md): `import torch; <more>` must not get `import torch_npu` on a new
// line in front of <more>, which would move <more> away from its `# banjia:` annotation and make a
// second migrate annotate it again.
TEST(RewriteFuzzRegression, ImportFollowedBySemicolonStaysOnItsLine) {
  const std::string src = "import torch as th; th.cuda.synutocast()\nx = th.randn(2).cuda()\n";
  EXPECT_EQ(migrated(src, false),
            "import torch as th; import torch_npu; th.cuda.synutocast()\nx = th.randn(2).npu()\n");
  for (bool annotate : {false, true}) {
    std::string once = migrated(src, annotate);
    EXPECT_EQ(migrated(once, annotate), once) << "annotate=" << annotate;
  }
}

// The first run joins two notes on one line ([cuda-amp] and [torch-cuda-unverified]); its rewrite of
// the import (torch.cuda.amp -> torch.npu.amp) leaves the second run only one of them, which must not
// be written again on a line of its own (joined-annotation-subset).
TEST(RewriteFuzzRegression, NoteAlreadyAboveInAJoinedAnnotationIsNotRepeated) {
  const std::string src = "from torch.cuda.amp import th,t;th.cuda.A\nimport torch as th\n";
  const std::string once = migrated(src, true);
  ASSERT_NE(once.find("[cuda-amp]"), std::string::npos) << once;
  ASSERT_NE(once.find("[torch-cuda-unverified]"), std::string::npos) << once;
  EXPECT_EQ(migrated(once, true), once);
  // Every note is written once.
  size_t n = 0;
  for (size_t at = once.find("[torch-cuda-unverified]"); at != std::string::npos;
       at = once.find("[torch-cuda-unverified]", at + 1))
    ++n;
  EXPECT_EQ(n, 1u) << once;
}

}  // namespace

// dot-semicolon: in `import torch as th.;th.cuda.o(...)` the '.' before ';' must not make the view
// treat the next `th` as an attribute; otherwise `th.cuda.o` is unresolved until the first run's
// `; import torch_npu` separates them, and the second run annotates it.
TEST(RewriteFuzzRegression, DotBeforeSemicolonDoesNotHideTheNextStatementsName) {
  const std::string src = "import torch as th.;th.cuda.o(backend=\"nccl\")";
  const std::string once = migrated(src, true);
  EXPECT_NE(once.find("[torch-cuda-unverified]"), std::string::npos) << once;
  EXPECT_EQ(migrated(once, true), once);
}

// A statement after ';' on a line that continues another (after a backslash, or after a string that
// spans lines) gets its `# banjia:` note above the first line of the logical line: right above its
// own line the note would be inside the continuation, joined to the line before (or part of the
// string). note-inside-backslash-continuation (first input: as minimised by libFuzzer).
TEST(RewriteFuzzRegression, NoteForAStatementOnAContinuedLineGoesAboveTheLogicalLine) {
  const std::string src = "import torch as th\\\n'NCCL';th.cuda.A";
  const std::string once = migrated(src, true);
  EXPECT_EQ(once.rfind("# banjia:", 0), 0u) << once;  // every note above line 1
  EXPECT_NE(once.find("\\\n'NCCL';th.cuda.A"), std::string::npos) << once;  // the continuation intact
  EXPECT_EQ(migrated(once, true), once);

  const std::string strings = "import torch as th\nx = '''a\nb'''; th.cuda.A\ny = 1\n";
  const std::string s_once = migrated(strings, true);
  EXPECT_NE(s_once.find("th\n# banjia: [torch-cuda-unverified]"), std::string::npos) << s_once;
  EXPECT_NE(s_once.find("x = '''a\nb'''; th.cuda.A\n"), std::string::npos) << s_once;  // the string unchanged
  EXPECT_EQ(migrated(s_once, true), s_once);
}

// `import torch_npu` goes on a line of its own before the first statement (no torch import) or before
// a torch import rewritten to torch.npu: when that statement's line continues a `\` line, the import
// goes above both; between the two, the backslash would join it to the logical line and push the
// statement onto a line of its own, which a second `--annotate` run would annotate
// (import-torch-npu-after-continuation).
TEST(RewriteFuzzRegression, ImportTorchNpuGoesAboveTheLogicalLine) {
  const std::string no_torch = "\\\n'NCCL'; x = 1\ny = os.getenv(\"CUDA_LAUNCH_BLOCKING\")\n";
  EXPECT_EQ(migrated(no_torch, false),
            "import torch_npu\n\\\n'NCCL'; x = 1\ny = os.getenv(\"ASCEND_LAUNCH_BLOCKING\")\n");
  const std::string npu_import = "\\\nimport torch.cuda.amp as amp\n";
  EXPECT_EQ(migrated(npu_import, false), "import torch_npu\n\\\nimport torch.npu.amp as amp\n");
  for (const std::string& src : {no_torch, npu_import})
    for (bool annotate : {false, true}) {
      const std::string once = migrated(src, annotate);
      EXPECT_EQ(migrated(once, annotate), once) << "annotate=" << annotate << "\n" << once;
    }
}

// A note naming a line of the file (a check kept for the CUDA use it selects, "line 4") names another
// line once the first run's notes are inserted above it: the second run must recognise it as the same
// note (moved-line-note).
TEST(RewriteFuzzRegression, ANoteNamingALineIsRecognisedAfterTheLinesMove) {
  const std::string src =
      "import torch\n"
      "major = torch.cuda.get_device_capability()[0]\n"
      "if torch.cuda.is_available():\n"
      "    model = torch.nn.DataParallel(model)\n";
  const std::string once = migrated(src, true);
  ASSERT_NE(once.find("(line 4: "), std::string::npos) << once;
  EXPECT_EQ(migrated(once, true), once);
}
