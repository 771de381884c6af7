// lex::ascii_name_end (the tokenizer's SSE2 identifier scan) must end every identifier exactly where
// the byte-by-byte definition (lex::kNameChar) does: for every ASCII byte that may follow a name,
// names of every length around the 16-byte step, starting anywhere relative to the end of the text.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "python/lex_scan.h"

using banjia::python::lex::ascii_name_end;
using banjia::python::lex::kNameChar;

namespace {
size_t byte_by_byte(std::string_view s, size_t i) {
  while (i < s.size() && kNameChar[static_cast<unsigned char>(s[i])]) ++i;
  return i;
}
}  // namespace

TEST(AsciiNameEnd, AgreesWithTheByteDefinitionForEveryTerminator) {
  const std::string letters = "aZ_09zA9_bQx7";
  for (int term = 0; term < 0x80; ++term) {
    for (size_t len = 1; len <= 40; ++len) {
      std::string name;
      for (size_t k = 0; k < len; ++k) name.push_back(letters[k % letters.size()]);
      for (size_t tail = 0; tail <= 18; ++tail) {  // bytes after the terminator: 0 puts the name near the end
        std::string text = "x " + name + static_cast<char>(term) + std::string(tail, 'q');
        // An exact-size heap copy, so ASan reports a load past the end.
        std::unique_ptr<char[]> buf(new char[text.size()]);
        text.copy(buf.get(), text.size());
        const std::string_view s(buf.get(), text.size());
        ASSERT_EQ(ascii_name_end(s, 2), byte_by_byte(s, 2)) << "len " << len << " terminator " << term << " tail " << tail;
      }
    }
  }
}

TEST(AsciiNameEnd, NameRunningToTheEndOfTheText) {
  for (size_t len = 0; len <= 40; ++len) {
    const std::string text(len, 'n');
    EXPECT_EQ(ascii_name_end(text, 0), len);
  }
}

TEST(SkipSpaces, StopsAtTheFirstOtherByteOrTheEnd) {
  using banjia::python::lex::skip_spaces;
  for (size_t run = 0; run <= 40; ++run) {
    for (std::string after : {"", "\t", "\f", "x", "\n", "  \t"}) {
      const std::string text = "ab" + std::string(run, ' ') + after;
      std::unique_ptr<char[]> buf(new char[text.size()]);
      text.copy(buf.get(), text.size());
      const size_t expect = 2 + run + (after.starts_with("  ") ? 2 : 0);
      EXPECT_EQ(skip_spaces(std::string_view(buf.get(), text.size()), 2), expect) << run << " then " << after.size();
    }
  }
}
