#include "compare/readers/npy_format.h"

#include <array>
#include <cctype>
#include <cstring>
#include <limits>

#include <fmt/format.h>

namespace banjia::compare {

namespace {

struct DTypeInfo {
  DType type;
  std::string_view name;
  size_t size;
};
constexpr std::array<DTypeInfo, 13> kInfo{{
    {DType::kBool, "bool", 1}, {DType::kI8, "int8", 1}, {DType::kU8, "uint8", 1},
    {DType::kI16, "int16", 2}, {DType::kU16, "uint16", 2}, {DType::kI32, "int32", 4},
    {DType::kU32, "uint32", 4}, {DType::kI64, "int64", 8}, {DType::kU64, "uint64", 8},
    {DType::kF16, "float16", 2}, {DType::kBF16, "bfloat16", 2}, {DType::kF32, "float32", 4},
    {DType::kF64, "float64", 8},
}};

const DTypeInfo& info(DType t) { return kInfo[static_cast<size_t>(t)]; }

// A tiny cursor over the header's Python dict literal. Only the subset numpy writes is accepted.
class HeaderCursor {
 public:
  explicit HeaderCursor(std::string_view s) : s_(s) {}
  void skip_ws() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == c) { ++pos_; return true; }
    return false;
  }
  bool peek(char c) { skip_ws(); return pos_ < s_.size() && s_[pos_] == c; }
  bool string(std::string& out) {
    skip_ws();
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) return false;
    char q = s_[pos_++];
    size_t end = s_.find(q, pos_);
    if (end == std::string_view::npos) return false;
    out.assign(s_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return true;
  }
  bool word(std::string_view w) {
    skip_ws();
    if (s_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }
  bool integer(int64_t& out) {
    skip_ws();
    size_t start = pos_;
    uint64_t v = 0;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
      if (v > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - 9) / 10) {
        overflow_ = true;
        return false;
      }
      v = v * 10 + static_cast<uint64_t>(s_[pos_++] - '0');
    }
    if (pos_ < s_.size() && s_[pos_] == 'L') ++pos_;  // Python 2 long suffix
    out = static_cast<int64_t>(v);
    return pos_ > start;
  }
  bool overflowed() const { return overflow_; }

 private:
  std::string_view s_;
  size_t pos_ = 0;
  bool overflow_ = false;  // an integer had more digits than int64 holds
};

std::variant<NpyView, std::string> parse_header_dict(std::string_view header) {
  HeaderCursor c(header);
  if (!c.eat('{')) return std::string("npy header is not a dict literal");
  NpyView view;
  bool have_descr = false, have_order = false, have_shape = false;
  while (!c.eat('}')) {
    std::string key;
    if (!c.string(key) || !c.eat(':')) return std::string("malformed npy header");
    if (key == "descr") {
      std::string descr;
      if (!c.string(descr)) return std::string("npy descr is not a plain dtype (structured arrays are not supported)");
      if (!parse_descr(descr, view.dtype, view.big_endian))
        return fmt::format("unsupported npy dtype '{}'", descr);
      have_descr = true;
    } else if (key == "fortran_order") {
      if (c.word("True")) view.fortran_order = true;
      else if (c.word("False")) view.fortran_order = false;
      else return std::string("npy fortran_order is not True/False");
      have_order = true;
    } else if (key == "shape") {
      if (!c.eat('(')) return std::string("npy shape is not a tuple");
      while (!c.eat(')')) {
        int64_t d = 0;
        if (c.peek('-')) return std::string("npy shape has a negative dimension");
        if (!c.integer(d))
          return std::string(c.overflowed() ? "npy shape is too large" : "npy shape holds a non-integer");
        view.shape.push_back(d);
        if (!c.eat(',') && !c.peek(')')) return std::string("malformed npy shape");
      }
      have_shape = true;
    } else {
      return fmt::format("unexpected key '{}' in npy header", key);
    }
    if (!c.eat(',') && !c.peek('}')) return std::string("malformed npy header");
  }
  if (!have_descr || !have_order || !have_shape) return std::string("npy header lacks descr, fortran_order or shape");
  return view;
}

}  // namespace

std::string_view dtype_name(DType t) { return info(t).name; }
size_t dtype_size(DType t) { return info(t).size; }
bool dtype_is_float(DType t) {
  return t == DType::kF16 || t == DType::kBF16 || t == DType::kF32 || t == DType::kF64;
}

bool parse_descr(std::string_view descr, DType& dtype, bool& big_endian) {
  if (descr == "bfloat16" || descr == "bf16" || descr == "<V2" || descr == "|V2") {
    dtype = DType::kBF16;
    big_endian = false;
    return true;
  }
  if (descr.size() < 3) return false;
  char order = descr[0];
  if (order != '<' && order != '>' && order != '|' && order != '=') return false;
  big_endian = order == '>';
  std::string_view code = descr.substr(1);
  static constexpr std::array<std::pair<std::string_view, DType>, 13> kCodes{{
      {"b1", DType::kBool}, {"i1", DType::kI8}, {"u1", DType::kU8}, {"i2", DType::kI16},
      {"u2", DType::kU16}, {"i4", DType::kI32}, {"u4", DType::kU32}, {"i8", DType::kI64},
      {"u8", DType::kU64}, {"f2", DType::kF16}, {"f4", DType::kF32}, {"f8", DType::kF64},
      {"?1", DType::kBool},
  }};
  for (const auto& [c, t] : kCodes) {
    if (c == code) {
      dtype = t;
      if (dtype_size(dtype) == 1) big_endian = false;
      return true;
    }
  }
  return false;
}

bool parse_dtype_name(std::string_view name, DType& dtype) {
  if (name.starts_with("torch.")) name.remove_prefix(6);
  std::string lower;
  for (char ch : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (lower == "half") lower = "float16";
  if (lower == "float") lower = "float32";
  if (lower == "double") lower = "float64";
  if (lower == "long") lower = "int64";
  if (lower == "int") lower = "int32";
  for (const auto& i : kInfo) {
    if (i.name == lower) { dtype = i.type; return true; }
  }
  return false;
}

std::variant<NpyView, std::string> parse_npy(std::string_view bytes) {
  static constexpr std::string_view kMagic = "\x93NUMPY";
  if (bytes.size() < 10 || bytes.substr(0, 6) != kMagic) return std::string("not an npy file (bad magic)");
  auto u8 = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])); };
  uint32_t major = u8(6);
  size_t header_len = 0, prefix = 0;
  if (major == 1) {
    header_len = u8(8) | (u8(9) << 8);
    prefix = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return std::string("npy header truncated");
    header_len = u8(8) | (u8(9) << 8) | (u8(10) << 16) | (u8(11) << 24);
    prefix = 12;
  } else {
    return fmt::format("unsupported npy version {}.{}", major, u8(7));
  }
  if (header_len > bytes.size() - prefix) return std::string("npy header longer than the file");
  auto parsed = parse_header_dict(bytes.substr(prefix, header_len));
  if (auto* err = std::get_if<std::string>(&parsed)) return *err;
  NpyView view = std::get<NpyView>(parsed);
  uint64_t count = 1;
  for (int64_t d : view.shape) {
    if (d != 0 && count > std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(d) / 16)
      return std::string("npy shape is too large");
    count *= static_cast<uint64_t>(d);
  }
  size_t data_offset = prefix + header_len;
  size_t available = bytes.size() - data_offset;
  if (count * dtype_size(view.dtype) > available)
    return fmt::format("data shorter than the header says ({} bytes for {} elements of {})", available, count,
                       dtype_name(view.dtype));
  view.count = static_cast<size_t>(count);
  view.data = reinterpret_cast<const std::byte*>(bytes.data() + data_offset);
  return view;
}

std::string shape_string(const std::vector<int64_t>& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

}  // namespace banjia::compare
