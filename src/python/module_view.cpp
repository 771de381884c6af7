#include <algorithm>
#include <array>

#include "python/module.h"

namespace banjia::python {
namespace {

bool is_compound_keyword(std::string_view w) {
  static constexpr std::array<std::string_view, 14> kWords = {
      "if", "elif", "else", "while", "for", "try", "except", "finally", "with",
      "def", "class", "async", "match", "case"};
  return std::find(kWords.begin(), kWords.end(), w) != kWords.end();
}

// 1 for the token kinds a ModuleView keeps: one table load instead of three compares per token.
constexpr std::array<uint8_t, 256> kSignificant = [] {
  std::array<uint8_t, 256> t{};
  t.fill(1);
  for (TokenKind k : {TokenKind::Whitespace, TokenKind::Comment, TokenKind::NL}) t[static_cast<uint8_t>(k)] = 0;
  return t;
}();

char closer_for(std::string_view open) {
  return open == "(" ? ')' : open == "[" ? ']' : open == "{" ? '}' : '\0';
}

}  // namespace

ModuleView build_view(std::string_view src, const TokenStream& ts) {
  ModuleView v;
  build_view(src, ts, v);
  return v;
}

void build_view(std::string_view src, const TokenStream& ts, ModuleView& v) {
  v.src = src;
  v.ts = &ts;
  const Token* toks = ts.tokens.data();
  const uint32_t ntok = static_cast<uint32_t>(ts.tokens.size());
  v.sig.resize(ntok);
  uint32_t n = 0;
  uint32_t* sig_out = v.sig.data();
  for (uint32_t i = 0; i < ntok; ++i) {  // branch-free filter: trivia is overwritten by the next token
    sig_out[n] = i;
    n += kSignificant[static_cast<uint8_t>(toks[i].kind)];
  }
  v.sig.resize(n);
  // Sized without being filled: the loop below writes every element of these three, each first at
  // its own index (a later closing bracket only rewrites an opener's match).
  v.match.resize(n);
  v.op1.resize(n);
  v.stmt_of.resize(n);
  v.statements.clear();
  v.statements.reserve(n / 6 + 1);
  v.name_heads.clear();
  v.name_heads.reserve(n / 3 + 1);
  v.string_starts.clear();
  v.import_statements.clear();
  // Raw pointers: stores through match/stmt_of would otherwise force reloads of every vector.
  const uint32_t* sig = v.sig.data();
  int32_t* match = v.match.data();
  uint32_t* stmt_of = v.stmt_of.data();
  char* op1 = v.op1.data();
  auto pair = [&](uint32_t a, uint32_t b) {
    match[a] = static_cast<int32_t>(b);
    match[b] = static_cast<int32_t>(a);
  };

  std::vector<uint32_t> open;  // sig indices of unclosed brackets / f-string starts
  int depth = 0;               // INDENT nesting
  int same_line_bonus = 0;     // body statements after `if x:` on the same logical line
  bool in_stmt = false, header = false, after_dot = false;
  ModuleView::Statement cur{0, 0, 0};
  auto end_stmt = [&] {
    if (in_stmt) v.statements.push_back(cur);
    in_stmt = header = false;
  };
  for (uint32_t k = 0; k < n; ++k) {
    const Token& t = toks[sig[k]];
    match[k] = -1;
    // op1 and stmt_of are written once per token, here for layout tokens, below for the rest (not
    // cleared first).
    switch (t.kind) {
      case TokenKind::Indent:
      case TokenKind::Dedent:
      case TokenKind::Newline:
      case TokenKind::EndMarker:
        op1[k] = '\0';
        stmt_of[k] = kNoIndex;  // layout belongs to no statement
        if (t.kind == TokenKind::Indent) {
          after_dot = false;
          ++depth;
        } else if (t.kind == TokenKind::Dedent) {
          depth = std::max(0, depth - 1);
        } else {
          after_dot = false;
          end_stmt();
          same_line_bonus = 0;
          open.clear();  // a logical line never continues past NEWLINE; leftovers stay unmatched
        }
        continue;
      default: break;
    }
    // Single-character operators drive brackets and statement splits; compare bytes, not strings.
    const char c = (t.kind == TokenKind::Op && t.end - t.begin == 1) ? src[t.begin] : '\0';
    op1[k] = c;
    if (c == ';' && open.empty()) {
      stmt_of[k] = kNoIndex;
      end_stmt();
      after_dot = false;  // `a.;b` (a syntax error) still starts a chain at `b` (docs/fuzzing.md, dot-semicolon)
      continue;
    }
    if (!in_stmt) {
      in_stmt = true;
      header = t.kind == TokenKind::Name && is_compound_keyword(t.text(src));
      cur = {k, k, depth + same_line_bonus};
    }
    cur.last_sig = k;
    stmt_of[k] = static_cast<uint32_t>(v.statements.size());
    if (t.kind == TokenKind::Name) {
      if (!after_dot) v.name_heads.push_back(k);
      after_dot = false;
      continue;
    }
    after_dot = c == '.';
    if (t.kind == TokenKind::String) {
      v.string_starts.push_back(k);
    } else if (t.kind == TokenKind::FStringStart) {
      v.string_starts.push_back(k);
      open.push_back(k);
    } else if (t.kind == TokenKind::FStringEnd) {
      if (!open.empty() && toks[sig[open.back()]].kind == TokenKind::FStringStart) {
        pair(k, open.back());
        open.pop_back();
      }
    } else if (c == '(' || c == '[' || c == '{') {
      open.push_back(k);
    } else if (c == ')' || c == ']' || c == '}') {
      if (!open.empty() && closer_for(v.text(open.back())) == c) {
        pair(k, open.back());
        open.pop_back();
      }
    } else if (c == ':' && header && open.empty()) {
      end_stmt();  // `if x: body` -- the body is its own statement one level deeper
      same_line_bonus = 1;
    }
  }
  end_stmt();
  // Apart from the loop above: recording them there made the compiler keep less of that loop's state
  // in registers (+14 % instructions for the whole view).
  for (uint32_t s = 0; s < v.statements.size(); ++s) {
    const Token& t = toks[sig[v.statements[s].first_sig]];
    if (t.kind != TokenKind::Name) continue;
    const std::string_view word = t.text(src);
    if (word == "import" || word == "from") v.import_statements.push_back(s);
  }
}

std::vector<CallArg> call_arguments(const ModuleView& view, uint32_t open_sig) {
  std::vector<CallArg> args;
  if (open_sig >= view.sig.size() || view.match[open_sig] <= static_cast<int32_t>(open_sig)) return args;
  const uint32_t close = static_cast<uint32_t>(view.match[open_sig]);
  int position = 0;
  auto finish = [&](uint32_t a, uint32_t b) {  // argument tokens [a, b]
    CallArg arg{a, b, {}, kNoIndex, -1, false, false};
    if (view.is_op(a, "*")) {
      arg.star = true;
    } else if (view.is_op(a, "**")) {
      arg.double_star = true;
    } else if (view.tok(a).kind == TokenKind::Name && a + 1 <= b && view.is_op(a + 1, "=")) {
      arg.keyword = view.text(a);
      arg.keyword_sig = a;
      arg.first_sig = std::min(a + 2, b);
    } else {
      arg.position = position++;
    }
    args.push_back(arg);
  };
  uint32_t start = open_sig + 1;
  for (uint32_t k = start; k < close;) {
    const Token& t = view.tok(k);
    bool opener = t.kind == TokenKind::FStringStart ||
                  (t.kind == TokenKind::Op && closer_for(t.text(view.src)) != '\0');
    if (opener && view.match[k] > static_cast<int32_t>(k)) {
      k = static_cast<uint32_t>(view.match[k]) + 1;
      continue;
    }
    if (view.is_op(k, ",")) {
      if (k > start) finish(start, k - 1);
      start = k + 1;
    }
    ++k;
  }
  if (start < close) finish(start, close - 1);
  return args;
}

const CallArg* find_keyword(const std::vector<CallArg>& args, std::string_view name) {
  for (const CallArg& a : args)
    if (a.keyword == name) return &a;
  return nullptr;
}

const CallArg* find_positional(const std::vector<CallArg>& args, int position) {
  for (const CallArg& a : args)
    if (a.position == position) return &a;
  return nullptr;
}

}  // namespace banjia::python
