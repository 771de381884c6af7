// UninitVector: small blocks come from malloc; blocks of 2 MiB or more are their own 2 MiB-aligned
// mappings (for transparent huge pages). Both must behave as any std::vector.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>

#include "common/uninit_allocator.h"

using banjia::UninitVector;

TEST(UninitVector, LargeBlocksAreHugePageAligned) {
  UninitVector<uint32_t> v;
  v.resize((size_t{3} << 20) / sizeof(uint32_t));  // 3 MiB: a mapping of 4 MiB
  EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data()) % (size_t{2} << 20), 0u);
  std::iota(v.begin(), v.end(), 0u);  // every byte of the block is writable
  EXPECT_EQ(v.back(), v.size() - 1);
}

TEST(UninitVector, GrowingAcrossTheThresholdKeepsTheContents) {
  UninitVector<uint64_t> v;
  for (uint64_t i = 0; i < 600000; ++i) v.push_back(i * 7);  // 4.8 MB: small blocks, then mappings
  for (uint64_t i = 0; i < v.size(); i += 4999) ASSERT_EQ(v[i], i * 7);
  v.resize(10);
  v.shrink_to_fit();  // back to a small block: the mapping is released
  EXPECT_EQ(v[9], 63u);
  UninitVector<uint64_t> copy = v;
  EXPECT_EQ(copy, v);
}
