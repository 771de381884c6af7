// Turning the bytes of a .py file into UTF-8 text ready to tokenize: BOM, PEP 263 encoding
// cookies, transcoding of non-UTF-8 sources, and clear errors for input that is not Python text.
#pragma once
#include <string>
#include <string_view>

namespace banjia::python {

struct SourceFile {            // decoded source, ready to tokenize
  std::string text;            // UTF-8 text WITHOUT a leading BOM
  bool had_bom = false;
  std::string encoding = "utf-8";  // normalised name from the PEP 263 cookie / BOM
  bool transcoded = false;         // true when text != original bytes (minus BOM); rewriters must not write back
};

// Decodes bytes per PEP 263 (cookie on line 1, or line 2 when line 1 is blank or a comment) and BOM.
// Non-UTF-8 encodings are transcoded with iconv. Throws InputError(display_path, "...") on invalid
// UTF-8 (naming the line), an unknown encoding, undecodable bytes, or binary data (NUL bytes).
SourceFile decode_source(std::string_view bytes, const std::string& display_path);
// Same, into `out`, reusing the capacity of out.text: a scanner decoding thousands of files into one
// SourceFile per thread neither allocates nor page-faults a fresh copy of every file.
void decode_source(std::string_view bytes, const std::string& display_path, SourceFile& out);

// The encoding named by a PEP 263 cookie in the first two lines, or "" when there is none.
// The name is returned as written (not normalised).
std::string find_coding_cookie(std::string_view bytes);

}  // namespace banjia::python
