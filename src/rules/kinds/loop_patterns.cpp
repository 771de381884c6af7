// Advisory patterns from the tuning article (docs/sources/tuning-article.md, "3.2 Profiling and three
// patterns"), found statically: per-item matmul/conv calls and host-device syncs inside Python loops,
// and hand-written attention. They produce advice only.
#include "rules/kinds/loop_patterns.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>

#include "rules/analyses/python_analysis.h"
#include "rules/analyses/python_prefilter.h"
#include "rules/core/catalog.h"
#include "rules/core/match.h"
#include "rules/core/match_fields.h"

namespace banjia::rules {

using python::TokenKind;

namespace {

// The loop structure of a file, per statement: does it run inside a `for`/`while` loop body, and
// which statements make its device scope (see has_device_evidence). A `def`/`class` body is a barrier:
// a function defined inside a loop does not run per iteration of that loop.
struct LoopStructure {
  std::vector<bool> in_loop;
  // The header statement whose block is the scope: the innermost enclosing `def`, else the outermost
  // enclosing loop; kNoIndex for a statement in neither.
  std::vector<uint32_t> scope;
  std::vector<uint32_t> block_end;  // per header statement: the last statement of its block
};

LoopStructure loop_structure(const PythonAnalysis& a) {
  const auto& stmts = a.view.statements;
  LoopStructure ls;
  ls.in_loop.assign(stmts.size(), false);
  ls.scope.assign(stmts.size(), python::kNoIndex);
  ls.block_end.assign(stmts.size(), python::kNoIndex);
  enum class Block { loop, barrier, other };
  struct Open { int depth; Block kind; uint32_t header_line; uint32_t stmt; bool is_def; };
  std::vector<Open> stack;
  for (size_t i = 0; i < stmts.size(); ++i) {
    const auto& st = stmts[i];
    uint32_t line = a.sig_token(st.first_sig).line;
    // A body on the header's own line (`for x in xs: f(x)`) is a separate statement at the same depth.
    while (!stack.empty() && stack.back().depth >= st.indent_depth && stack.back().header_line != line) {
      ls.block_end[stack.back().stmt] = static_cast<uint32_t>(i - 1);
      stack.pop_back();
    }
    bool inside = false;
    uint32_t outer_loop = python::kNoIndex;
    for (auto it = stack.rbegin(); it != stack.rend() && it->kind != Block::barrier; ++it)
      if (it->kind == Block::loop) {
        inside = true;
        outer_loop = it->stmt;
      }
    for (auto it = stack.rbegin(); it != stack.rend(); ++it)
      if (it->is_def) {
        ls.scope[i] = it->stmt;
        break;
      }
    if (ls.scope[i] == python::kNoIndex) ls.scope[i] = outer_loop;
    std::string_view first = a.sig_text(st.first_sig);
    bool async = first == "async";
    std::string_view kw = async ? a.sig_text(st.first_sig + 1) : first;
    bool is_def = kw == "def" || kw == "class";
    bool is_loop = kw == "for" || kw == "while";
    bool header = a.sig_is_op(st.last_sig, ":");
    ls.in_loop[i] = inside;
    if (header) {
      stack.push_back({st.indent_depth, is_def ? Block::barrier : is_loop ? Block::loop : Block::other,
                       a.sig_token(st.last_sig).line, static_cast<uint32_t>(i), kw == "def"});
      if (is_loop && ls.scope[i] == python::kNoIndex && !inside) ls.scope[i] = static_cast<uint32_t>(i);
    }
  }
  for (const Open& o : stack) ls.block_end[o.stmt] = static_cast<uint32_t>(stmts.size() - 1);
  return ls;
}

bool name_has(std::string_view name, std::string_view part) {
  if (name.size() < part.size()) return false;
  for (size_t i = 0; i + part.size() <= name.size(); ++i) {
    size_t j = 0;
    while (j < part.size() && std::tolower(static_cast<unsigned char>(name[i + j])) == part[j]) ++j;
    if (j == part.size()) return true;
  }
  return false;
}

// A model: a name containing "model" or starting with "net" (netD, net_g), called or used as a receiver.
bool is_model_name(std::string_view n) { return name_has(n, "model") || (n.size() >= 3 && name_has(n.substr(0, 3), "net")); }
// A loss: a name containing "loss" or "criterion".
bool is_loss_name(std::string_view n) { return name_has(n, "loss") || name_has(n, "criterion"); }

// Sig indices [first, last] of the scope's tokens hold device work (see the sync-in-loop rule):
//  * `.cuda(` / `.npu(`; `.to(...)` naming a device (an argument name with device, rank, gpu, cuda
//    or npu in it, a "cuda"/"npu" string, or device=); any call's `device=` other than "cpu";
//  * training: `.backward(`, `.zero_grad(`, `.step(` on an optimizer or grad scaler;
//  * a model called or used (`model(x)`, `self.model.generate(...)`, `netD(x)`).
bool has_device_evidence(const PythonAnalysis& a, uint32_t first, uint32_t last) {
  auto device_string = [&](uint32_t k) {
    if (a.sig_token(k).kind != python::TokenKind::String) return false;
    const std::string_view t = a.sig_text(k);
    const size_t q = t.find_first_of("'\"");
    return q != std::string_view::npos && (t.substr(q + 1).starts_with("cuda") || t.substr(q + 1).starts_with("npu"));
  };
  auto names_device = [&](std::string_view n) {
    return name_has(n, "device") || name_has(n, "rank") || name_has(n, "gpu") || name_has(n, "cuda") || name_has(n, "npu");
  };
  for (uint32_t k = first; k <= last && k < a.view.sig.size(); ++k) {
    if (a.view.op1[k] == '.' && a.sig_is_name(k + 1) && a.sig_is_op(k + 2, "(")) {
      const std::string_view m = a.sig_text(k + 1);
      if (m == "cuda" || m == "npu" || m == "backward" || m == "zero_grad") return true;
      if (m == "step" && k > 0 && a.sig_is_name(k - 1) &&
          (name_has(a.sig_text(k - 1), "optim") || name_has(a.sig_text(k - 1), "opt") || name_has(a.sig_text(k - 1), "scaler")))
        return true;
      if (m == "to") {
        const int32_t close = a.view.match[k + 2];
        for (uint32_t j = k + 3; close > 0 && j < static_cast<uint32_t>(close); ++j)
          if ((a.sig_is_name(j) && names_device(a.sig_text(j))) || device_string(j)) return true;
      }
      continue;
    }
    if (!a.sig_is_name(k) || a.view.is_attribute(k)) continue;
    const std::string_view n = a.sig_text(k);
    if (n == "device" && a.sig_is_op(k + 1, "=") && k > 0 && (a.sig_is_op(k - 1, "(") || a.sig_is_op(k - 1, ",")) &&
        !(k + 2 < a.view.sig.size() && a.sig_token(k + 2).kind == python::TokenKind::String &&
          a.sig_text(k + 2).find("cpu") != std::string_view::npos))
      return true;
    if (is_model_name(n) && (a.sig_is_op(k + 1, "(") || a.sig_is_op(k + 1, "."))) return true;
  }
  return false;
}

// The receiver of the method call whose '.' is at sig index dot names a loss (`loss.item()`,
// `criterion(out, y).item()`, `F.nll_loss(...).sum().item()`).
bool receiver_names_a_loss(const PythonAnalysis& a, uint32_t dot) {
  uint32_t k = dot;
  while (k > 0) {
    const uint32_t j = k - 1;
    const char op = a.view.op1[j];
    if ((op == ')' || op == ']') && a.view.match[j] >= 0 && static_cast<uint32_t>(a.view.match[j]) < j) {
      k = static_cast<uint32_t>(a.view.match[j]);
    } else if (a.sig_is_name(j)) {
      k = j;
      if (!(k > 0 && a.sig_is_op(k - 1, "."))) break;
      --k;
    } else {
      break;
    }
  }
  for (uint32_t j = k; j < dot; ++j)
    if (a.sig_is_name(j) && is_loss_name(a.sig_text(j))) return true;
  return false;
}

// `s` is one of `words` (a rule's names, or a fixed list below).
bool contains(const auto& words, std::string_view s) { return std::find(words.begin(), words.end(), s) != words.end(); }

constexpr std::string_view kSoftmax = "softmax";
// The names that make a product and a transpose in hand-written attention.
constexpr std::array<std::string_view, 3> kProductNames = {"matmul", "bmm", "einsum"};
constexpr std::array<std::string_view, 4> kTransposeNames = {"transpose", "mT", "T", "permute"};

// `softmax(...)` at sig index si whose arguments hold a product (`@`, matmul, bmm, einsum) and a
// transpose: hand-written attention. Names only: an f-string's text "T" is no transpose.
template <class Emit>
void match_attention(const PythonAnalysis& a, const std::vector<const Rule*>& attention, uint32_t si, Emit& emit) {
  int32_t close = a.view.match[si + 1];
  if (close < 0 || a.view.stmt_of[si] == python::kNoIndex) return;
  bool product = false, transpose = false;
  for (uint32_t k = si + 2; k < static_cast<uint32_t>(close); ++k) {
    if (a.view.op1[k] == '@') product = true;
    if (!a.sig_is_name(k)) continue;
    std::string_view t = a.sig_text(k);
    if (contains(kProductNames, t)) product = true;
    if (contains(kTransposeNames, t)) transpose = true;
  }
  if (product && transpose)
    for (const Rule* r : attention) emit(r, a.view.stmt_of[si], a.view.sig[si], a.view.sig[static_cast<uint32_t>(close)]);
}

}  // namespace

LoopCallMatch LoopCallMatch::parse(const MatchFields& m) { return {m.strings("names"), m.text("operator")}; }
LoopMethodMatch LoopMethodMatch::parse(const MatchFields& m) { return {m.strings("names")}; }
AttentionPatternMatch AttentionPatternMatch::parse(const MatchFields&) { return {}; }

void LoopCallMatch::match(const MatchContext& c, std::vector<PyMatch>& out) {
  const PythonAnalysis& a = c.analysis;
  const auto& loop_calls = c.rules.of_kind<LoopCallMatch>();
  const auto& loop_methods = c.rules.of_kind<LoopMethodMatch>();
  const auto& attention = c.rules.of_kind<AttentionPatternMatch>();
  if (a.view.statements.empty()) return;
  const auto& stmt_of = a.view.stmt_of;
  // Loop structure is computed only for files that have a candidate call.
  std::optional<LoopStructure> loops;
  auto in_loop_at = [&](uint32_t si) {
    if (stmt_of[si] == python::kNoIndex) return false;
    if (!loops) loops = loop_structure(a);
    return static_cast<bool>(loops->in_loop[stmt_of[si]]);
  };
  // Per scope header statement: has its scope device work? (asked once per scope)
  std::vector<std::pair<uint32_t, bool>> evidence;
  auto on_device = [&](uint32_t si) {
    const uint32_t header = loops->scope[stmt_of[si]];
    if (header == python::kNoIndex) return false;
    for (const auto& [h, yes] : evidence)
      if (h == header) return yes;
    const auto& st = a.view.statements;
    const bool yes = has_device_evidence(a, st[header].first_sig, st[loops->block_end[header]].last_sig);
    evidence.emplace_back(header, yes);
    return yes;
  };
  const auto& sig = a.view.sig;
  // One advisory per statement and rule.
  std::vector<std::pair<uint32_t, const Rule*>> seen;
  auto emit = [&](const Rule* r, uint32_t stmt, uint32_t first_tok, uint32_t last_tok) {
    for (const auto& s : seen)
      if (s.first == stmt && s.second == r) return;
    seen.emplace_back(stmt, r);
    PyMatch m;
    m.rule = r;
    m.first_tok = first_tok;
    m.last_tok = last_tok;
    out.push_back(std::move(m));
  };

  if (!loop_calls.empty()) {
    for (const auto& ref : a.dotted.refs) {
      if (!ref.is_call || ref.qualified.empty()) continue;
      uint32_t si = ref.call_open_sig;
      if (si >= sig.size()) continue;
      for (const Rule* r : loop_calls)
        if (contains(r->params<LoopCallMatch>().names, ref.qualified) && in_loop_at(si))
          emit(r, stmt_of[si], ref.first_tok(a.view), ref.last_tok(a.view));
    }
  }

  // The token-level patterns, each found by searching op1 for its operator: `a @ b` in a loop,
  // `.item()`-style calls in a loop, and `softmax(... @ ... transpose ...)`.
  const auto& op1 = a.view.op1;
  const bool want_matmul_op = std::any_of(loop_calls.begin(), loop_calls.end(), [](const Rule* r) { return r->params<LoopCallMatch>().op == "@"; });
  if (want_matmul_op) {
    a.view.for_each_op1('@', [&](uint32_t si) {
      if (!in_loop_at(si)) return;
      if (si == a.view.statements[stmt_of[si]].first_sig) return;  // a decorator
      for (const Rule* r : loop_calls)
        if (r->params<LoopCallMatch>().op == "@") emit(r, stmt_of[si], sig[si], sig[si]);
    });
  }
  if (!loop_methods.empty()) {
    a.view.for_each_op1('.', [&](uint32_t si) {
      if (si + 2 >= sig.size() || op1[si + 2] != '(' || !a.sig_is_name(si + 1)) return;
      std::string_view name = a.sig_text(si + 1);
      for (const Rule* r : loop_methods)
        if (contains(r->params<LoopMethodMatch>().names, name) && in_loop_at(si) && (receiver_names_a_loss(a, si) || on_device(si)))
          emit(r, stmt_of[si], sig[si], sig[si + 1]);
    });
  }
  if (!attention.empty()) {
    a.view.for_each_op1('(', [&](uint32_t open) {
      if (open == 0) return;
      const uint32_t si = open - 1;
      if (op1[si] == '\0' && a.sig_is_name(si) && a.sig_text(si) == kSoftmax) match_attention(a, attention, si, emit);
    });
  }
}

void LoopCallMatch::add_needles(const RuleCatalog& rules, PythonNeedles& needles) {
  for (const Rule* r : rules.of_kind<LoopCallMatch>()) {
    for (const auto& n : r->params<LoopCallMatch>().names) needles.add_dotted(n, {.loop_only = true});
    if (r->params<LoopCallMatch>().op == "@") needles.binary_at_in_loops = true;
  }
}

void LoopMethodMatch::add_needles(const RuleCatalog& rules, PythonNeedles& needles) {
  for (const Rule* r : rules.of_kind<LoopMethodMatch>())
    for (const auto& n : r->params<LoopMethodMatch>().names) needles.add_name(n, {.attribute_only = true, .loop_only = true});
}

void AttentionPatternMatch::add_needles(const RuleCatalog& rules, PythonNeedles& needles) {
  if (!rules.of_kind<AttentionPatternMatch>().empty()) needles.add_name(kSoftmax);
}

}  // namespace banjia::rules
