#include "python/source.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <iconv.h>

#include "common/errors.h"
#include "common/utf8.h"

namespace banjia::python {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

uint32_t line_of(std::string_view bytes, size_t offset) {
  return 1 + static_cast<uint32_t>(std::count(bytes.begin(), bytes.begin() + offset, '\n'));
}

std::string_view physical_line(std::string_view s, size_t start) {
  size_t nl = s.find('\n', start);
  return s.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl + 1 - start);
}

bool is_space_tab_ff(char c) { return c == ' ' || c == '\t' || c == '\f'; }
bool is_cookie_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

// PEP 263: ^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)
std::string cookie_in_line(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && is_space_tab_ff(line[i])) ++i;
  if (i >= line.size() || line[i] != '#') return "";
  for (size_t at = line.find("coding", i); at != std::string_view::npos; at = line.find("coding", at + 1)) {
    size_t j = at + 6;
    if (j >= line.size() || (line[j] != ':' && line[j] != '=')) continue;
    ++j;
    while (j < line.size() && (line[j] == ' ' || line[j] == '\t')) ++j;
    size_t k = j;
    while (k < line.size() && is_cookie_name_char(line[k])) ++k;
    if (k > j) return std::string(line.substr(j, k - j));
  }
  return "";
}

// Line 1 is blank or a comment, so a cookie may sit on line 2 (as tokenize.detect_encoding).
bool blank_or_comment(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && is_space_tab_ff(line[i])) ++i;
  return i == line.size() || line[i] == '#' || line[i] == '\r' || line[i] == '\n';
}

// tokenize._get_normal_name, extended so every UTF-8 / Latin-1 spelling gets one name.
std::string normal_encoding_name(std::string_view name) {
  std::string e(name);
  for (char& c : e) c = (c == '_') ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (e == "utf-8" || e == "utf8" || e.starts_with("utf-8-")) return "utf-8";
  if (e == "latin-1" || e == "latin1" || e == "l1" || e == "iso-8859-1" || e == "iso8859-1" ||
      e == "iso-latin-1" || e.starts_with("latin-1-") || e.starts_with("iso-8859-1-") ||
      e.starts_with("iso-latin-1-"))
    return "iso-8859-1";
  return e;
}

std::string transcode(std::string_view body, const std::string& cookie, const std::string& normal,
                      const std::string& path) {
  // Python spells some codecs differently from iconv ("latin-1"); try both spellings.
  iconv_t cd = iconv_open("UTF-8", cookie.c_str());
  if (cd == reinterpret_cast<iconv_t>(-1)) cd = iconv_open("UTF-8", normal.c_str());
  if (cd == reinterpret_cast<iconv_t>(-1))
    throw InputError(path, fmt::format("unknown encoding '{}' in coding cookie", cookie));
  std::string out(body.size() * 4 + 16, '\0');
  char* in_ptr = const_cast<char*>(body.data());
  size_t in_left = body.size();
  char* out_ptr = out.data();
  size_t out_left = out.size();
  size_t rc = iconv(cd, &in_ptr, &in_left, &out_ptr, &out_left);
  int err = errno;
  iconv_close(cd);
  if (rc == static_cast<size_t>(-1)) {
    size_t at = body.size() - in_left;
    throw InputError(path, fmt::format("cannot decode line {} as {} ({})", line_of(body, at), cookie,
                                       err == E2BIG ? "output too large" : "invalid byte sequence"));
  }
  out.resize(out.size() - out_left);
  return out;
}

}  // namespace

std::string find_coding_cookie(std::string_view bytes) {
  if (bytes.starts_with(kBom)) bytes.remove_prefix(kBom.size());
  std::string_view first = physical_line(bytes, 0);
  std::string cookie = cookie_in_line(first);
  if (!cookie.empty() || !blank_or_comment(first) || first.size() == bytes.size()) return cookie;
  return cookie_in_line(physical_line(bytes, first.size()));
}

SourceFile decode_source(std::string_view bytes, const std::string& display_path) {
  SourceFile out;
  decode_source(bytes, display_path, out);
  return out;
}

void decode_source(std::string_view bytes, const std::string& display_path, SourceFile& out) {
  std::string_view text = decode_source_in_place(bytes, display_path, out);
  if (text.data() != out.text.data()) out.text.assign(text);
}

std::string_view decode_source_in_place(std::string_view bytes, const std::string& display_path, SourceFile& out) {
  if (bytes.size() >= UINT32_MAX) throw InputError(display_path, "file too large to scan (4 GiB or more)");
  out.had_bom = false;
  out.transcoded = false;
  out.cookie.clear();
  if (bytes.starts_with(kBom)) {
    out.had_bom = true;
    bytes.remove_prefix(kBom.size());
  }
  if (const void* nul = std::memchr(bytes.data(), '\0', bytes.size())) {
    size_t at = static_cast<const char*>(nul) - bytes.data();
    throw InputError(display_path,
                     fmt::format("binary data, not Python source (NUL byte on line {})", line_of(bytes, at)));
  }
  std::string cookie = find_coding_cookie(bytes);
  std::string name = cookie.empty() ? "utf-8" : normal_encoding_name(cookie);
  if (out.had_bom && name != "utf-8")
    throw InputError(display_path, fmt::format("encoding problem: UTF-8 BOM with coding cookie '{}'", cookie));
  out.encoding = name;
  if (name == "utf-8") {
    size_t bad = utf8_first_invalid(bytes);
    if (bad != bytes.size()) {
      size_t line_start = bytes.rfind('\n', bad == 0 ? 0 : bad - 1);
      line_start = (line_start == std::string_view::npos || bad == 0) ? 0 : line_start + 1;
      throw InputError(display_path,
                       fmt::format("invalid UTF-8 on line {}, column {} (byte 0x{:02X}); add a PEP 263 "
                                   "coding cookie if the file uses another encoding",
                                   line_of(bytes, bad), utf8_count_code_points(bytes.substr(line_start, bad - line_start)) + 1,
                                   static_cast<unsigned char>(bytes[bad])));
    }
    return bytes;
  }
  out.cookie = cookie;
  out.text = transcode(bytes, cookie, name, display_path);
  out.transcoded = out.text != bytes;
  return out.text;
}

SourceEncoder::SourceEncoder(const SourceFile& source) {
  for (const std::string& name : {source.cookie, source.encoding}) {
    if (name.empty()) continue;
    iconv_t cd = iconv_open(name.c_str(), "UTF-8");
    if (cd != reinterpret_cast<iconv_t>(-1)) {
      cd_ = cd;
      return;
    }
  }
}

SourceEncoder::~SourceEncoder() {
  if (cd_) iconv_close(static_cast<iconv_t>(cd_));
}

std::optional<std::string> SourceEncoder::encode(std::string_view utf8) {
  if (!cd_) return std::nullopt;
  const auto cd = static_cast<iconv_t>(cd_);
  iconv(cd, nullptr, nullptr, nullptr, nullptr);  // initial shift state
  std::string out(utf8.size() * 4 + 16, '\0');
  char* in_ptr = const_cast<char*>(utf8.data());
  size_t in_left = utf8.size();
  char* out_ptr = out.data();
  size_t out_left = out.size();
  if (iconv(cd, &in_ptr, &in_left, &out_ptr, &out_left) == static_cast<size_t>(-1)) return std::nullopt;
  if (iconv(cd, nullptr, nullptr, &out_ptr, &out_left) == static_cast<size_t>(-1)) return std::nullopt;  // back to it
  out.resize(out.size() - out_left);
  return out;
}

}  // namespace banjia::python
