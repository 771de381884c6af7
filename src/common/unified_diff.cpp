#include "common/unified_diff.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace banjia {

namespace {

std::vector<std::string_view> split_lines(std::string_view s) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] == '\n') {
      lines.push_back(s.substr(start, i + 1 - start));
      start = i + 1;
    }
  if (start < s.size()) lines.push_back(s.substr(start));
  return lines;
}

enum class Op { keep, del, add };
struct Step { Op op; size_t a, b; };  // line indices into before (a) and after (b)

// Myers' greedy shortest edit script with a trace for backtracking.
std::vector<Step> diff_lines(const std::vector<std::string_view>& A, const std::vector<std::string_view>& B) {
  // Trim the common prefix and suffix first: most files differ in a few places.
  size_t pre = 0;
  while (pre < A.size() && pre < B.size() && A[pre] == B[pre]) ++pre;
  size_t suf = 0;
  while (suf < A.size() - pre && suf < B.size() - pre && A[A.size() - 1 - suf] == B[B.size() - 1 - suf]) ++suf;
  const long n = static_cast<long>(A.size() - pre - suf), m = static_cast<long>(B.size() - pre - suf);
  auto a = [&](long i) { return A[pre + static_cast<size_t>(i)]; };
  auto b = [&](long j) { return B[pre + static_cast<size_t>(j)]; };
  const long max = n + m;
  std::vector<long> v(static_cast<size_t>(2 * max + 2), 0);
  std::vector<std::vector<long>> trace;
  long found_d = 0;
  for (long d = 0; d <= max; ++d) {
    trace.push_back(v);
    bool done = false;
    for (long k = -d; k <= d; k += 2) {
      long x;
      size_t ki = static_cast<size_t>(k + max);
      if (k == -d || (k != d && v[ki - 1] < v[ki + 1])) x = v[ki + 1];
      else x = v[ki - 1] + 1;
      long y = x - k;
      while (x < n && y < m && a(x) == b(y)) ++x, ++y;
      v[ki] = x;
      if (x >= n && y >= m) { done = true; break; }
    }
    if (done) { found_d = d; trace.push_back(v); break; }
  }
  // Backtrack.
  std::vector<Step> rev;
  long x = n, y = m;
  for (long d = found_d; d > 0; --d) {
    const auto& vd = trace[static_cast<size_t>(d)];
    long k = x - y;
    size_t ki = static_cast<size_t>(k + max);
    long prev_k = (k == -d || (k != d && vd[ki - 1] < vd[ki + 1])) ? k + 1 : k - 1;
    long prev_x = vd[static_cast<size_t>(prev_k + max)];
    long prev_y = prev_x - prev_k;
    while (x > prev_x && y > prev_y) { --x; --y; rev.push_back({Op::keep, pre + size_t(x), pre + size_t(y)}); }
    if (x == prev_x) { --y; rev.push_back({Op::add, pre + size_t(x), pre + size_t(y)}); }
    else { --x; rev.push_back({Op::del, pre + size_t(x), pre + size_t(y)}); }
  }
  while (x > 0 && y > 0) { --x; --y; rev.push_back({Op::keep, pre + size_t(x), pre + size_t(y)}); }
  std::vector<Step> steps;
  for (size_t i = 0; i < pre; ++i) steps.push_back({Op::keep, i, i});
  steps.insert(steps.end(), rev.rbegin(), rev.rend());
  for (size_t i = 0; i < suf; ++i) steps.push_back({Op::keep, A.size() - suf + i, B.size() - suf + i});
  return steps;
}

void append_line(std::string& out, char tag, std::string_view line) {
  out.push_back(tag);
  out.append(line);
  if (line.empty() || line.back() != '\n') out += "\n\\ No newline at end of file\n";
}

}  // namespace

std::string unified_diff(std::string_view before, std::string_view after, const std::string& before_label,
                         const std::string& after_label, int context) {
  if (before == after) return "";
  auto A = split_lines(before), B = split_lines(after);
  auto steps = diff_lines(A, B);
  std::string out = fmt::format("--- {}\n+++ {}\n", before_label, after_label);
  size_t i = 0;
  const size_t ctx = static_cast<size_t>(std::max(0, context));
  while (i < steps.size()) {
    if (steps[i].op == Op::keep) { ++i; continue; }
    // Hunk: from ctx lines before this change to ctx lines after the last change within 2*ctx.
    size_t start = i >= ctx ? i - ctx : 0;
    size_t end = i;
    size_t last_change = i;
    while (end < steps.size()) {
      if (steps[end].op != Op::keep) last_change = end;
      else if (end - last_change > 2 * ctx) break;
      ++end;
    }
    end = std::min(steps.size(), last_change + ctx + 1);
    size_t a_start = steps[start].a, b_start = steps[start].b, a_len = 0, b_len = 0;
    for (size_t k = start; k < end; ++k) {
      if (steps[k].op != Op::add) ++a_len;
      if (steps[k].op != Op::del) ++b_len;
    }
    out += fmt::format("@@ -{},{} +{},{} @@\n", a_len ? a_start + 1 : a_start, a_len, b_len ? b_start + 1 : b_start, b_len);
    for (size_t k = start; k < end; ++k) {
      const auto& s = steps[k];
      if (s.op == Op::keep) append_line(out, ' ', A[s.a]);
      else if (s.op == Op::del) append_line(out, '-', A[s.a]);
      else append_line(out, '+', B[s.b]);
    }
    i = end;
  }
  return out;
}

}  // namespace banjia
