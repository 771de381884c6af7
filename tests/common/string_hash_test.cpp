// StringHash reads a string in 8-, 4- and 1-byte pieces depending on its length: every byte of every
// length must reach the hash (a tail load at the wrong offset would drop or repeat bytes), and no
// load may leave the string (the ASan build runs these tests).
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>

#include "common/string_hash.h"

using banjia::StringHash;

TEST(StringHash, EveryByteOfEveryLengthChangesTheHash) {
  const std::string base = "torch.cuda.amp.autocast.GradScaler.step";
  for (size_t len = 1; len <= base.size(); ++len) {
    // An exact-size heap copy: ASan reports any load past its end.
    std::unique_ptr<char[]> text(new char[len]);
    base.copy(text.get(), len);
    const std::string_view s(text.get(), len);
    const size_t h = StringHash{}(s);
    for (size_t i = 0; i < len; ++i) {
      const char saved = text[i];
      text[i] = static_cast<char>(saved ^ 0x20);
      EXPECT_NE(StringHash{}(s), h) << "length " << len << ", byte " << i;
      text[i] = saved;
    }
  }
}

TEST(StringHash, PrefixesHashApart) {
  const std::string base = "torch.nn.parallel.DistributedDataParallel";
  std::set<size_t> seen;
  for (size_t len = 0; len <= base.size(); ++len) seen.insert(StringHash{}(std::string_view(base).substr(0, len)));
  EXPECT_EQ(seen.size(), base.size() + 1);
}

TEST(StringHash, StringAndViewAgree) {
  const std::string s = "torch.cuda.synchronize";
  EXPECT_EQ(StringHash{}(s), StringHash{}(std::string_view(s)));
}
