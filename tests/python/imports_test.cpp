#include <gtest/gtest.h>

#include "python/module.h"

using namespace banjia::python;

namespace {
struct Module {
  std::string src;
  TokenStream ts;
  ModuleView view;
  ImportTable imports;
  explicit Module(std::string s)
      : src(std::move(s)), ts(tokenize(src)), view(build_view(src, ts)), imports(collect_imports(view)) {}
  const ImportBinding& binding(std::string_view local) const {
    const ImportBinding* b = imports.binding_for(local);
    if (!b) throw std::runtime_error("no binding " + std::string(local));
    return *b;
  }
  std::string tok_text(uint32_t i) const { return std::string(ts.tokens.at(i).text(src)); }
  std::string span(uint32_t first, uint32_t last) const {
    return src.substr(ts.tokens[first].begin, ts.tokens[last].end - ts.tokens[first].begin);
  }
  std::vector<std::string> qualified() const {
    std::vector<std::string> out;
    for (const auto& r : resolve_dotted_names(view, imports).refs) out.push_back(std::string(r.qualified));
    return out;
  }
};
}  // namespace

TEST(Imports, PlainAndAliasedImports) {
  Module m("import torch as th\nimport torch.cuda as tc\nimport os.path\nimport a, b as c\n");
  ASSERT_EQ(m.imports.bindings.size(), 5u);
  const auto& th = m.binding("th");
  EXPECT_EQ(th.target, "torch");
  EXPECT_FALSE(th.is_from);
  EXPECT_EQ(m.tok_text(th.first_tok), "torch");
  EXPECT_EQ(m.tok_text(th.alias_tok), "th");
  const auto& tc = m.binding("tc");
  EXPECT_EQ(tc.target, "torch.cuda");
  EXPECT_EQ(m.span(tc.first_tok, tc.last_tok), "torch.cuda");
  const auto& os = m.binding("os");  // `import os.path` binds os
  EXPECT_EQ(os.target, "os");
  EXPECT_EQ(os.imported, "os.path");
  EXPECT_EQ(os.alias_tok, kNoIndex);
  EXPECT_EQ(m.binding("a").target, "a");
  EXPECT_EQ(m.binding("c").target, "b");
  EXPECT_EQ(m.binding("c").stmt, 3u);
}

TEST(Imports, FromImports) {
  Module m("from torch import cuda\nfrom torch.cuda.amp import autocast as ac, GradScaler\n");
  const auto& cuda = m.binding("cuda");
  EXPECT_TRUE(cuda.is_from);
  EXPECT_EQ(cuda.target, "torch.cuda");
  EXPECT_EQ(m.tok_text(cuda.first_tok), "cuda");
  const auto& ac = m.binding("ac");
  EXPECT_EQ(ac.target, "torch.cuda.amp.autocast");
  EXPECT_EQ(m.tok_text(ac.first_tok), "autocast");
  EXPECT_EQ(m.tok_text(ac.alias_tok), "ac");
  EXPECT_EQ(m.binding("GradScaler").target, "torch.cuda.amp.GradScaler");
}

TEST(Imports, RelativeAndStarImports) {
  Module m("from . import x\nfrom ..pkg.mod import y as z\nfrom torch.cuda import *\n");
  EXPECT_EQ(m.binding("x").target, ".x");
  EXPECT_EQ(m.binding("z").target, "..pkg.mod.y");
  ASSERT_EQ(m.imports.bindings.size(), 3u);
  EXPECT_EQ(m.imports.bindings[2].local, "*");
  EXPECT_EQ(m.imports.bindings[2].target, "torch.cuda.*");
  EXPECT_FALSE(m.imports.resolve("*"));
}

TEST(Imports, ParenthesisedMultiLineFromImport) {
  Module m("from torch.cuda.amp import (\n    autocast,  # mixed precision\n    GradScaler as GS,\n)\nx = 1\n");
  ASSERT_EQ(m.imports.bindings.size(), 2u);
  EXPECT_EQ(m.binding("autocast").target, "torch.cuda.amp.autocast");
  EXPECT_EQ(m.binding("GS").target, "torch.cuda.amp.GradScaler");
  EXPECT_EQ(m.binding("GS").stmt, 0u);
}

TEST(Imports, NestedImportsAndRebinding) {
  Module m("import numpy as np\ndef f():\n    import torch as np\n    import torch.cuda as tc\nimport jax.numpy as np\n");
  // Module level: the later module-level binding wins; the nested one does not shadow it.
  EXPECT_EQ(m.imports.resolve("np"), "jax.numpy");
  // A name bound only inside a function still resolves.
  EXPECT_EQ(m.imports.resolve("tc"), "torch.cuda");
  EXPECT_EQ(m.binding("tc").indent_depth, 1);
  EXPECT_FALSE(m.imports.resolve("torch"));
}

TEST(Imports, ImportInsideCompoundStatementOnOneLine) {
  Module m("try: import torch_npu\nexcept ImportError: torch_npu = None\n");
  EXPECT_EQ(m.imports.resolve("torch_npu"), "torch_npu");
}

TEST(DottedNames, AliasesResolveToQualifiedNames) {
  Module m("import torch as th\nimport torch.cuda as tc\nfrom torch.cuda.amp import autocast as ac\n"
           "th.cuda.synchronize()\ntc.empty_cache()\nwith ac():\n    pass\n");
  auto names = resolve_dotted_names(m.view, m.imports);
  const auto& refs = names.refs;
  std::vector<std::string> uses;
  for (const auto& r : refs)
    if (!r.in_import_stmt) uses.push_back(std::string(r.qualified));
  EXPECT_EQ(uses, (std::vector<std::string>{"torch.cuda.synchronize", "torch.cuda.empty_cache",
                                            "torch.cuda.amp.autocast"}));
  const DottedRef* sync = nullptr;
  for (const auto& r : refs)
    if (written_form(m.view, r) == "th.cuda.synchronize") sync = &r;
  ASSERT_NE(sync, nullptr);
  EXPECT_TRUE(sync->is_call);
  ASSERT_EQ(sync->name_count(), 3u);
  EXPECT_EQ(m.tok_text(sync->name_tok(m.view, 1)), "cuda");  // a rewriter can replace exactly this component
  EXPECT_EQ(m.view.text(sync->call_open_sig), "(");
}

TEST(DottedNames, FullChainThroughPlainImport) {
  Module m("import torch\nwith torch.cuda.amp.autocast(enabled=True):\n    y = torch.cuda . is_available\n");
  auto q = m.qualified();
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(q[0], "torch");  // the import statement itself
  EXPECT_EQ(q[1], "torch.cuda.amp.autocast");
  EXPECT_EQ(q[2], "torch.cuda.is_available");
}

TEST(DottedNames, ImportStatementsAreQualifiedAbsolutely) {
  Module m("from apex import amp\nimport torch.distributed as dist\n");
  auto names = resolve_dotted_names(m.view, m.imports);
  const auto& refs = names.refs;
  std::vector<std::string> q;
  for (const auto& r : refs) {
    EXPECT_TRUE(r.in_import_stmt);
    q.push_back(std::string(r.qualified));
  }
  EXPECT_EQ(q, (std::vector<std::string>{"apex", "apex.amp", "torch.distributed"}));
}

TEST(DottedNames, CallResultAttributeIsNotADottedNameButIsAnAttribute) {
  Module m("import torch\nfoo().cuda()\nx.cuda\n");
  for (const auto& r : resolve_dotted_names(m.view, m.imports).refs) EXPECT_EQ(r.qualified, "torch");
  int attributes = 0;
  for (uint32_t k = 0; k < m.view.sig.size(); ++k)
    if (m.view.text(k) == "cuda") {
      EXPECT_TRUE(m.view.is_attribute(k));
      ++attributes;
    }
  EXPECT_EQ(attributes, 2);
}

TEST(DottedNames, UnimportedHeadsAndBindingSitesAreSkipped) {
  Module m("from torch.cuda import synchronize\nsynchronize()\nf(synchronize=1)\n"
           "def g(): pass\nnp.cuda.x()\nsynchronize = None\n");
  auto q = m.qualified();
  // import stmt (module + name), then the one real use.
  EXPECT_EQ(q, (std::vector<std::string>{"torch.cuda", "torch.cuda.synchronize", "torch.cuda.synchronize"}));
}

TEST(DottedNames, AttributeAssignmentIsAUse) {
  Module m("import torch\ntorch.backends.cudnn.benchmark = True\n");
  auto q = m.qualified();
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[1], "torch.backends.cudnn.benchmark");
}

TEST(DottedNames, NamesInsideFStringFieldsResolve) {
  Module m("import torch\nprint(f\"{torch.cuda.device_count()} gpus\")\n");
  auto q = m.qualified();
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[1], "torch.cuda.device_count");
}
