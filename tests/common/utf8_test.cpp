// UTF-8 validation: known verdicts from the Unicode standard (Table 3-7, well-formed byte sequences),
// and the SIMD path (simdjson) agreeing with the byte-by-byte walk on every boundary case.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/utf8.h"

namespace banjia {
namespace {

TEST(Utf8, KnownSequences) {
  EXPECT_EQ(utf8_first_invalid("plain ascii"), 11u);
  EXPECT_EQ(utf8_first_invalid("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"), 14u);  // é € 😀: valid
  EXPECT_EQ(utf8_first_invalid("ab\xC0\xAF"), 2u);          // overlong '/'
  EXPECT_EQ(utf8_first_invalid("ab\xED\xA0\x80z"), 2u);     // U+D800, a surrogate
  EXPECT_EQ(utf8_first_invalid("\xF4\x90\x80\x80"), 0u);    // above U+10FFFF
  EXPECT_EQ(utf8_first_invalid("x\xE2\x82"), 1u);           // truncated at the end
  EXPECT_EQ(utf8_first_invalid("x\x80"), 1u);               // lone continuation byte
  EXPECT_EQ(utf8_first_invalid("x\xFF"), 1u);
}

// Every lead byte with boundary continuation bytes, placed at every offset of a 64-byte SIMD block
// and after it: the fast path must give the same verdict and position as the scalar walk.
TEST(Utf8, SimdAndScalarAgree) {
  const std::vector<unsigned char> tails = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF};
  size_t checked = 0, invalid = 0;
  for (int lead = 0x80; lead <= 0xFF; ++lead) {
    for (unsigned char t1 : tails) {
      for (unsigned char t2 : tails) {
        for (unsigned char t3 : {static_cast<unsigned char>(0x80), static_cast<unsigned char>(0xBF),
                                 static_cast<unsigned char>(0x41)}) {
          for (size_t at : {size_t{0}, size_t{31}, size_t{62}, size_t{63}, size_t{64}, size_t{100}}) {
            std::string s(at, 'a');
            s += static_cast<char>(lead);
            s += static_cast<char>(t1);
            s += static_cast<char>(t2);
            s += static_cast<char>(t3);
            s += std::string(40, 'b');
            if (s.find('\0') != std::string::npos) s[s.find('\0')] = 'c';
            size_t scalar = utf8_first_invalid_scalar(s);
            ASSERT_EQ(utf8_first_invalid(s), scalar) << "lead " << lead << " at " << at;
            ++checked;
            invalid += scalar != s.size();
          }
        }
      }
    }
  }
  EXPECT_GT(invalid, 0u);
  EXPECT_LT(invalid, checked);  // both verdicts occur
}

}  // namespace
}  // namespace banjia
