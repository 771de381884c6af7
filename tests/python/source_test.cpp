#include <gtest/gtest.h>

#include "common/errors.h"
#include "python/source.h"

using banjia::InputError;
using banjia::python::decode_source;
using banjia::python::find_coding_cookie;

namespace {
std::string error_of(std::string_view bytes) {
  try {
    decode_source(bytes, "f.py");
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "f.py");
    return e.problem();
  }
  return "";
}
}  // namespace

TEST(DecodeSource, PlainUtf8IsPassedThrough) {
  auto s = decode_source("x = 'ü'\n", "f.py");
  EXPECT_EQ(s.text, "x = 'ü'\n");
  EXPECT_FALSE(s.had_bom);
  EXPECT_FALSE(s.transcoded);
  EXPECT_EQ(s.encoding, "utf-8");
}

TEST(DecodeSource, BomIsStrippedAndCookieAccepted) {
  auto s = decode_source("\xEF\xBB\xBF# -*- coding: utf-8 -*-\nx = 1\n", "f.py");
  EXPECT_TRUE(s.had_bom);
  EXPECT_EQ(s.text, "# -*- coding: utf-8 -*-\nx = 1\n");
  EXPECT_EQ(s.encoding, "utf-8");
  EXPECT_FALSE(s.transcoded);
}

TEST(DecodeSource, BomWithConflictingCookieIsAnError) {
  EXPECT_NE(error_of("\xEF\xBB\xBF# coding: latin-1\nx = 1\n").find("BOM"), std::string::npos);
}

TEST(DecodeSource, Latin1CookieIsTranscoded) {
  // 0xE9 is U+00E9 (é) in Latin-1, which is C3 A9 in UTF-8.
  auto s = decode_source("# -*- coding: latin-1 -*-\ns = '\xE9t\xE9'\n", "f.py");
  EXPECT_EQ(s.encoding, "iso-8859-1");
  EXPECT_TRUE(s.transcoded);
  EXPECT_EQ(s.text, "# -*- coding: latin-1 -*-\ns = '\xC3\xA9t\xC3\xA9'\n");
}

TEST(DecodeSource, AsciiOnlyLatin1FileIsNotMarkedTranscoded) {
  auto s = decode_source("# vim: set fileencoding=iso-8859-15 :\nx = 1\n", "f.py");
  EXPECT_EQ(s.encoding, "iso-8859-15");
  EXPECT_FALSE(s.transcoded);
}

TEST(DecodeSource, CookieOnSecondLineOnlyAfterCommentOrBlankLine) {
  EXPECT_EQ(find_coding_cookie("#!/usr/bin/env python\n# coding=cp1252\n"), "cp1252");
  EXPECT_EQ(find_coding_cookie("\n# coding: latin-1\n"), "latin-1");
  EXPECT_EQ(find_coding_cookie("import os\n# coding: latin-1\n"), "");
  EXPECT_EQ(find_coding_cookie("#\n#\n# coding: latin-1\n"), "");  // line 3 is too late
  EXPECT_EQ(find_coding_cookie("x = 1  # coding: latin-1\n"), "");  // not a comment-only line
}

TEST(DecodeSource, InvalidUtf8NamesTheLine) {
  std::string problem = error_of("a = 1\nb = 2\nc = '\xFF'\n");
  EXPECT_NE(problem.find("invalid UTF-8 on line 3"), std::string::npos) << problem;
  EXPECT_NE(problem.find("column 6"), std::string::npos) << problem;
}

TEST(DecodeSource, NulBytesMeanBinaryData) {
  std::string bytes("\x7F" "ELF\x02\x01\n\x00\x00", 9);
  std::string problem = error_of(bytes);
  EXPECT_NE(problem.find("binary"), std::string::npos) << problem;
  EXPECT_NE(problem.find("line 2"), std::string::npos) << problem;
}

TEST(DecodeSource, UnknownEncodingIsReported) {
  std::string problem = error_of("# coding: klingon-42\nx = 1\n");
  EXPECT_NE(problem.find("unknown encoding 'klingon-42'"), std::string::npos) << problem;
}

TEST(DecodeSource, UndecodableBytesNameTheLine) {
  std::string problem = error_of("# coding: ascii\nx = 1\ny = '\xE9'\n");
  EXPECT_NE(problem.find("line 3"), std::string::npos) << problem;
}
