// .npy parsing: valid headers of every version, byte orders, memory orders, and malformed input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <variant>

#include "compare/analysis/metrics.h"
#include "compare/readers/npy_format.h"

namespace banjia::compare {
namespace {

// Builds an npy image the way numpy/lib/format.py describes it (padding to 64 bytes).
std::string npy(const std::string& dict, const std::string& data, int major = 1) {
  std::string header = dict;
  size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  uint32_t len = static_cast<uint32_t>(header.size());
  out += static_cast<char>(len & 0xff);
  out += static_cast<char>((len >> 8) & 0xff);
  if (major > 1) {
    out += static_cast<char>((len >> 16) & 0xff);
    out += static_cast<char>((len >> 24) & 0xff);
  }
  return out + header + data;
}

template <class T>
std::string raw(std::initializer_list<T> values) {
  std::string out;
  for (T v : values) out.append(reinterpret_cast<const char*>(&v), sizeof v);
  return out;
}

// The view points into the image, so the image is kept alongside it.
struct Parsed {
  std::shared_ptr<std::string> image;
  NpyView view;
  const NpyView* operator->() const { return &view; }
  operator const NpyView&() const { return view; }
};

Parsed ok(const std::string& image) {
  auto kept = std::make_shared<std::string>(image);
  auto r = parse_npy(*kept);
  if (auto* e = std::get_if<std::string>(&r)) {
    ADD_FAILURE() << *e;
    return {kept, NpyView{}};
  }
  return {kept, std::get<NpyView>(r)};
}

std::string problem(const std::string& image) {
  auto r = parse_npy(image);
  return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : "";
}

TEST(NpyFormat, ParsesVersion1Float32) {
  std::string img = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", raw<float>({1, 2, 3, 4, 5, 6}));
  Parsed v = ok(img);
  EXPECT_EQ(v->dtype, DType::kF32);
  EXPECT_EQ(v->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(v->count, 6u);
  EXPECT_FALSE(v->fortran_order);
  EXPECT_EQ(element_as_double(v, 5), 6.0);
}

TEST(NpyFormat, ParsesVersion2And3AndKeyOrder) {
  for (int major : {2, 3}) {
    Parsed v = ok(npy("{'shape': (3,), 'fortran_order': False, 'descr': '<f8'}", raw<double>({0.5, 1.5, -2}), major));
    EXPECT_EQ(v->dtype, DType::kF64);
    EXPECT_EQ(element_as_double(v, 2), -2.0);
  }
}

TEST(NpyFormat, ZeroDimensionalHoldsOneElement) {
  Parsed v = ok(npy("{'descr': '<i8', 'fortran_order': False, 'shape': (), }", raw<int64_t>({42})));
  EXPECT_TRUE(v->shape.empty());
  EXPECT_EQ(v->count, 1u);
  EXPECT_EQ(element_as_double(v, 0), 42.0);
}

TEST(NpyFormat, BigEndianIsSwapped) {
  std::string be("\x3f\x80\x00\x00\xc0\x00\x00\x00", 8);  // 1.0f, -2.0f big-endian
  Parsed v = ok(npy("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", be));
  EXPECT_TRUE(v->big_endian);
  EXPECT_EQ(element_as_double(v, 0), 1.0);
  EXPECT_EQ(element_as_double(v, 1), -2.0);
}

TEST(NpyFormat, HalfAndBfloat16Decode) {
  // fp16: 0x3c00 = 1, 0xc000 = -2, 0x7bff = 65504, 0x0001 = 2^-24, 0x7c00 = inf
  Parsed h = ok(npy("{'descr': '<f2', 'fortran_order': False, 'shape': (5,), }",
                     raw<uint16_t>({0x3c00, 0xc000, 0x7bff, 0x0001, 0x7c00})));
  EXPECT_EQ(element_as_double(h, 0), 1.0);
  EXPECT_EQ(element_as_double(h, 1), -2.0);
  EXPECT_EQ(element_as_double(h, 2), 65504.0);
  EXPECT_EQ(element_as_double(h, 3), std::ldexp(1.0, -24));
  EXPECT_TRUE(std::isinf(element_as_double(h, 4)));
  // bf16 is the top half of a float32: 0x3fc0 = 1.5
  Parsed b = ok(npy("{'descr': 'bfloat16', 'fortran_order': False, 'shape': (1,), }", raw<uint16_t>({0x3fc0})));
  EXPECT_EQ(b->dtype, DType::kBF16);
  EXPECT_EQ(element_as_double(b, 0), 1.5);
}

TEST(NpyFormat, BoolAndIntegers) {
  Parsed v = ok(npy("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", std::string("\x01\x00", 2)));
  EXPECT_EQ(v->dtype, DType::kBool);
  EXPECT_EQ(element_as_double(v, 0), 1.0);
  Parsed u = ok(npy("{'descr': '<u2', 'fortran_order': False, 'shape': (1,), }", raw<uint16_t>({65535})));
  EXPECT_EQ(element_as_double(u, 0), 65535.0);
}

TEST(NpyFormat, RejectsMalformedInput) {
  EXPECT_NE(problem("not numpy at all"), "");
  EXPECT_NE(problem(npy("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", raw<float>({1, 2})))
                .find("unsupported npy dtype"),
            std::string::npos);
  EXPECT_NE(problem(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", raw<float>({1, 2})))
                .find("data shorter"),
            std::string::npos);
  EXPECT_NE(problem(npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", raw<float>({1}))), "");
  EXPECT_EQ(problem(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", "")),
            "npy shape has a negative dimension");
  EXPECT_EQ(problem(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }", "")),
            "npy shape has a negative dimension");
  EXPECT_EQ(problem(npy("{'descr': '<f4', 'fortran_order': False, 'shape': ('x',), }", "")),
            "npy shape holds a non-integer");
  EXPECT_NE(problem(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }", "")), "");
  std::string img = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", raw<float>({1}));
  img[6] = 9;  // unknown version
  EXPECT_NE(problem(img).find("version"), std::string::npos);
  EXPECT_NE(problem(img.substr(0, 9)), "");
}

}  // namespace
}  // namespace banjia::compare
