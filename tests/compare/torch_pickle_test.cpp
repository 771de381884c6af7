// The restricted torch.save pickle reader: it reads the opcodes torch's pickler writes into tensor
// locations, refuses any other global by name, and returns a problem (never crashes) on every
// truncation of a valid pickle.
#include <gtest/gtest.h>

#include <string>

#include "compare/readers/torch_pickle.h"

namespace banjia::compare {
namespace {

using namespace std::string_literals;

// _rebuild_tensor_v2(storage('0', FloatStorage, numel 6), offset 1, size (2, 2), stride (1, 2),
// False, OrderedDict()) as pickle protocol 2 opcodes, the way torch.save writes a tensor.
std::string tensor_ops(const std::string& storage_type = "FloatStorage") {
  return "c" "torch._utils\n_rebuild_tensor_v2\n" "q\x01"
         "("                                          // MARK: the arguments
         "(" "X\x07\0\0\0storage" "c" "torch\n"s + storage_type + "\n"
         "X\x01\0\0\0" "0" "X\x03\0\0\0cpu" "K\x06" "t" "Q"  // persistent id -> storage
         "K\x01"                                      // storage offset
         "K\x02" "K\x02" "\x86"                       // size (2, 2)
         "K\x01" "K\x02" "\x86"                       // stride (1, 2): column-major
         "\x89"                                       // requires_grad False
         "c" "collections\nOrderedDict\n" ")" "R"     // backward hooks
         "t" "R"s;
}

std::string bare_tensor() { return "\x80\x02"s + tensor_ops() + "."; }

TEST(TorchPickle, ReadsWhereABareTensorsElementsAre) {
  auto read = read_torch_pickle(bare_tensor());
  ASSERT_TRUE(std::holds_alternative<std::vector<PickledTensor>>(read)) << std::get<std::string>(read);
  const auto& ts = std::get<std::vector<PickledTensor>>(read);
  ASSERT_EQ(ts.size(), 1u);
  EXPECT_EQ(ts[0].dtype, DType::kF32);
  EXPECT_EQ(ts[0].storage_key, "0");
  EXPECT_EQ(ts[0].storage_numel, 6);
  EXPECT_EQ(ts[0].offset, 1);
  EXPECT_EQ(ts[0].shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(ts[0].stride, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(ts[0].name, "");
}

TEST(TorchPickle, NamesTensorsInsideDicts) {
  std::string p = "\x80\x02}q\x00(X\x06\0\0\0weight"s + tensor_ops("BFloat16Storage") + "u.";
  auto read = read_torch_pickle(p);
  ASSERT_TRUE(std::holds_alternative<std::vector<PickledTensor>>(read)) << std::get<std::string>(read);
  const auto& ts = std::get<std::vector<PickledTensor>>(read);
  ASSERT_EQ(ts.size(), 1u);
  EXPECT_EQ(ts[0].name, "weight");
  EXPECT_EQ(ts[0].dtype, DType::kBF16);
}

TEST(TorchPickle, RefusesEveryOtherGlobalByName) {
  auto read = read_torch_pickle("\x80\x02" "cposix\nsystem\nX\x02\0\0\0lsq\x85R."s);
  ASSERT_TRUE(std::holds_alternative<std::string>(read));
  EXPECT_NE(std::get<std::string>(read).find("refuses global posix.system"), std::string::npos);
  read = read_torch_pickle("\x80\x02" "ctorch\nload\n."s);
  ASSERT_TRUE(std::holds_alternative<std::string>(read));
  EXPECT_NE(std::get<std::string>(read).find("torch.load"), std::string::npos);
}

TEST(TorchPickle, EveryTruncationIsAProblemNotACrash) {
  const std::string whole = bare_tensor();
  for (size_t n = 0; n < whole.size(); ++n)
    EXPECT_TRUE(std::holds_alternative<std::string>(read_torch_pickle(whole.substr(0, n)))) << n;
}

TEST(TorchPickle, AListThatHoldsItselfIsReadAndFreed) {
  // EMPTY_LIST, BINPUT 0, BINGET 0, APPEND: the list appended to itself (fuzz_torch_pt,
  // self-holding-list); under LeakSanitizer a cycle of shared pointers left behind fails this test.
  const auto r = read_torch_pickle("\x80\x02]q\x00h\x00a."s);
  // no tensor in it: read as nothing, or refused as a pickle that holds no tensor
  if (const auto* tensors = std::get_if<std::vector<PickledTensor>>(&r)) EXPECT_TRUE(tensors->empty());
  else EXPECT_FALSE(std::get<std::string>(r).empty());
}

}  // namespace
}  // namespace banjia::compare
