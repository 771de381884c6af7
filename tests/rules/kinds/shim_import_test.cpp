// Imports redirected to a shim module (rules/kinds/shim_import.h), on the spellings the rule examples
// do not show: where a split import cannot go on a line of its own, CRLF files, the package forms,
// a shim blocked in the file's directory, and what `import torch_npu` insertion makes of a file
// whose only change is a redirect. Expected texts are written out by hand.
#include <gtest/gtest.h>

#include <algorithm>

#include "migrate/python_rewriter.h"
#include "rules/core/catalog.h"

namespace {

using banjia::migrate::FileRewrite;
using banjia::rules::FileDirectory;

FileRewrite migrate(const std::string& src, const FileDirectory* dir = nullptr, bool insert_import = false) {
  banjia::migrate::RewriteOptions o;
  o.insert_import = insert_import;
  return banjia::migrate::rewrite_python(src, "t.py", banjia::rules::RuleCatalog::builtin(), o, nullptr, dir);
}

std::vector<std::string> leftover_rules(const FileRewrite& fr) {
  std::vector<std::string> out;
  for (const auto& f : fr.leftovers) out.push_back(f.rule);
  return out;
}

const std::string* leftover_message(const FileRewrite& fr, std::string_view rule) {
  for (const auto& f : fr.leftovers)
    if (f.rule == rule) return &f.message;
  return nullptr;
}

TEST(ShimImport, ASplitNeedsTheStatementToStartItsLine) {
  const std::string src = "if ok: from flash_attn.flash_attn_interface import flash_attn_func, _flash_attn_forward\n";
  const FileRewrite fr = migrate(src);
  EXPECT_EQ(fr.rewritten, src);
  ASSERT_TRUE(leftover_message(fr, "flash-attn-shim"));
  EXPECT_TRUE(leftover_message(fr, "flash-attn-shim")->starts_with("this import also names what flash_attn_npu does not provide"));
  EXPECT_TRUE(fr.shims.empty());
  // a whole redirect needs no line of its own
  EXPECT_EQ(migrate("if ok: from flash_attn import flash_attn_func\n").rewritten, "if ok: from flash_attn_npu import flash_attn_func\n");
}

TEST(ShimImport, ASplitKeepsTheFilesLineEndingsAndIndentation) {
  const FileRewrite fr = migrate("def f():\r\n\tfrom flash_attn.flash_attn_interface import _flash_attn_forward, flash_attn_func\r\n\treturn 1\r\n");
  EXPECT_EQ(fr.rewritten, "def f():\r\n\tfrom flash_attn_npu import flash_attn_func\r\n\tfrom flash_attn.flash_attn_interface import _flash_attn_forward\r\n\treturn 1\r\n");
  EXPECT_EQ(fr.shims, std::vector<std::string>{"flash_attn_npu"});
}

TEST(ShimImport, AnAnnotatedSplitNotesTheStatementThatStaysAndMigratesOnce) {
  banjia::migrate::RewriteOptions o;
  o.annotate = true;
  const auto& rules = banjia::rules::RuleCatalog::builtin();
  const std::string src = "from flash_attn.flash_attn_interface import flash_attn_func, _flash_attn_forward  # noqa\n";
  const FileRewrite once = banjia::migrate::rewrite_python(src, "t.py", rules, o);
  // the shim import first, then the note right above the import it describes
  const std::string kept = "from flash_attn.flash_attn_interface import _flash_attn_forward  # noqa\n";
  ASSERT_TRUE(once.rewritten.starts_with("from flash_attn_npu import flash_attn_func\n# banjia: ")) << once.rewritten;
  EXPECT_TRUE(once.rewritten.ends_with(kept)) << once.rewritten;
  EXPECT_EQ(std::count(once.rewritten.begin(), once.rewritten.end(), '\n'), 3);
  EXPECT_EQ(banjia::migrate::rewrite_python(once.rewritten, "t.py", rules, o).rewritten, once.rewritten);
  // the finding shows both lines the rewrite leaves
  const auto change = std::find_if(once.changes.begin(), once.changes.end(), [](const auto& c) { return c.rule == "flash-attn-shim"; });
  ASSERT_NE(change, once.changes.end());
  EXPECT_EQ(change->after, "from flash_attn_npu import flash_attn_func\nfrom flash_attn.flash_attn_interface import _flash_attn_forward");

  // indented (an optional import in a try block): the same order, each line at the block's indentation
  const std::string nested = "try:\n    from flash_attn import flash_attn_func as fa, n\nexcept ImportError:\n    fa = None\n";
  const FileRewrite in_try = banjia::migrate::rewrite_python(nested, "t.py", rules, o);
  ASSERT_TRUE(in_try.rewritten.starts_with("try:\n    from flash_attn_npu import flash_attn_func as fa\n    # banjia: "))
      << in_try.rewritten;
  EXPECT_TRUE(in_try.rewritten.ends_with("\n    from flash_attn import n\nexcept ImportError:\n    fa = None\n")) << in_try.rewritten;
  EXPECT_EQ(banjia::migrate::rewrite_python(in_try.rewritten, "t.py", rules, o).rewritten, in_try.rewritten);
  const auto nested_change =
      std::find_if(in_try.changes.begin(), in_try.changes.end(), [](const auto& c) { return c.rule == "flash-attn-shim"; });
  ASSERT_NE(nested_change, in_try.changes.end());
  EXPECT_EQ(nested_change->after, "from flash_attn_npu import flash_attn_func as fa\n    from flash_attn import n");
}

TEST(ShimImport, InAPackageTheShimIsImportedRelatively) {
  FileDirectory package;
  package.is_package = true;
  EXPECT_EQ(migrate("from flash_attn.layers.rotary import apply_rotary_emb\n", &package).rewritten,
            "from .flash_attn_npu import apply_rotary_emb\n");
  EXPECT_EQ(migrate("def f():\n    import xformers.ops as xops\n    return xops.SwiGLU\n", &package).rewritten,
            "def f():\n    from . import xformers_npu as xops\n    return xops.SwiGLU\n");
  EXPECT_EQ(migrate("from flash_attn.flash_attn_interface import _flash_attn_forward, flash_attn_func\n", &package).rewritten,
            "from .flash_attn_npu import flash_attn_func\nfrom flash_attn.flash_attn_interface import _flash_attn_forward\n");
  // `from . import` takes one module: a statement importing others too stays, and says why
  const FileRewrite fr = migrate("import os, xformers.ops as xops\n", &package);
  EXPECT_EQ(fr.rewritten, "import os, xformers.ops as xops\n");
  ASSERT_TRUE(leftover_message(fr, "xformers-shim"));
  EXPECT_TRUE(leftover_message(fr, "xformers-shim")->starts_with("this statement imports other modules too"));
  // in a script's directory the module name is replaced where it stands
  EXPECT_EQ(migrate("import os, xformers.ops as xops\n").rewritten, "import os, xformers_npu as xops\n");
}

TEST(ShimImport, AModuleImportStaysWhereTheModuleItselfIsUsed) {
  const FileRewrite fr = migrate("import flash_attn\nprint(flash_attn)\n");
  EXPECT_EQ(fr.rewritten, "import flash_attn\nprint(flash_attn)\n");
  ASSERT_TRUE(leftover_message(fr, "flash-attn-shim"));
  EXPECT_EQ(*leftover_message(fr, "flash-attn-shim"),
            "`flash_attn` is used as a module on line 2, not only for names flash_attn_npu provides; the import stays");
  // `import a.b` binds `a`: not redirected
  const FileRewrite dotted = migrate("import xformers.ops\nxformers.ops.SwiGLU(1, 2)\n");
  EXPECT_EQ(dotted.rewritten, "import xformers.ops\nxformers.ops.SwiGLU(1, 2)\n");
  EXPECT_TRUE(leftover_message(dotted, "xformers-shim")->starts_with("`import xformers.ops` binds `xformers`"));
}

TEST(ShimImport, ASubmoduleTheShimStandsInForIsCheckedNameByName) {
  // `amp` is provided for `apex`, and `apex.amp` is a module of the shim: each use reads its names.
  const FileRewrite top = migrate("import apex\napex.amp.initialize(m)\n");
  EXPECT_EQ(top.rewritten, "import apex_amp_npu as apex\napex.amp.initialize(m)\n");
  const FileRewrite deep = migrate("import apex\napex.amp.initialize(m)\napex.amp.register_half_function(t, 'mm')\n");
  EXPECT_EQ(deep.rewritten, "import apex\napex.amp.initialize(m)\napex.amp.register_half_function(t, 'mm')\n");
  ASSERT_TRUE(leftover_message(deep, "apex-amp-shim"));
  EXPECT_TRUE(leftover_message(deep, "apex-amp-shim")->starts_with(
      "apex.amp.register_half_function (line 3) is not in apex_amp_npu; the import stays"));
  // A from-import of the submodule: the name moves only when its uses read provided names; the rest of
  // the statement still moves.
  const FileRewrite from = migrate("from apex import amp\namp.register_float_function(t, 'exp')\n");
  EXPECT_EQ(from.rewritten, "from apex import amp\namp.register_float_function(t, 'exp')\n");
  EXPECT_TRUE(leftover_message(from, "apex-amp-shim")->starts_with("apex.amp.register_float_function (line 2)"));
  const FileRewrite used = migrate("from apex import amp\nwith amp.scale_loss(loss, opt) as s:\n    s.backward()\n");
  EXPECT_EQ(used.rewritten, "from apex_amp_npu import amp\nwith amp.scale_loss(loss, opt) as s:\n    s.backward()\n");
  EXPECT_TRUE(leftover_rules(used).empty());
}

TEST(ShimImport, ABlockedShimKeepsTheImportAndTheLibrarysFindings) {
  FileDirectory dir;
  dir.blocked_shims.emplace_back("apex_npu", "apex_npu.py exists and is not banjia's shim");
  const std::string src = "from apex.optimizers import FusedAdam\nopt = FusedAdam(params)\n";
  const FileRewrite fr = migrate(src, &dir);
  EXPECT_EQ(fr.rewritten, src);
  EXPECT_TRUE(fr.shims.empty());
  EXPECT_EQ(leftover_rules(fr), (std::vector<std::string>{"apex-shim", "apex-fused-optimizer"}));
  EXPECT_EQ(*leftover_message(fr, "apex-shim"),
            "apex_npu.py exists and is not banjia's shim: the import is not redirected to apex_npu");
  // another shim of the same file is still written
  const FileRewrite both = migrate(src + "from flash_attn import flash_attn_func\n", &dir);
  EXPECT_EQ(both.shims, std::vector<std::string>{"flash_attn_npu"});
}

TEST(ShimImport, ARedirectAloneInsertsNoTorchNpuImport) {
  EXPECT_EQ(migrate("import torch\nfrom flash_attn import flash_attn_func\n", nullptr, true).rewritten,
            "import torch\nfrom flash_attn_npu import flash_attn_func\n");
  EXPECT_EQ(migrate("import torch\nfrom flash_attn import flash_attn_func\nx = torch.ones(1).cuda()\n", nullptr, true).rewritten,
            "import torch\nimport torch_npu\nfrom flash_attn_npu import flash_attn_func\nx = torch.ones(1).npu()\n");
}

TEST(ShimImport, AChecksGpuBranchIsRewrittenOnceItsImportIsRedirected) {
  // The CUDA check selected only a flash_attn import the shim now provides: nothing CUDA is left in it.
  EXPECT_EQ(migrate("import torch\nif torch.cuda.is_available():\n    from flash_attn import flash_attn_func\n").rewritten,
            "import torch\nif torch.npu.is_available():\n    from flash_attn_npu import flash_attn_func\n");
}

}  // namespace
