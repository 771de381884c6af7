// The elements of an array, of any dtype and either byte order, as doubles (npy_format.h).
#include <bit>
#include <cstring>

#include "compare/readers/npy_format.h"

namespace banjia::compare {

namespace {

float half_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {  // zero or subnormal: value = mant * 2^-24
    float v = static_cast<float>(mant) * 0x1p-24f;
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

template <class U>
U load_raw(const std::byte* p, bool swap) {
  U u;
  std::memcpy(&u, p, sizeof u);
  if (swap) {
    if constexpr (sizeof(U) == 2) u = __builtin_bswap16(u);
    else if constexpr (sizeof(U) == 4) u = __builtin_bswap32(u);
    else u = __builtin_bswap64(u);
  }
  return u;
}

}  // namespace

void decode_elements(const NpyView& v, size_t start, size_t len, double* out) {
  const size_t sz = dtype_size(v.dtype);
  const std::byte* p = v.data + start * sz;
  const bool sw = v.big_endian;
  for (size_t i = 0; i < len; ++i, p += sz) {
    switch (v.dtype) {
      case DType::kBool: out[i] = static_cast<uint8_t>(*p) ? 1.0 : 0.0; break;
      case DType::kI8: out[i] = static_cast<int8_t>(*p); break;
      case DType::kU8: out[i] = static_cast<uint8_t>(*p); break;
      case DType::kI16: out[i] = static_cast<int16_t>(load_raw<uint16_t>(p, sw)); break;
      case DType::kU16: out[i] = load_raw<uint16_t>(p, sw); break;
      case DType::kI32: out[i] = static_cast<int32_t>(load_raw<uint32_t>(p, sw)); break;
      case DType::kU32: out[i] = load_raw<uint32_t>(p, sw); break;
      case DType::kI64: out[i] = static_cast<double>(static_cast<int64_t>(load_raw<uint64_t>(p, sw))); break;
      case DType::kU64: out[i] = static_cast<double>(load_raw<uint64_t>(p, sw)); break;
      case DType::kF16: out[i] = half_to_float(load_raw<uint16_t>(p, sw)); break;
      case DType::kBF16: out[i] = std::bit_cast<float>(static_cast<uint32_t>(load_raw<uint16_t>(p, sw)) << 16); break;
      case DType::kF32: out[i] = std::bit_cast<float>(load_raw<uint32_t>(p, sw)); break;
      case DType::kF64: out[i] = std::bit_cast<double>(load_raw<uint64_t>(p, sw)); break;
    }
  }
}

double element_as_double(const NpyView& v, size_t i) {
  double d = 0;
  decode_elements(v, i, 1, &d);
  return d;
}

}  // namespace banjia::compare
