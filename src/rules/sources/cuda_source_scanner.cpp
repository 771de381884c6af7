#include "rules/sources/cuda_source_scanner.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <fmt/format.h>

#include "common/line_index.h"
#include "rules/core/finding_factory.h"
#include "rules/kinds/cuda_source.h"

namespace banjia::rules {

namespace {
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool word_at(std::string_view s, size_t i, std::string_view word) {
  if (s.substr(i, word.size()) != word) return false;
  if (i > 0 && ident_char(s[i - 1])) return false;
  size_t e = i + word.size();
  return e >= s.size() || !ident_char(s[e]);
}

// Index of the ')' matching the '(' at `open`, or npos.
size_t matching_paren(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    else if (s[i] == ')' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

std::string collapse_spaces(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}
}  // namespace

std::string blank_comments_and_strings(std::string_view src) {
  // The bytes that can start a comment or a literal; everything else is skipped by one table load.
  static constexpr auto kStarts = [] {
    std::array<bool, 256> t{};
    t['/'] = t['"'] = t['\''] = true;
    return t;
  }();
  std::string out(src);
  size_t i = 0, n = src.size();
  auto blank = [&](size_t from, size_t to) {
    for (size_t k = from; k < to && k < n; ++k)
      if (out[k] != '\n' && out[k] != '\r') out[k] = ' ';
  };
  while (i < n) {
    char c = src[i];
    if (c == '/' && i + 1 < n && src[i + 1] == '/') {
      size_t e = src.find('\n', i);
      if (e == std::string_view::npos) e = n;
      blank(i, e);
      i = e;
    } else if (c == '/' && i + 1 < n && src[i + 1] == '*') {
      size_t e = src.find("*/", i + 2);
      e = e == std::string_view::npos ? n : e + 2;
      blank(i, e);
      i = e;
    } else if (c == '"' || c == '\'') {
      // Keep the quotes, blank the contents (so m.def("name") can still be read from `src`).
      size_t k = i + 1;
      while (k < n && src[k] != c && src[k] != '\n') k += (src[k] == '\\') ? 2 : 1;
      blank(i + 1, std::min(k, n));
      i = k + 1;
    } else {
      ++i;
      while (i < n && !kStarts[static_cast<unsigned char>(src[i])]) ++i;
    }
  }
  return out;
}

std::vector<CudaKernel> find_cuda_kernels(std::string_view src) {
  return find_cuda_kernels(src, blank_comments_and_strings(src));
}

std::vector<CudaKernel> find_cuda_kernels(std::string_view src, std::string_view clean) {
  std::vector<CudaKernel> kernels;
  std::string_view s = clean;
  for (size_t i = s.find("__global__"); i != std::string_view::npos; i = s.find("__global__", i + 1)) {
    if (!word_at(s, i, "__global__")) continue;
    size_t open = s.find('(', i);
    size_t stop = s.find_first_of(";{", i);
    if (open == std::string_view::npos || (stop != std::string_view::npos && stop < open)) continue;
    size_t e = open;
    while (e > i && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    size_t b = e;
    while (b > i && ident_char(s[b - 1])) --b;
    if (b == e) continue;
    size_t close = matching_paren(s, open);
    if (close == std::string_view::npos) continue;
    std::string name(s.substr(b, e - b));
    kernels.push_back({name, name + collapse_spaces(src.substr(open, close - open + 1)), b});
    i = close;
  }
  return kernels;
}

std::vector<OpRegistration> find_op_registrations(std::string_view src) {
  return find_op_registrations(src, blank_comments_and_strings(src));
}

std::vector<OpRegistration> find_op_registrations(std::string_view src, std::string_view clean) {
  static const std::string_view kMacros[] = {"PYBIND11_MODULE", "TORCH_LIBRARY_FRAGMENT", "TORCH_LIBRARY_IMPL",
                                             "TORCH_LIBRARY"};
  std::vector<OpRegistration> regs;
  std::string_view s = clean;
  // Every macro starts with one of these two: only their occurrences are candidates.
  auto next_candidate = [&](size_t from) { return std::min(s.find("PYBIND11_MODULE", from), s.find("TORCH_LIBRARY", from)); };
  for (size_t i = next_candidate(0); i < s.size(); i = next_candidate(i + 1)) {
    for (auto macro : kMacros) {
      if (!word_at(s, i, macro)) continue;
      size_t open = s.find_first_not_of(" \t", i + macro.size());
      if (open == std::string_view::npos || s[open] != '(') break;
      OpRegistration reg{std::string(macro), {}, i};
      // The body: the braces after the macro's argument list.
      size_t close = matching_paren(s, open);
      size_t body = close == std::string_view::npos ? close : s.find('{', close);
      if (body != std::string_view::npos) {
        int depth = 0;
        size_t end = body;
        for (; end < s.size(); ++end) {
          if (s[end] == '{') ++depth;
          else if (s[end] == '}' && --depth == 0) break;
        }
        // .def("name" ... : read names from the original text (strings were blanked in `clean`).
        for (size_t d = s.find(".def", body); d != std::string_view::npos && d < end; d = s.find(".def", d + 4)) {
          size_t q = s.find_first_not_of(" \t\r\n(", d + 4);
          if (q == std::string_view::npos || src[q] != '"') continue;
          size_t qe = src.find('"', q + 1);
          if (qe == std::string_view::npos) break;
          std::string_view def = src.substr(q + 1, qe - q - 1);
          size_t paren = def.find('(');  // TORCH_LIBRARY schemas: "name(Tensor x) -> Tensor"
          reg.defs.emplace_back(def.substr(0, paren));
        }
        i = end;
      }
      regs.push_back(std::move(reg));
      break;
    }
  }
  return regs;
}

void scan_cuda_source(std::string_view src, const std::string& display, const RuleCatalog& rules,
                      std::vector<Finding>& out) {
  LineIndex lines(src);
  const std::string clean = blank_comments_and_strings(src);
  if (const Rule* r = rules.find("cuda-kernel")) {
    for (const auto& k : find_cuda_kernels(src, clean)) {
      Finding f = make_finding(*r, display, lines, k.offset, k.offset + k.name.size());
      f.message = fmt::format("CUDA kernel `{}`: {}", k.signature, r->message);
      out.push_back(std::move(f));
    }
  }
  if (const Rule* r = rules.find("cuda-op-registration")) {
    for (const auto& reg : find_op_registrations(src, clean)) {
      Finding f = make_finding(*r, display, lines, reg.offset, reg.offset + reg.macro.size());
      std::string defs;
      for (const auto& d : reg.defs) defs += (defs.empty() ? "" : ", ") + d;
      f.message = fmt::format("{} exports {}: {}", reg.macro, defs.empty() ? "operators" : defs, r->message);
      out.push_back(std::move(f));
    }
  }
}

}  // namespace banjia::rules
