// The static check of Triton kernels (match kind triton-kernel, data/triton/ascend_limits.toml): what a
// grid, a keyword or a transpose must be for a finding, and what is left alone because the check
// cannot know it. Expected findings are written by hand from the limits' pages.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "rules/core/catalog.h"
#include "rules/sources/python_scanner.h"

namespace {

constexpr std::string_view kHead =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.jit\n"
    "def k(x_ptr, n, BLOCK: tl.constexpr):\n";  // the kernel: lines 3-4, its body from line 5

// "limit-id@line" of every triton-ascend-limit finding, and "kernel@line" of every triton-kernel one.
std::vector<std::string> hits(const std::string& body) {
  std::vector<banjia::Finding> fs;
  banjia::rules::scan_python(std::string(kHead) + body, "t.py", banjia::rules::RuleCatalog::builtin(), fs);
  std::vector<std::string> out;
  for (const auto& f : fs) {
    if (f.rule == "triton-kernel") out.push_back("kernel@" + std::to_string(f.line));
    if (f.rule != "triton-ascend-limit") continue;
    const size_t at = f.message.rfind("limit ");
    out.push_back(f.message.substr(at + 6, f.message.size() - at - 7) + "@" + std::to_string(f.line));
  }
  std::sort(out.begin(), out.end());
  return out;
}

using V = std::vector<std::string>;

}  // namespace

TEST(TritonKernel, OneFindingPerKernelOverItsDecorators) {
  EXPECT_EQ(hits("    pass\n"), (V{"kernel@3"}));
}

TEST(TritonKernel, GridOfConstantsOverTheLimit) {
  // 65535 programs are allowed; 65536 are not (UINT16_MAX); 300 * 300 through the name `grid`; a
  // lambda's constant entries
  EXPECT_EQ(hits("    pass\n"
                 "k[(65535,)](x, n, BLOCK=4)\n"
                 "k[(65536,)](x, n, BLOCK=4)\n"
                 "def run(x):\n"
                 "    grid = (300, 3 * 100)\n"
                 "    k[grid](x, 1, BLOCK=4)\n"
                 "    k[lambda meta: (1024 * 1024,)](x, 1, BLOCK=4)\n"
                 "    k[lambda meta: (2 ** 20,)](x, 1, BLOCK=4)\n"),  // ** is not read: no finding
            (V{"grid-size@10", "grid-size@11", "grid-size@7", "kernel@3"}));
}

TEST(TritonKernel, GridTheCheckCannotComputeIsNoFinding) {
  // a size from the data, a name assigned in another function, a call
  EXPECT_EQ(hits("    pass\n"
                 "def other():\n"
                 "    grid = (10 ** 6,)\n"
                 "def run(x, n):\n"
                 "    k[(triton.cdiv(n, 4),)](x, n, BLOCK=4)\n"
                 "    k[grid](x, n, BLOCK=4)\n"),
            (V{"kernel@3"}));
}

TEST(TritonKernel, KeywordsWithAllowedValues) {
  // volatile=False is the default; a relaxed atomic is not supported; a variable is not known
  EXPECT_EQ(hits("    a = tl.load(x_ptr, volatile=False)\n"
                 "    b = tl.load(x_ptr, volatile=True)\n"
                 "    tl.atomic_add(x_ptr, 1, sem='relaxed')\n"
                 "    tl.atomic_add(x_ptr, 1, sem='acq_rel', scope=scope)\n"),
            (V{"atomic-sem-scope@7", "kernel@3", "load-cache-options@6"}));
}

TEST(TritonKernel, OnlyNonAdjacentSwapsAreTransposeFindings) {
  EXPECT_EQ(hits("    a = tl.trans(x, (1, 0, 2))\n"
                 "    b = tl.permute(x, 0, 2, 1)\n"
                 "    c = x.permute((2, 0, 1))\n"  // a rotation, not a swap of two axes
                 "    d = x.permute(3, 1, 2, 0)\n"
                 "    e = tl.trans(x, dims=(0, 1, 2, 3, 4, 5, 6, 7, 8))\n"),
            (V{"kernel@3", "transpose-axes@8", "transpose-axes@9"}));
}

TEST(TritonKernel, AtomicsInALoopOfTheKernelOnly) {
  EXPECT_EQ(hits("    while n > 0:\n"
                 "        tl.atomic_cas(x_ptr, 0, 1)\n"
                 "    tl.atomic_cas(x_ptr, 0, 1)\n"
                 "    for i in range(4):\n"
                 "        tl.atomic_add(x_ptr, i)\n"),
            (V{"atomic-in-loop@6", "kernel@3"}));
}

TEST(TritonKernel, DtypesCountInKernelsOnly) {
  EXPECT_EQ(hits("    y = tl.load(x_ptr).to(tl.float64)\n"
                 "TABLE = {'f64': tl.float64}\n"),
            (V{"fp64@5", "kernel@3"}));
}
