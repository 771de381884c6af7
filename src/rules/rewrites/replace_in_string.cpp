#include "rules/rewrites/replace_in_string.h"

#include <cctype>
#include <string>

#include "common/fuzzy.h"

namespace banjia::rules {

TextEdit replace_in_value(const Literal& l, std::string_view from, std::string_view to) {
  const size_t at = lower(l.value).find(from);
  const bool upper_case = at != std::string::npos && std::isupper(static_cast<unsigned char>(l.value[at]));
  const uint32_t begin = static_cast<uint32_t>(l.value_offset + (at == std::string::npos ? 0 : at));
  return TextEdit{begin, static_cast<uint32_t>(begin + from.size()), upper_case ? upper(to) : std::string(to)};
}

}  // namespace banjia::rules
