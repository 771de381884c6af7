#include "python/expression.h"

#include <algorithm>
#include <array>

namespace banjia::python {

namespace {

bool is_keyword(std::string_view w) {
  static constexpr std::array<std::string_view, 35> kKeywords = {
      "False", "None",   "True",    "and",      "as",     "assert", "async", "await",  "break",
      "class", "continue", "def",   "del",      "elif",   "else",   "except", "finally", "for",
      "from",  "global", "if",      "import",   "in",     "is",     "lambda", "nonlocal", "not",
      "or",    "pass",   "raise",   "return",   "try",    "while",  "with",  "yield"};
  return std::find(kKeywords.begin(), kKeywords.end(), w) != kKeywords.end();
}

bool is_opener(const ModuleView& v, uint32_t si) {
  char c = v.op1[si];
  return c == '(' || c == '[' || c == '{' || v.tok(si).kind == TokenKind::FStringStart;
}
bool is_closer(const ModuleView& v, uint32_t si) {
  char c = v.op1[si];
  return c == ')' || c == ']' || c == '}' || v.tok(si).kind == TokenKind::FStringEnd;
}
bool is_kw(const ModuleView& v, uint32_t si, std::string_view w) { return v.is_name(si, w); }

// Delimiters that end an expression slot (besides brackets and the statement's ends).
bool is_slot_delimiter(const ModuleView& v, uint32_t si) {
  char c = v.op1[si];
  if (c == ',' || c == '=' || c == ':' || c == ';') return true;
  const Token& t = v.tok(si);
  if (t.kind != TokenKind::Op) return false;
  std::string_view s = v.text(si);
  // := and augmented assignments, and the annotation arrow.
  return s == ":=" || s == "->" || (s.size() >= 2 && s.back() == '=' && s != "==" && s != "!=" && s != "<=" && s != ">=");
}

// Statement keywords that open an expression slot when they start the statement.
bool is_leading_keyword(std::string_view w) {
  return w == "return" || w == "yield" || w == "if" || w == "elif" || w == "while" || w == "assert" ||
         w == "with" || w == "del" || w == "raise" || w == "for" || w == "await" || w == "case" || w == "match";
}

// A '(' that opens a call's arguments (not a parenthesised expression or tuple).
bool is_call_paren(const ModuleView& v, uint32_t open) {
  if (v.op1[open] != '(' || open == 0) return false;
  uint32_t p = open - 1;
  if (v.tok(p).kind == TokenKind::Name) return !is_keyword(v.text(p));
  return v.op1[p] == ')' || v.op1[p] == ']';
}
bool is_subscript_bracket(const ModuleView& v, uint32_t open) {
  if (v.op1[open] != '[' || open == 0) return false;
  uint32_t p = open - 1;
  if (v.tok(p).kind == TokenKind::Name) return !is_keyword(v.text(p));
  return v.op1[p] == ')' || v.op1[p] == ']' || v.tok(p).kind == TokenKind::String;
}

// Walks left from si (inclusive) at bracket depth 0, skipping bracketed groups, to the first token
// for which stop(i) holds; returns kNoIndex at the statement's start.
template <class Stop>
uint32_t scan_left(const ModuleView& v, uint32_t si, uint32_t stmt_first, Stop stop) {
  for (int64_t i = si; i >= static_cast<int64_t>(stmt_first); --i) {
    uint32_t u = static_cast<uint32_t>(i);
    if (is_closer(v, u) && v.match[u] >= 0 && static_cast<uint32_t>(v.match[u]) < u) {
      i = v.match[u];
      continue;
    }
    if (stop(u)) return u;
  }
  return kNoIndex;
}

// Counts top-level commas between open (exclusive) and at (exclusive).
int commas_between(const ModuleView& v, uint32_t open, uint32_t at) {
  int n = 0;
  for (uint32_t i = open + 1; i < at; ++i) {
    if (is_opener(v, i) && v.match[i] > static_cast<int32_t>(i)) {
      i = static_cast<uint32_t>(v.match[i]);
      continue;
    }
    if (v.op1[i] == ',') ++n;
  }
  return n;
}

// The '(' / '[' / '{' (or kNoIndex) that directly encloses sig index si within its statement.
uint32_t enclosing_open(const ModuleView& v, uint32_t si, uint32_t stmt_first) {
  if (si == 0) return kNoIndex;
  return scan_left(v, si - 1, stmt_first, [&](uint32_t u) { return is_opener(v, u) || is_kw(v, u, "lambda"); });
}

// `NAME` or `NAME: annotation` in [from, to]: the name, or "".
std::string_view parameter_name(const ModuleView& v, uint32_t from, uint32_t to) {
  if (from > to || v.tok(from).kind != TokenKind::Name) return {};
  if (from == to || v.op1[from + 1] == ':') return v.text(from);
  return {};
}

void classify_bracketed(const ModuleView& v, const ModuleView::Statement& st, uint32_t left, Slot& s) {
  uint32_t open = is_opener(v, left) ? left : enclosing_open(v, left, st.first_sig);
  if (open == kNoIndex) return;
  s.open_sig = open;
  if (is_kw(v, open, "lambda")) {
    s.kind = SlotKind::parameter_default;
    if (v.op1[left] == '=') {
      uint32_t from = open + 1;
      if (uint32_t c = scan_left(v, left - 1, open + 1, [&](uint32_t u) { return v.op1[u] == ','; }); c != kNoIndex) from = c + 1;
      s.keyword = parameter_name(v, from, left - 1);
    }
    return;
  }
  int commas = commas_between(v, open, s.range.first);
  if (v.op1[left] == '=') {
    // keyword argument or parameter default: `name=` or `name: T =` since the last comma.
    uint32_t from = open + 1;
    if (uint32_t c = scan_left(v, left - 1, open + 1, [&](uint32_t u) { return v.op1[u] == ','; }); c != kNoIndex) from = c + 1;
    s.keyword = parameter_name(v, from, left - 1);
    bool def = open >= 2 && v.tok(open - 1).kind == TokenKind::Name && is_kw(v, open - 2, "def");
    s.kind = def ? SlotKind::parameter_default : is_call_paren(v, open) ? SlotKind::call_argument : SlotKind::other;
    return;
  }
  if (is_call_paren(v, open)) {
    s.kind = SlotKind::call_argument;
    s.position = commas;
  } else if (is_subscript_bracket(v, open)) {
    s.kind = SlotKind::subscript;
  } else if (v.op1[open] == '{' && v.op1[left] == ':') {
    s.kind = SlotKind::dict_value;
    uint32_t from = open + 1;
    if (uint32_t c = scan_left(v, left - 1, open + 1, [&](uint32_t u) { return v.op1[u] == ','; }); c != kNoIndex) from = c + 1;
    s.key = {from, left - 1};
  } else if (v.op1[left] != ':') {
    s.kind = SlotKind::element;
    s.position = commas;
  }
}

void classify_assignment(const ModuleView& v, const ModuleView::Statement& st, uint32_t eq, Slot& s) {
  s.kind = SlotKind::assignment_value;
  uint32_t from = st.first_sig;
  for (uint32_t i = st.first_sig; i <= eq; ++i) {
    if (is_opener(v, i) && v.match[i] > static_cast<int32_t>(i)) {
      i = static_cast<uint32_t>(v.match[i]);
      continue;
    }
    if (v.op1[i] != '=') continue;
    if (i > from) {
      // `name: T = x`: the target is what stands before the annotation's ':'.
      uint32_t colon = scan_left(v, i - 1, from, [&](uint32_t u) { return v.op1[u] == ':'; });
      s.targets.push_back({from, colon != kNoIndex && colon > from ? colon - 1 : i - 1});
    }
    from = i + 1;
  }
}

}  // namespace

uint32_t primary_end(const ModuleView& v, uint32_t si, uint32_t limit) {
  uint32_t i = si;
  if (is_opener(v, i)) {
    if (v.match[i] <= static_cast<int32_t>(i)) return si;
    i = static_cast<uint32_t>(v.match[i]);
  }
  while (i < limit) {
    if (v.op1[i + 1] == '.' && i + 2 <= limit && v.tok(i + 2).kind == TokenKind::Name) {
      i += 2;
    } else if ((v.op1[i + 1] == '(' || v.op1[i + 1] == '[') && v.match[i + 1] > static_cast<int32_t>(i + 1) &&
               static_cast<uint32_t>(v.match[i + 1]) <= limit) {
      i = static_cast<uint32_t>(v.match[i + 1]);
    } else {
      break;
    }
  }
  return i;
}

uint32_t primary_start(const ModuleView& v, uint32_t end, uint32_t limit) {
  uint32_t i = end;
  for (;;) {
    if (is_closer(v, i) && v.match[i] >= static_cast<int32_t>(limit) && v.match[i] < static_cast<int32_t>(i)) {
      i = static_cast<uint32_t>(v.match[i]);
      // a call or subscript continues to the left; a parenthesised group ends here
      if (i > limit && (v.tok(i - 1).kind == TokenKind::Name || is_closer(v, i - 1)) && v.op1[i] != '{') {
        if (v.tok(i - 1).kind == TokenKind::Name && is_keyword(v.text(i - 1))) return i;
        --i;
        continue;
      }
      return i;
    }
    if (v.tok(i).kind != TokenKind::Name) return i;
    if (i >= limit + 2 && v.op1[i - 1] == '.') {
      i -= 2;
      continue;
    }
    return i;
  }
}

std::string_view chain_last_name(const ModuleView& v, SigRange r) {
  if (r.last < r.first || (r.last - r.first) % 2 != 0) return {};
  for (uint32_t i = r.first; i <= r.last; i += 2) {
    if (v.tok(i).kind != TokenKind::Name || is_keyword(v.text(i))) return {};
    if (i < r.last && v.op1[i + 1] != '.') return {};
  }
  return v.text(r.last);
}

Slot slot_of(const ModuleView& v, SigRange e) {
  Slot s;
  s.range = e;
  if (e.first >= v.sig.size() || v.stmt_of[e.first] == kNoIndex) return s;
  const ModuleView::Statement& st = v.statements[v.stmt_of[e.first]];
  auto delimits = [&](uint32_t u) { return is_opener(v, u) || is_slot_delimiter(v, u) || (u == st.first_sig && is_leading_keyword(v.text(u))); };
  uint32_t left = e.first == 0 ? kNoIndex : scan_left(v, e.first - 1, st.first_sig, delimits);
  uint32_t right = e.last;
  while (right < st.last_sig) {
    uint32_t n = right + 1;
    if (is_opener(v, n)) {
      if (v.match[n] <= static_cast<int32_t>(n)) break;
      right = static_cast<uint32_t>(v.match[n]);
      continue;
    }
    if (is_closer(v, n) || is_slot_delimiter(v, n) || is_kw(v, n, "for")) break;
    right = n;
  }
  s.range = {left == kNoIndex ? st.first_sig : left + 1, right};
  if (left == kNoIndex) {
    bool is_target = right < st.last_sig && v.op1[right + 1] == '=';
    s.kind = is_target ? SlotKind::other : SlotKind::statement;
    return s;
  }
  std::string_view lt = v.text(left);
  if (v.tok(left).kind == TokenKind::Name) {
    if (lt == "return" || lt == "yield") s.kind = SlotKind::return_value;
    else if (lt == "if" || lt == "elif" || lt == "while" || lt == "assert" || lt == "with") s.kind = SlotKind::header;
    return s;
  }
  if (v.op1[left] == '=') {
    uint32_t open = enclosing_open(v, left, st.first_sig);
    if (open == kNoIndex) classify_assignment(v, st, left, s);
    else classify_bracketed(v, st, left, s);
    return s;
  }
  if (is_opener(v, left) || v.op1[left] == ',' || v.op1[left] == ':') classify_bracketed(v, st, left, s);
  return s;
}

namespace {

// Top-level tokens of r (bracketed groups skipped) for which pred holds.
template <class Pred>
std::vector<uint32_t> top_level(const ModuleView& v, SigRange r, Pred pred) {
  std::vector<uint32_t> out;
  for (uint32_t i = r.first; i <= r.last; ++i) {
    if (is_opener(v, i) && v.match[i] > static_cast<int32_t>(i)) {
      i = static_cast<uint32_t>(v.match[i]);
      continue;
    }
    if (pred(i)) out.push_back(i);
  }
  return out;
}

bool contains(SigRange outer, SigRange inner) { return outer.first <= inner.first && inner.last <= outer.last; }

// Comparison operators at sig index i: its width in tokens (1, or 2 for `not in` / `is not`), or 0.
uint32_t comparison_width(const ModuleView& v, uint32_t i, SigRange r) {
  const Token& t = v.tok(i);
  if (t.kind == TokenKind::Op) {
    std::string_view s = v.text(i);
    return (s == "==" || s == "!=" || s == "<" || s == ">" || s == "<=" || s == ">=") ? 1 : 0;
  }
  if (t.kind != TokenKind::Name) return 0;
  std::string_view w = v.text(i);
  if (w == "in") return 1;
  if (w == "is") return i + 1 <= r.last && is_kw(v, i + 1, "not") ? 2 : 1;
  if (w == "not" && i + 1 <= r.last && is_kw(v, i + 1, "in") && i > r.first) return 2;
  return 0;
}

}  // namespace

std::vector<Step> locate(const ModuleView& v, SigRange outer, SigRange target) {
  std::vector<Step> steps;
  SigRange node = outer;
  for (int guard = 0; guard < 64 && contains(node, target); ++guard) {
    Step st;
    st.node = node;
    if (node == target) {
      st.part = Part::whole;
      st.inner = node;
      steps.push_back(st);
      break;
    }
    if (is_kw(v, node.first, "lambda")) break;
    // X if C else Y (the first top-level `if` and the `else` after it).
    auto ifs = top_level(v, node, [&](uint32_t i) { return i > node.first && is_kw(v, i, "if"); });
    if (!ifs.empty()) {
      SigRange rest{ifs[0] + 1, node.last};
      auto elses = top_level(v, rest, [&](uint32_t i) { return is_kw(v, i, "else"); });
      if (!elses.empty() && elses[0] > ifs[0] + 1 && elses[0] < node.last) {
        SigRange then_part{node.first, ifs[0] - 1}, test{ifs[0] + 1, elses[0] - 1}, else_part{elses[0] + 1, node.last};
        if (contains(then_part, target)) st.part = Part::condition_then, st.inner = then_part;
        else if (contains(test, target)) st.part = Part::condition_test, st.inner = test;
        else if (contains(else_part, target)) st.part = Part::condition_else, st.inner = else_part;
        else break;
        st.other = test;
        steps.push_back(st);
        node = st.inner;
        continue;
      }
    }
    bool split = false;
    for (std::string_view op : {"or", "and"}) {
      auto ops = top_level(v, node, [&](uint32_t i) { return is_kw(v, i, op); });
      if (ops.empty()) continue;
      uint32_t from = node.first;
      ops.push_back(node.last + 1);
      for (uint32_t o : ops) {
        SigRange operand{from, o - 1};
        if (o > from && contains(operand, target)) {
          st.part = Part::boolean_operand;
          st.inner = operand;
        }
        from = o + 1;
      }
      split = true;
      break;
    }
    if (!split && is_kw(v, node.first, "not") && node.first < node.last) {
      st.part = Part::boolean_operand;
      st.inner = {node.first + 1, node.last};
      split = true;
    }
    if (split) {
      if (st.part != Part::boolean_operand) break;
      steps.push_back(st);
      node = st.inner;
      continue;
    }
    // Comparisons: operands separated by comparison operators.
    std::vector<std::pair<uint32_t, uint32_t>> ops;  // (index, width)
    for (uint32_t i : top_level(v, node, [&](uint32_t i) { return comparison_width(v, i, node) > 0; })) {
      if (!ops.empty() && ops.back().first + ops.back().second > i) continue;  // `not in`'s second token
      ops.push_back({i, comparison_width(v, i, node)});
    }
    if (!ops.empty()) {
      std::vector<SigRange> operands;
      uint32_t from = node.first;
      for (auto [i, w] : ops) {
        operands.push_back({from, i == 0 ? 0 : i - 1});
        from = i + w;
      }
      operands.push_back({from, node.last});
      for (size_t k = 0; k < operands.size(); ++k) {
        if (operands[k].first > operands[k].last || !contains(operands[k], target)) continue;
        st.part = Part::compared;
        st.inner = operands[k];
        size_t o = k > 0 ? k - 1 : 0;  // the operator next to the target: left of it, else right
        st.target_on_left = k == 0;
        st.other = k > 0 ? operands[k - 1] : operands[1];
        auto [op_at, width] = ops[o];
        st.op = width == 1 ? v.text(op_at) : is_kw(v, op_at, "not") ? std::string_view("not in") : std::string_view("is not");
      }
      if (st.part != Part::compared) break;
      steps.push_back(st);
      node = st.inner;
      continue;
    }
    st.part = Part::other;
    st.inner = node;
    steps.push_back(st);
    break;
  }
  return steps;
}

}  // namespace banjia::python
