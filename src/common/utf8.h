// UTF-8 helpers: validation and code-point counting (columns are reported in code points).
#pragma once
#include <cstddef>
#include <string_view>

namespace banjia {

// Length of the valid UTF-8 sequence starting at s[0], or 0 if it is invalid/truncated/overlong.
size_t utf8_sequence_length(std::string_view s);

// Offset of the first invalid byte, or s.size() when s is valid UTF-8.
size_t utf8_first_invalid(std::string_view s);
// The same, byte by byte (what utf8_first_invalid falls back to; tested to agree with it).
size_t utf8_first_invalid_scalar(std::string_view s);

// Number of code points in s (s is assumed valid; invalid bytes count one each).
size_t utf8_count_code_points(std::string_view s);

}  // namespace banjia
