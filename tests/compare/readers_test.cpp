// Dump readers: msprobe's non-finite JSON tokens, call-count stripping for matching, zip guards.
#include <gtest/gtest.h>

#include <zip.h>

#include <filesystem>
#include <fstream>

#include "common/errors.h"
#include "compare/model/dump_model.h"
#include "compare/readers/relaxed_json.h"
#include "compare/readers/tensor_store.h"

namespace banjia::compare {
namespace {
namespace fs = std::filesystem;

TEST(RelaxedJson, QuotesBareTokensOutsideStrings) {
  EXPECT_EQ(quote_nonfinite_tokens(R"({"Max": NaN, "Min": -Infinity, "x": "NaN Infinity", "y": Infinity})"),
            R"({"Max": "NaN", "Min": "-Infinity", "x": "NaN Infinity", "y": "Infinity"})");
  EXPECT_EQ(quote_nonfinite_tokens(R"({"s": "a\"NaN"})"), R"({"s": "a\"NaN"})");
}

TEST(Matching, NameWithoutCallCount) {
  DumpEntry e;
  e.key = "0012.blocks.1.ln2.forward.output";
  EXPECT_EQ(name_without_call_count(e, "banjia"), "blocks.1.ln2.forward.output");
  e.key = "Functional.linear.5.forward.output.0";
  EXPECT_EQ(name_without_call_count(e, "msprobe"), "Functional.linear.forward.output.0");
  e.key = "Module.conv1.Conv2d.forward.0.input.0";
  EXPECT_EQ(name_without_call_count(e, "msprobe"), "Module.conv1.Conv2d.forward.input.0");
}

class ZipGuards : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("banjia_zip_test_" + std::to_string(::getpid()));
  void SetUp() override { fs::create_directories(dir); }
  void TearDown() override { fs::remove_all(dir); }
  fs::path make_zip(const std::vector<std::pair<std::string, std::string>>& members) {
    fs::path p = dir / "t.npz";
    int err = 0;
    zip_t* z = zip_open(p.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
    EXPECT_NE(z, nullptr);
    for (const auto& [name, data] : members) {
      auto* copy = new std::string(data);  // freed below, after zip_close wrote it
      zip_source_t* s = zip_source_buffer(z, copy->data(), copy->size(), 0);
      zip_file_add(z, name.c_str(), s, ZIP_FL_ENC_UTF_8);
      keep_.emplace_back(copy);
    }
    EXPECT_EQ(zip_close(z), 0);
    return p;
  }
  std::vector<std::unique_ptr<std::string>> keep_;
};

TEST_F(ZipGuards, UnsafeNamesAndBombsAreRefusedPerMember) {
  std::string zeros(8u << 20, '\0');  // 8 MiB of zeros deflates over 100:1
  fs::path p = make_zip({{"../evil.npy", "x"}, {"/abs.npy", "x"}, {"ok.npy", "abc"}, {"bomb.npy", zeros}});
  NpzArchive archive(p, ZipLimits{16ull << 30, 256ull << 30, 100.0});
  const auto& m = archive.members();
  ASSERT_EQ(m.size(), 4u);
  EXPECT_NE(m[0].problem.find("unsafe"), std::string::npos);
  EXPECT_NE(m[1].problem.find("unsafe"), std::string::npos);
  EXPECT_EQ(m[2].problem, "");
  EXPECT_NE(m[3].problem.find("zip bomb"), std::string::npos);
  std::vector<std::byte> out;
  std::string_view bytes;
  EXPECT_EQ(archive.read(2, out, bytes), "");
  EXPECT_EQ(bytes, "abc");
  EXPECT_NE(archive.read(0, out, bytes), "");
  NpzArchive small(p, ZipLimits{1024, 1ull << 40, 1e9});  // per-member size limit
  EXPECT_NE(small.members()[3].problem.find("more than 1 KiB (--max-input-size)"), std::string::npos);
}

TEST_F(ZipGuards, NotAZipIsAnInputError) {
  fs::path p = dir / "bad.npz";
  std::ofstream(p) << "definitely not a zip";
  EXPECT_THROW(NpzArchive{p}, InputError);
}

}  // namespace
}  // namespace banjia::compare
