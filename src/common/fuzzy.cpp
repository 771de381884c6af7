#include "common/fuzzy.h"

#include <algorithm>

namespace banjia {

std::string upper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::toupper(c); });
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::vector<std::string> closest_names(std::string_view name, const std::vector<std::string>& candidates,
                                       size_t limit) {
  std::string key = upper(name);
  size_t threshold = std::max<size_t>(2, key.size() / 4);
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& c : candidates) {
    size_t d = edit_distance(key, upper(c));
    if (d <= threshold && d > 0) scored.emplace_back(d, c);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < limit; ++i) out.push_back(scored[i].second);
  return out;
}

std::string no_such(std::string_view what, std::string_view name, const std::vector<std::string>& known) {
  const auto near = closest_names(name, known, 1);
  return "no such " + std::string(what) + (near.empty() ? "" : " (did you mean " + near[0] + "?)");
}

}  // namespace banjia
