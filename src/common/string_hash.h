// Hash for maps keyed by std::string and searched with std::string_view (transparent lookup):
// use with std::equal_to<> as the key-equal. The keys hashed on banjia's hot paths are identifiers
// and dotted names, mostly under 32 bytes: taking them 8 bytes at a time with a multiply-xorshift
// mix costs a third of std::hash's out-of-line byte-oriented murmur (std::_Hash_bytes).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace banjia {

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept {
    const char* p = s.data();
    size_t n = s.size();
    uint64_t h = n * kMul;
    if (n > 8) {
      for (; n > 8; p += 8, n -= 8) h = mix(h ^ load<uint64_t>(p));
      h = mix(h ^ load<uint64_t>(p + n - 8));  // the last 1-8 bytes, as the string's last 8
    } else if (n >= 4) {
      h = mix(h ^ (load<uint32_t>(p) | uint64_t{load<uint32_t>(p + n - 4)} << 32));
    } else if (n > 0) {
      auto byte = [&](size_t i) { return uint64_t{static_cast<unsigned char>(p[i])}; };
      h = mix(h ^ (byte(0) | byte(n / 2) << 8 | byte(n - 1) << 16));
    }
    return static_cast<size_t>(h ^ h >> 32);  // the tables reduce modulo a prime: fold high bits in
  }

 private:
  static constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;  // 2^64 / golden ratio
  static uint64_t mix(uint64_t x) {
    x *= kMul;
    return x ^ x >> 29;
  }
  template <class T>
  static T load(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof v);  // one unaligned load
    return v;
  }
};

}  // namespace banjia
