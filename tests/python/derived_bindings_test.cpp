// Names no import binds that resolve like imports (python::derive_bindings): module-level aliases and
// `cuda` beside `from torch import *`. Each case states what Python itself binds.
#include <gtest/gtest.h>

#include <algorithm>

#include "python/module.h"

using namespace banjia::python;

namespace {

struct Module {
  std::string src;
  TokenStream ts;
  ModuleView view;
  ImportTable imports;
  DottedNames names;
  explicit Module(std::string s)
      : src(std::move(s)), ts(tokenize(src)), view(build_view(src, ts)), imports(collect_imports(view)),
        names(resolve_dotted_names(view, imports)) {}
  // The qualified name of the ref whose first name is on `line` (1-based), or "".
  std::string qualified_at_line(uint32_t line) const {
    for (const auto& r : names.refs)
      if (!r.in_import_stmt && view.tok(r.first_sig).line == line) return std::string(r.qualified);
    return "";
  }
  bool derived(std::string_view local) const {
    return std::any_of(imports.derived.begin(), imports.derived.end(), [&](const auto& b) { return b.local == local; });
  }
};

}  // namespace

TEST(DerivedBindings, ModuleLevelAliasOfAResolvedChain) {
  Module m("import torch\nimport torch.distributed as dist\nipg = dist.init_process_group\nipg(\"nccl\")\n"
           "sync = torch.cuda.synchronize\nsync()\n");
  const ImportBinding* ipg = m.imports.binding_for("ipg");
  ASSERT_NE(ipg, nullptr);
  EXPECT_EQ(ipg->origin, BindingOrigin::assignment);
  EXPECT_EQ(ipg->target, "torch.distributed.init_process_group");
  EXPECT_EQ(m.ts.tokens[ipg->alias_tok].text(m.src), "ipg");
  EXPECT_EQ(m.src.substr(m.ts.tokens[ipg->first_tok].begin,
                         m.ts.tokens[ipg->last_tok].end - m.ts.tokens[ipg->first_tok].begin),
            "dist.init_process_group");
  EXPECT_EQ(m.qualified_at_line(4), "torch.distributed.init_process_group");
  EXPECT_EQ(m.qualified_at_line(6), "torch.cuda.synchronize");
  // The use is a call, the assignment's own target is not a use.
  for (const auto& r : m.names.refs)
    if (m.view.tok(r.first_sig).line == 4) {
      EXPECT_TRUE(r.is_call);
    }
  EXPECT_EQ(m.qualified_at_line(3), "torch.distributed.init_process_group");  // the chain after `=`
  // Import statements only: the derived names are kept apart.
  EXPECT_EQ(m.imports.bindings.size(), 2u);
}

TEST(DerivedBindings, AliasOfAnEarlierAliasResolvesThroughIt) {
  Module m("import torch\ntc = torch.cuda\nsync = tc.synchronize\nsync()\n");
  EXPECT_EQ(m.qualified_at_line(4), "torch.cuda.synchronize");
}

TEST(DerivedBindings, NoAliasWhenTheNameIsBoundAnywhereElse) {
  const char* cases[] = {
      "import torch\nsync = torch.cuda.synchronize\nsync = None\n",                  // assigned twice
      "import torch\nsync = torch.cuda.synchronize\ndef f(sync):\n    sync()\n",       // a parameter
      "import torch\nsync = torch.cuda.synchronize\nfor sync in fs:\n    pass\n",      // a loop variable
      "import torch\nsync = torch.cuda.synchronize\nwith a as sync:\n    pass\n",      // `as`
      "import torch\nsync = torch.cuda.synchronize\ndef sync():\n    pass\n",          // a def
      "import torch\nsync = torch.cuda.synchronize\nsync += 1\n",                      // augmented
      "import torch\nsync = torch.cuda.synchronize\nclass A:\n    sync = 1\n",          // a class attribute
      "import torch\nsync = torch.cuda.synchronize\nsync, x = 1, 2\n",                 // a tuple target
  };
  for (const char* c : cases) {
    Module m(c);
    EXPECT_FALSE(m.derived("sync")) << c;
  }
}

TEST(DerivedBindings, OnlyPlainModuleLevelChainsOfImportedNames) {
  const char* cases[] = {
      "import torch\ndef f():\n    sync = torch.cuda.synchronize\n",  // not module level
      "import torch\nsync = torch.cuda.synchronize()\n",              // a call, not the function
      "import torch\nsync = torch.cuda.synchronize if a else b\n",    // more than a chain
      "sync = cuda.synchronize\n",                                    // head bound by no import
      "import torch\nsync: object = torch.cuda.synchronize\n",        // annotated
      "import torch\nx = sync = torch.cuda.synchronize\n",            // chained assignment
  };
  for (const char* c : cases) {
    Module m(c);
    EXPECT_FALSE(m.derived("sync")) << c;
  }
  Module imported("import torch\nfrom x import sync\nsync = torch.cuda.synchronize\n");
  EXPECT_FALSE(imported.derived("sync"));  // an imported name keeps its import
  EXPECT_EQ(imported.imports.binding_for("sync")->target, "x.sync");
}

TEST(DerivedBindings, CudaBesideAStarImportOfTorch) {
  Module m("from torch import *\ncuda.synchronize()\nif cuda.is_available():\n    pass\n");
  const ImportBinding* cuda = m.imports.binding_for("cuda");
  ASSERT_NE(cuda, nullptr);
  EXPECT_EQ(cuda->origin, BindingOrigin::star_import);
  EXPECT_EQ(cuda->target, "torch.cuda");
  EXPECT_EQ(m.ts.tokens[cuda->first_tok].text(m.src), "*");
  EXPECT_EQ(m.qualified_at_line(2), "torch.cuda.synchronize");
  EXPECT_EQ(m.qualified_at_line(3), "torch.cuda.is_available");
  // An import that names cuda without binding it does not count as a binding.
  Module aliased("from torch import cuda as tc\nfrom torch import *\ncuda.synchronize()\n");
  EXPECT_EQ(aliased.qualified_at_line(3), "torch.cuda.synchronize");
}

TEST(DerivedBindings, NoStarCudaWhenCudaIsBoundOrNotUsedAsAModule) {
  const char* cases[] = {
      "cuda.synchronize()\n",                                              // no star import of torch
      "from torch.nn import *\ncuda.synchronize()\n",                      // another module's star
      "from torch import *\nfrom numba import cuda\ncuda.jit()\n",          // imported from numba
      "from torch import *\ncuda = make()\ncuda.synchronize()\n",           // assigned
      "from torch import *\ndef f(cuda):\n    cuda.synchronize()\n",        // a parameter
      "from torch import *\nprint(cuda)\ncuda.synchronize()\n",             // used as a value
      "from torch import *\nx = y.cuda()\n",                               // only as an attribute
  };
  for (const char* c : cases) {
    Module m(c);
    const ImportBinding* b = m.imports.binding_for("cuda");
    EXPECT_TRUE(b == nullptr || b->origin != BindingOrigin::star_import) << c;
  }
}
