// Kernels and the triton-ascend limits they are beyond (triton_kernel_checks.h). Only what the code
// certainly does is reported: a grid of integer constants, a keyword passed, a literal argument, a
// call inside a loop; a value the check cannot compute is not a problem.
#include "rules/analyses/triton_kernel_checks.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <tuple>

#include "python/literals.h"
#include "rules/analyses/blocks.h"

namespace banjia::rules {

using python::kNoIndex;
using python::TokenKind;

namespace {

bool triton_decorator_name(std::string_view q) {
  for (std::string_view d : {"triton.jit", "triton.autotune", "triton.heuristics"})
    if (q == d || (q.starts_with(d) && q.size() > d.size() && q[d.size()] == '.')) return true;
  return false;
}

std::string_view text_of(const PythonAnalysis& a, uint32_t first_sig, uint32_t last_sig) {
  const auto& toks = a.tokens.tokens;
  const uint32_t b = toks[a.view.sig[first_sig]].begin, e = toks[a.view.sig[last_sig]].end;
  return a.text().substr(b, e - b);
}

// A plain string literal's value at sig index si (one String token), or nullopt.
std::optional<std::string> literal(const PythonAnalysis& a, uint32_t si) {
  if (a.sig_token(si).kind != TokenKind::String) return std::nullopt;
  return python::simple_string_value(a.sig_text(si));
}

// An integer constant expression over sig indices [lo, hi]: decimal integers, + - * // and
// parentheses. nullopt for anything else, or beyond 2^62.
class ConstInt {
 public:
  ConstInt(const PythonAnalysis& a, uint32_t lo, uint32_t hi) : a_(a), i_(lo), hi_(hi) {}
  std::optional<int64_t> eval() {
    auto v = expr();
    return v && i_ == hi_ + 1 ? v : std::nullopt;
  }

 private:
  static constexpr int64_t kMax = int64_t{1} << 62;
  bool at(std::string_view op) const { return i_ <= hi_ && a_.sig_is_op(i_, op); }
  static std::optional<int64_t> checked(__int128 v) {
    if (v > kMax || v < -kMax) return std::nullopt;
    return static_cast<int64_t>(v);
  }
  std::optional<int64_t> expr() {
    auto v = term();
    while (v && (at("+") || at("-"))) {
      const bool plus = at("+");
      ++i_;
      const auto r = term();
      if (!r) return std::nullopt;
      v = checked(plus ? __int128{*v} + *r : __int128{*v} - *r);
    }
    return v;
  }
  std::optional<int64_t> term() {
    auto v = factor();
    while (v && (at("*") || at("//"))) {
      const bool mul = at("*");
      ++i_;
      const auto r = factor();
      if (!r || (!mul && *r == 0)) return std::nullopt;
      v = mul ? checked(__int128{*v} * *r) : std::optional<int64_t>(*v / *r);
    }
    return v;
  }
  std::optional<int64_t> factor() {
    if (i_ > hi_) return std::nullopt;
    if (at("-")) {
      ++i_;
      const auto v = factor();
      return v ? std::optional<int64_t>(-*v) : std::nullopt;
    }
    if (at("(")) {
      const int32_t close = a_.view.match[i_];
      if (close < 0 || static_cast<uint32_t>(close) > hi_) return std::nullopt;
      ConstInt inner(a_, i_ + 1, static_cast<uint32_t>(close) - 1);
      i_ = static_cast<uint32_t>(close) + 1;
      return inner.eval();
    }
    if (a_.sig_token(i_).kind != TokenKind::Number) return std::nullopt;
    const std::string_view t = a_.sig_text(i_++);
    int64_t v = 0;
    for (char ch : t) {
      if (ch == '_') continue;
      if (!std::isdigit(static_cast<unsigned char>(ch)) || v > kMax / 10) return std::nullopt;
      v = v * 10 + (ch - '0');
    }
    return v;
  }

  const PythonAnalysis& a_;
  uint32_t i_, hi_;
};

// The top-level comma-separated parts of sig indices [lo, hi].
std::vector<std::pair<uint32_t, uint32_t>> split_commas(const PythonAnalysis& a, uint32_t lo, uint32_t hi) {
  std::vector<std::pair<uint32_t, uint32_t>> parts;
  uint32_t start = lo;
  for (uint32_t i = lo; i <= hi; ++i) {
    if (a.view.match[i] > static_cast<int32_t>(i) && (a.sig_is_op(i, "(") || a.sig_is_op(i, "[") || a.sig_is_op(i, "{"))) {
      i = static_cast<uint32_t>(a.view.match[i]);
      continue;
    }
    if (a.sig_is_op(i, ",")) {
      if (i > start) parts.emplace_back(start, i - 1);
      start = i + 1;
    }
  }
  if (start <= hi) parts.emplace_back(start, hi);
  return parts;
}

// The number of programs a grid expression (sig indices [lo, hi]) launches, when every entry is an
// integer constant: `(4, 8)`, `[n_blocks]` via a constant, `lambda META: (64 * 1024,)`.
std::optional<int64_t> grid_programs(const PythonAnalysis& a, uint32_t lo, uint32_t hi) {
  if (lo > hi) return std::nullopt;
  if (a.sig_is(lo, "lambda")) {
    uint32_t i = lo + 1;
    while (i <= hi && !a.sig_is_op(i, ":")) ++i;
    return grid_programs(a, i + 1, hi);
  }
  if ((a.sig_is_op(lo, "(") || a.sig_is_op(lo, "[")) && a.view.match[lo] == static_cast<int32_t>(hi))
    return grid_programs(a, lo + 1, hi - 1);
  int64_t total = 1;
  for (const auto& [b, e] : split_commas(a, lo, hi)) {
    const auto v = ConstInt(a, b, e).eval();
    if (!v || *v < 0) return std::nullopt;
    if (*v != 0 && total > (int64_t{1} << 62) / *v) return std::nullopt;
    total *= *v;
  }
  return total;
}

// The expression assigned to `name` by the nearest statement `name = ...` before statement `stmt` in
// the same block or an enclosing one of the same function; nullopt when there is none.
std::optional<std::pair<uint32_t, uint32_t>> assigned_before(const PythonAnalysis& a, const Blocks& b, std::string_view name,
                                                             uint32_t stmt) {
  const auto& stmts = a.view.statements;
  for (uint32_t s = stmt; s-- > 0;) {
    const auto& st = stmts[s];
    if (a.sig_is(st.first_sig, "def") && inside(b, stmt, s)) return std::nullopt;  // the function's start
    if (st.indent_depth > stmts[stmt].indent_depth) continue;
    if (a.sig_is(st.first_sig, name) && a.sig_is_name(st.first_sig) && a.sig_is_op(st.first_sig + 1, "=") &&
        st.first_sig + 2 <= st.last_sig)
      return std::make_pair(st.first_sig + 2, st.last_sig);
  }
  return std::nullopt;
}

class Checker {
 public:
  Checker(const PythonAnalysis& a, const std::vector<TritonKernel>& kernels, const std::vector<TritonLimit>& limits)
      : a_(a), kernels_(kernels), limits_(limits), blocks_(block_structure(a)) {}

  std::vector<TritonProblem> run() {
    for (const auto& ref : a_.dotted.refs) {
      if (ref.qualified.empty() || ref.in_import_stmt) continue;
      const TritonKernel* k = kernel_of(ref.first_sig);
      for (const auto& l : limits_) on_ref(l, ref, k);
    }
    methods();
    launches();
    return std::move(out_);
  }

 private:
  void report(const TritonLimit& l, uint32_t first, uint32_t last, std::string what) {
    out_.push_back({&l, first, last, std::move(what)});
  }

  // The kernel whose body holds sig index si, or nullptr.
  const TritonKernel* kernel_of(uint32_t si) const {
    const uint32_t s = statement_of(a_, si);
    if (s == kNoIndex) return nullptr;
    for (const auto& k : kernels_)
      if (s >= k.body_first && s <= k.body_last) return &k;
    return nullptr;
  }

  bool in_loop(uint32_t si, const TritonKernel& k) const {
    for (uint32_t p = blocks_.parent[statement_of(a_, si)]; p != kNoIndex && p != k.header; p = blocks_.parent[p])
      if (a_.sig_is(a_.view.statements[p].first_sig, "for") || a_.sig_is(a_.view.statements[p].first_sig, "while")) return true;
    return false;
  }

  void on_ref(const TritonLimit& l, const python::DottedRef& ref, const TritonKernel* k) {
    using C = TritonLimit::Check;
    if (!l.names_has(ref.qualified)) return;
    const std::string written = python::written_form(a_.view, ref);
    if (l.check == C::dtype) {
      if (k) report(l, ref.first_sig, ref.last_sig, written);
      return;
    }
    if (!ref.is_call || a_.view.match[ref.call_open_sig] < 0) return;  // broken code: no ')'
    const uint32_t close = static_cast<uint32_t>(a_.view.match[ref.call_open_sig]);
    const auto args = python::call_arguments(a_.view, ref.call_open_sig);
    switch (l.check) {
      case C::keyword: keywords(l, args, written); break;
      case C::in_loop: if (k && in_loop(ref.first_sig, *k)) report(l, ref.first_sig, close, written + "(...)"); break;
      case C::call: if (k) report(l, ref.first_sig, close, written + "(...)"); break;
      case C::transpose: if (k) transpose(l, args, 1, ref.first_sig, close, written); break;
      case C::string_arg:
        for (const auto& arg : args)
          if (auto v = arg.first_sig == arg.last_sig ? literal(a_, arg.first_sig) : std::nullopt;
              v && std::find(l.values.begin(), l.values.end(), *v) != l.values.end())
            report(l, arg.first_sig, arg.last_sig, written + "(..., \"" + *v + "\", ...)");
        break;
      case C::asm_constraints: asm_constraints(l, args, written); break;
      default: break;
    }
  }

  // A one-token argument's value: a plain string literal's, a number's, or True, False or None; a
  // variable's is not known.
  std::optional<std::string> single_value(const python::CallArg& arg) const {
    if (arg.first_sig != arg.last_sig) return std::nullopt;
    const auto kind = a_.sig_token(arg.first_sig).kind;
    if (kind == TokenKind::String) return literal(a_, arg.first_sig);
    const std::string_view t = a_.sig_text(arg.first_sig);
    if (kind == TokenKind::Number || t == "True" || t == "False" || t == "None") return std::string(t);
    return std::nullopt;
  }

  void keywords(const TritonLimit& l, const std::vector<python::CallArg>& args, const std::string& written) {
    for (const auto& arg : args) {
      if (arg.keyword.empty() || std::find(l.keywords.begin(), l.keywords.end(), arg.keyword) == l.keywords.end()) continue;
      if (!l.allowed.empty()) {  // a value the check cannot read is not a problem
        const auto v = single_value(arg);
        if (!v || std::find(l.allowed.begin(), l.allowed.end(), *v) != l.allowed.end()) continue;
      }
      report(l, arg.keyword_sig, arg.last_sig, written + "(" + std::string(text_of(a_, arg.keyword_sig, arg.last_sig)) + ")");
    }
  }

  // The axes of a transpose, from argument `from` on: one tuple or list of integers, or integers.
  void transpose(const TritonLimit& l, const std::vector<python::CallArg>& args, size_t from, uint32_t first, uint32_t last,
                 const std::string& written) {
    std::vector<int64_t> dims;
    std::vector<std::pair<uint32_t, uint32_t>> parts;
    const python::CallArg* kw = python::find_keyword(args, "dims");
    if (kw) {
      parts.emplace_back(kw->first_sig, kw->last_sig);
    } else {
      for (size_t i = from; i < args.size(); ++i) {
        if (args[i].position < 0) return;
        parts.emplace_back(args[i].first_sig, args[i].last_sig);
      }
    }
    if (parts.size() == 1 && (a_.sig_is_op(parts[0].first, "(") || a_.sig_is_op(parts[0].first, "[")) &&
        a_.view.match[parts[0].first] == static_cast<int32_t>(parts[0].second))
      parts = split_commas(a_, parts[0].first + 1, parts[0].second - 1);
    for (const auto& [b, e] : parts) {
      const auto v = ConstInt(a_, b, e).eval();
      if (!v) return;
      dims.push_back(*v);
    }
    const int64_t n = static_cast<int64_t>(dims.size());
    std::vector<int64_t> sorted = dims;
    std::sort(sorted.begin(), sorted.end());
    for (int64_t i = 0; i < n; ++i)
      if (sorted[static_cast<size_t>(i)] != i) return;  // not a permutation of 0..n-1
    std::vector<int64_t> moved;
    for (int64_t i = 0; i < n; ++i)
      if (dims[static_cast<size_t>(i)] != i) moved.push_back(i);
    const bool non_adjacent_swap = moved.size() == 2 && moved[1] - moved[0] > 1 &&
                                   dims[static_cast<size_t>(moved[0])] == moved[1];
    if (non_adjacent_swap || n > l.value) report(l, first, last, written + "(...)");
  }

  void asm_constraints(const TritonLimit& l, const std::vector<python::CallArg>& args, const std::string& written) {
    const python::CallArg* arg = python::find_keyword(args, "constraints");
    if (!arg) arg = python::find_positional(args, 1);
    if (!arg || arg->first_sig != arg->last_sig) return;
    const auto v = literal(a_, arg->first_sig);
    if (!v) return;
    for (char ch : *v)
      if (std::isalpha(static_cast<unsigned char>(ch)) &&
          std::none_of(l.allowed.begin(), l.allowed.end(), [&](const std::string& s) { return s.size() == 1 && s[0] == ch; })) {
        report(l, arg->first_sig, arg->last_sig, written + "(constraints=\"" + *v + "\")");
        return;
      }
  }

  // `x.trans(...)` / `x.permute(...)` on a tensor in a kernel (no import resolves `x`).
  void methods() {
    for (const auto& l : limits_) {
      if (l.check != TritonLimit::Check::transpose || l.methods.empty()) continue;
      a_.view.for_each_op1('.', [&](uint32_t dot) {
        const uint32_t n = dot + 1;
        if (!a_.sig_is_name(n) || !a_.sig_is_op(n + 1, "(") || a_.view.match[n + 1] < 0 || a_.in_resolved_ref(n)) return;
        if (std::find(l.methods.begin(), l.methods.end(), a_.sig_text(n)) == l.methods.end() || !kernel_of(n)) return;
        const uint32_t close = static_cast<uint32_t>(a_.view.match[n + 1]);
        transpose(l, python::call_arguments(a_.view, n + 1), 0, n, close, "." + std::string(a_.sig_text(n)));
      });
    }
  }

  // `kernel[grid](...)` for each kernel of the file: the grid's size and the launch's keywords.
  void launches() {
    for (uint32_t si : a_.view.name_heads) {
      const std::string_view name = a_.sig_text(si);
      if (std::none_of(kernels_.begin(), kernels_.end(), [&](const TritonKernel& k) { return k.name == name; })) continue;
      if (!a_.sig_is_op(si + 1, "[") || a_.view.match[si + 1] < 0) continue;
      const uint32_t rb = static_cast<uint32_t>(a_.view.match[si + 1]);
      if (!a_.sig_is_op(rb + 1, "(") || a_.view.match[rb + 1] < 0) continue;
      const auto args = python::call_arguments(a_.view, rb + 1);
      // The grid's tokens: those in the brackets, or a name's assigned value (none when not known). Kept as
      // two plain values: GCC's -O3 sees an optional pair's second member as maybe uninitialised.
      uint32_t grid_first = si + 2, grid_last = rb - 1;
      bool grid_known = true;
      if (si + 2 == rb - 1 && a_.sig_is_name(si + 2)) {
        const auto assigned = assigned_before(a_, blocks_, a_.sig_text(si + 2), statement_of(a_, si));
        grid_known = assigned.has_value();
        if (grid_known) std::tie(grid_first, grid_last) = *assigned;
      }
      for (const auto& l : limits_) {
        if (l.check == TritonLimit::Check::keyword && l.names_has("launch")) keywords(l, args, std::string(name) + "[...]");
        if (l.check != TritonLimit::Check::grid_max || !grid_known) continue;
        if (const auto n = grid_programs(a_, grid_first, grid_last); n && *n > l.value)
          report(l, si, rb, std::string(name) + "[" + std::string(text_of(a_, si + 2, rb - 1)) + "], " + std::to_string(*n) + " programs");
      }
    }
  }

  const PythonAnalysis& a_;
  const std::vector<TritonKernel>& kernels_;
  const std::vector<TritonLimit>& limits_;
  Blocks blocks_;
  std::vector<TritonProblem> out_;
};

}  // namespace

std::vector<TritonKernel> find_triton_kernels(const PythonAnalysis& a, std::vector<std::pair<uint32_t, uint32_t>>& other_uses) {
  std::vector<TritonKernel> kernels;
  const auto& stmts = a.view.statements;
  Blocks blocks;
  bool have_blocks = false;
  for (const auto& ref : a.dotted.refs) {
    if (ref.qualified.empty() || ref.in_import_stmt || !triton_decorator_name(ref.qualified)) continue;
    const uint32_t s = statement_of(a, ref.first_sig);
    const bool decorator = ref.first_sig > 0 && a.sig_is_op(ref.first_sig - 1, "@") && s != kNoIndex &&
                           stmts[s].first_sig == ref.first_sig - 1;
    uint32_t header = kNoIndex;
    for (uint32_t t = s + 1; decorator && t < stmts.size() && stmts[t].indent_depth == stmts[s].indent_depth; ++t) {
      const uint32_t f = stmts[t].first_sig;
      if (a.sig_is_op(f, "@")) continue;
      if (a.sig_is(f, "def") || (a.sig_is(f, "async") && a.sig_is(f + 1, "def"))) header = t;
      break;
    }
    if (header == kNoIndex) {
      other_uses.emplace_back(ref.first_sig, ref.last_sig);
      continue;
    }
    if (!kernels.empty() && kernels.back().header == header) continue;  // another decorator of the same kernel
    if (!have_blocks) blocks = block_structure(a), have_blocks = true;
    TritonKernel k;
    k.first_sig = ref.first_sig - 1;
    k.name_sig = stmts[header].first_sig + (a.sig_is(stmts[header].first_sig, "async") ? 2 : 1);
    k.name = a.sig_text(k.name_sig);
    k.header = header;
    k.body_first = header + 1;
    k.body_last = blocks.body_end[header] == kNoIndex ? header : blocks.body_end[header];
    kernels.push_back(k);
  }
  return kernels;
}

std::vector<TritonProblem> triton_problems(const PythonAnalysis& a, const std::vector<TritonKernel>& kernels,
                                           const std::vector<TritonLimit>& limits) {
  return Checker(a, kernels, limits).run();
}

}  // namespace banjia::rules
