// Turning the bytes of a .py file into UTF-8 text ready to tokenize: BOM, PEP 263 encoding
// cookies, transcoding of non-UTF-8 sources, and clear errors for input that is not Python text.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace banjia::python {

struct SourceFile {            // decoded source, ready to tokenize
  std::string text;            // UTF-8 text WITHOUT a leading BOM
  bool had_bom = false;
  std::string encoding = "utf-8";  // normalised name from the PEP 263 cookie / BOM
  bool transcoded = false;         // true when text != original bytes (minus BOM); rewriters must not write back
                                   // the text itself, but may re-encode it (SourceEncoder)
  std::string cookie;              // the encoding name as the cookie spells it ("" without a cookie)
};

// Writes UTF-8 text back in a file's declared encoding (glibc iconv, the spellings decode_source
// tried). Each call starts from the encoding's initial shift state and returns to it at the end, so
// for a stateless encoding the pieces of a text encode to the pieces of its bytes.
class SourceEncoder {
 public:
  explicit SourceEncoder(const SourceFile& source);
  ~SourceEncoder();
  SourceEncoder(const SourceEncoder&) = delete;
  SourceEncoder& operator=(const SourceEncoder&) = delete;
  bool ok() const { return cd_ != nullptr; }  // iconv knows the encoding
  // nullopt when a character has no representation in the encoding.
  std::optional<std::string> encode(std::string_view utf8);

 private:
  void* cd_ = nullptr;  // iconv_t
};

// Decodes bytes per PEP 263 (cookie on line 1, or line 2 when line 1 is blank or a comment) and BOM.
// Non-UTF-8 encodings are transcoded with iconv. Throws InputError(display_path, "...") on invalid
// UTF-8 (naming the line), an unknown encoding, undecodable bytes, or binary data (NUL bytes).
SourceFile decode_source(std::string_view bytes, const std::string& display_path);
// Same, into `out`, reusing the capacity of out.text: a scanner decoding thousands of files into one
// SourceFile per thread neither allocates nor page-faults a fresh copy of every file.
void decode_source(std::string_view bytes, const std::string& display_path, SourceFile& out);

// Same checks, without copying text that needs no transcoding: returns a view of `bytes` itself
// (after any BOM), valid as long as `bytes` is; only a transcoded file is written to out.text (and
// viewed there). out.text is left as it was otherwise. For scanners that read a file into a buffer,
// analyse it and are done with it before the buffer is reused (a copy costs 2 % of a scan).
std::string_view decode_source_in_place(std::string_view bytes, const std::string& display_path, SourceFile& out);

// The encoding named by a PEP 263 cookie in the first two lines, or "" when there is none.
// The name is returned as written (not normalised).
std::string find_coding_cookie(std::string_view bytes);

}  // namespace banjia::python
