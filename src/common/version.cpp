#include "common/version.h"

#include <cctype>
#include <utility>

namespace banjia {

namespace {
// One part: (is_rc ? 0 : 1, number). RC parts come before final parts at the same position.
std::pair<int, long> part_key(std::string_view p) {
  bool rc = p.size() > 2 && (p[0] == 'R' || p[0] == 'r') && (p[1] == 'C' || p[1] == 'c');
  if (rc) p.remove_prefix(2);
  long n = 0;
  for (char c : p)
    if (std::isdigit(static_cast<unsigned char>(c))) n = n * 10 + (c - '0');
  return {rc ? 0 : 1, n};
}

std::string_view next_part(std::string_view& s) {
  size_t dot = s.find('.');
  std::string_view part = s.substr(0, dot);
  s = dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
  return part;
}
}  // namespace

bool is_release_version(std::string_view v) {
  if (v.empty() || v.size() > 64) return false;
  size_t start = 0;
  for (;;) {
    size_t dot = v.find('.', start);
    std::string_view p = v.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (p.starts_with("RC") || p.starts_with("rc")) p.remove_prefix(2);
    if (p.empty()) return false;
    for (char c : p)
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

int compare_versions(std::string_view a, std::string_view b) {
  while (!a.empty() || !b.empty()) {
    auto ka = a.empty() ? std::pair<int, long>{1, 0} : part_key(next_part(a));
    auto kb = b.empty() ? std::pair<int, long>{1, 0} : part_key(next_part(b));
    if (ka != kb) return ka < kb ? -1 : 1;  // (final?, number): an RC precedes any final part
  }
  return 0;
}

}  // namespace banjia
