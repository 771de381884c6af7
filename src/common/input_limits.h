// How large a compressed input may grow when it is inflated: a 21 MB .json.gz can hold 21 GiB, and
// inflating it whole would take memory until allocation fails. Process-wide (banjia runs one verb);
// `--max-input-size` sets it for the verbs that read compressed inputs (trace, compare).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace banjia {

// Generous: Kineto traces of large models reach a few GiB of JSON.
inline constexpr uint64_t kDefaultMaxInflatedBytes = uint64_t{8} << 30;

uint64_t max_inflated_bytes();
void set_max_inflated_bytes(uint64_t bytes);

// "8G", "512M", "64k", "1048576": a byte count, optionally with K, M, G or T (powers of 1024, either
// case, an optional trailing "iB" or "B"). nullopt for anything else, zero, or an overflow.
std::optional<uint64_t> parse_byte_size(std::string_view text);
// "8 GiB", "1.5 MiB", "100 bytes": for messages.
std::string byte_size_text(uint64_t bytes);

}  // namespace banjia
