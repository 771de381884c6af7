#include "common/input_limits.h"

#include <atomic>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

namespace banjia {

namespace {
std::atomic<uint64_t> g_max_inflated{kDefaultMaxInflatedBytes};
}

uint64_t max_inflated_bytes() { return g_max_inflated.load(std::memory_order_relaxed); }
void set_max_inflated_bytes(uint64_t bytes) { g_max_inflated.store(bytes, std::memory_order_relaxed); }

std::optional<uint64_t> parse_byte_size(std::string_view text) {
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  std::string unit;
  for (const char* p = end; p != text.data() + text.size(); ++p) unit += static_cast<char>(std::tolower(static_cast<unsigned char>(*p)));
  if (unit.ends_with("ib")) unit.resize(unit.size() - 2);
  else if (unit.size() > 1 && unit.ends_with("b")) unit.resize(unit.size() - 1);
  int shift = 0;
  if (unit.empty() || unit == "b") shift = 0;
  else if (unit == "k") shift = 10;
  else if (unit == "m") shift = 20;
  else if (unit == "g") shift = 30;
  else if (unit == "t") shift = 40;
  else return std::nullopt;
  if (n == 0 || (shift > 0 && n > (UINT64_MAX >> shift))) return std::nullopt;
  return n << shift;
}

std::string byte_size_text(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return fmt::format("{} bytes", bytes);
  double v = static_cast<double>(bytes);
  int u = -1;
  while (v >= 1024 && u < 3) v /= 1024, ++u;
  return v == static_cast<double>(static_cast<uint64_t>(v)) ? fmt::format("{} {}", static_cast<uint64_t>(v), kUnits[u])
                                                          : fmt::format("{:.1f} {}", v, kUnits[u]);
}

}  // namespace banjia
