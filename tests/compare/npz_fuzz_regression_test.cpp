// Regressions for what fuzz_npy and the malformed-input corpus found (fuzz/corpus/npy/regression-*).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <variant>

#include "compare/readers/npy_format.h"
#include "compare/readers/tensor_store.h"

namespace banjia::compare {
namespace {
namespace fs = std::filesystem;

// The central directory claims 1.5 GB of compressed data in a 386-byte file: that size disabled the
// ratio guard (any uncompressed size looked plausible), so the member is refused before any read.
TEST(NpzRegression, CompressedSizeBeyondTheArchiveIsRefused) {
  NpzArchive a(fs::path(BANJIA_SOURCE_DIR) / "fuzz" / "corpus" / "npy" / "regression-compressed-size-beyond-archive.npz");
  ASSERT_EQ(a.members().size(), 2u);
  EXPECT_EQ(a.members()[0].problem, "");
  EXPECT_EQ(a.members()[1].name, "t.npy");
  EXPECT_EQ(a.members()[1].problem, "member claims 1526726728 compressed bytes but the archive holds 386 (corrupt archive)");
  std::vector<std::byte> buffer;
  std::string_view bytes;
  EXPECT_NE(a.read(1, buffer, bytes), "");
  EXPECT_TRUE(buffer.empty());
}

TEST(NpyRegression, DimensionBeyondInt64IsTooLargeNotANonInteger) {
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999,), }\n";
  std::string npy = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header;
  auto r = parse_npy(npy);
  ASSERT_TRUE(std::holds_alternative<std::string>(r));
  EXPECT_EQ(std::get<std::string>(r), "npy shape is too large");
}

}  // namespace
}  // namespace banjia::compare
