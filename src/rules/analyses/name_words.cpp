#include "rules/analyses/name_words.h"

#include <cctype>

namespace banjia::rules {

std::vector<std::string> name_words(std::string_view name) {
  std::vector<std::string> words;
  std::string cur;
  for (size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    const bool boundary = c == '_' || std::isdigit(c) ||
                          (std::isupper(c) && i > 0 && std::islower(static_cast<unsigned char>(name[i - 1])));
    if (boundary && !cur.empty()) words.push_back(std::move(cur)), cur.clear();
    if (c != '_' && !std::isdigit(c)) cur.push_back(static_cast<char>(std::tolower(c)));
  }
  if (!cur.empty()) words.push_back(std::move(cur));
  return words;
}

}  // namespace banjia::rules
