// migrate on files with a PEP 263 coding cookie naming another encoding than UTF-8: the edits are
// written in that encoding and every other byte stays as it was. Expected bytes are written out by
// hand (the non-ASCII bytes checked with Python's codecs: 'é'.encode('latin-1') == b'\xe9',
// '中文'.encode('gbk') == b'\xd6\xd0\xce\xc4', '乗'.encode('gbk') == b'\x81\x5c',
// '€“”'.encode('cp1252') == b'\x80\x93\x94').
#include <gtest/gtest.h>

#include <algorithm>

#include "migrate/python_rewriter.h"
#include "rules/core/catalog.h"

namespace {

banjia::migrate::FileRewrite rw(const std::string& src, bool annotate = false) {
  banjia::migrate::RewriteOptions o;
  o.annotate = annotate;
  return banjia::migrate::rewrite_python(src, "t.py", banjia::rules::RuleCatalog::builtin(), o);
}

bool refused(const banjia::migrate::FileRewrite& fr) {
  return std::any_of(fr.leftovers.begin(), fr.leftovers.end(), [](const auto& f) { return f.rule == "input-error"; });
}

}  // namespace

TEST(SourceEncoding, Latin1FileIsRewrittenInLatin1) {
  const std::string src =
      "# -*- coding: latin-1 -*-\n"
      "# caf\xe9 na\xefve\n"
      "import torch\n"
      "s = '\xe9t\xe9'\n"
      "x = y.cuda()  # \xa7 3\n";
  const std::string want =
      "# -*- coding: latin-1 -*-\n"
      "# caf\xe9 na\xefve\n"
      "import torch\n"
      "import torch_npu\n"
      "s = '\xe9t\xe9'\n"
      "x = y.npu()  # \xa7 3\n";
  auto fr = rw(src);
  EXPECT_EQ(fr.rewritten, want);
  EXPECT_FALSE(refused(fr));
  ASSERT_EQ(fr.changes.size(), 2u);
  EXPECT_EQ(fr.changes[1].line, 5);
  EXPECT_EQ(rw(want).rewritten, want);  // idempotent
}

TEST(SourceEncoding, GbkFileIsRewrittenInGbk) {
  // The comment holds 乗 (0x81 0x5C: its second byte is a backslash in ASCII) right before the edit's line.
  const std::string src =
      "# coding: gbk\n"
      "import torch\n"
      "msg = '\xd6\xd0\xce\xc4'  # \x81\x5c\n"
      "torch.cuda.synchronize()\n";
  const std::string want =
      "# coding: gbk\n"
      "import torch\n"
      "import torch_npu\n"
      "msg = '\xd6\xd0\xce\xc4'  # \x81\x5c\n"
      "torch.npu.synchronize()\n";
  EXPECT_EQ(rw(src).rewritten, want);
}

TEST(SourceEncoding, Cp1252AnnotationsAreEncodedToo) {
  const std::string src =
      "# -*- coding: cp1252 -*-\n"
      "import torch\n"
      "label = '\x80 \x93ok\x94'\n"
      "m = torch.nn.DataParallel(net)\n";
  auto fr = rw(src, true);
  EXPECT_FALSE(refused(fr));
  const std::string& out = fr.rewritten;
  // Everything around the inserted note line is byte for byte the original.
  const std::string head = "# -*- coding: cp1252 -*-\nimport torch\nlabel = '\x80 \x93ok\x94'\n";
  ASSERT_EQ(out.substr(0, head.size()), head);
  EXPECT_TRUE(out.ends_with("\nm = torch.nn.DataParallel(net)\n"));
  EXPECT_NE(out.find("# banjia: [data-parallel]"), std::string::npos);
}

TEST(SourceEncoding, Utf7IsStillRefused) {
  // A stateful encoding: glibc writes '#', '*' and '_' of the cookie line in base64 ("+ACM-" ...), so
  // the pieces do not re-encode to the original bytes; the file is left and reported.
  const std::string src = "# -*- coding: utf-7 -*-\nimport torch\nx = y.cuda()  # caf+AOk-\n";
  auto fr = rw(src);
  EXPECT_EQ(fr.rewritten, src);
  EXPECT_TRUE(fr.changes.empty());
  EXPECT_TRUE(refused(fr));
}

TEST(SourceEncoding, Iso8859_15IsRewrittenInIso8859_15) {
  // 0xA4 is the euro sign in ISO 8859-15 (Python: '\u20ac'.encode('iso8859-15') == b'\xa4').
  const std::string src = "# -*- coding: iso8859-15 -*-\nimport torch\ns = '\xa4'\nx = y.cuda()\n";
  EXPECT_EQ(rw(src).rewritten, "# -*- coding: iso8859-15 -*-\nimport torch\nimport torch_npu\ns = '\xa4'\nx = y.npu()\n");
}

TEST(SourceEncoding, NoteTheEncodingCannotHoldIsRefused) {
  // The built-in messages are ASCII; a catalogue whose message has a character latin-1 lacks ('✘')
  // cannot be written into a latin-1 file as a note: the file is left and reported.
  banjia::rules::RuleCatalog rules;
  rules.add_toml("[[rule]]\nid = \"dp\"\ncategory = \"device\"\nseverity = \"error\"\nfix = \"manual\"\n"
                 "message = \"DataParallel \u2718\"\nsource = \"test\"\n"
                 "match = { kind = \"qualified\", names = [\"torch.nn.DataParallel\"] }\n",
                 "test.toml");
  banjia::migrate::RewriteOptions o;
  o.annotate = true;
  const std::string src = "# -*- coding: latin-1 -*-\nimport torch\nm = torch.nn.DataParallel(net)  # \xe9\n";
  auto fr = banjia::migrate::rewrite_python(src, "t.py", rules, o);
  EXPECT_EQ(fr.rewritten, src);
  EXPECT_TRUE(refused(fr));
  // The same note in UTF-8 is written.
  auto utf8 = banjia::migrate::rewrite_python("import torch\nm = torch.nn.DataParallel(net)\n", "t.py", rules, o);
  EXPECT_NE(utf8.rewritten.find("# banjia: [dp] DataParallel \u2718"), std::string::npos);
}
