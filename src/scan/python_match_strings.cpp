// Matchers on string literals in code positions: device strings ("cuda", "cuda:0", f"cuda:{i}"),
// "nccl" backends, and CUDA/NCCL environment variable names. Strings that merely mention cuda
// (messages, docstrings, comments) never match: the literal's whole value must be the device/
// backend/variable, and its position must be one where the value is used as such.
#include <algorithm>
#include <cctype>

#include "python/literals.h"
#include "scan/python_matches.h"

namespace banjia::scan {

using python::TokenKind;

namespace {

// A string literal expression: one String token, or an f-string FStringStart ... FStringEnd.
struct Literal {
  uint32_t first_sig, last_sig;
  uint32_t value_tok;        // token holding the leading text (String, or the first FStringMiddle)
  std::string_view value;    // leading literal text (whole value for plain strings)
  bool complete;             // value is the whole string (no replacement fields)
  size_t value_offset;       // byte offset of `value` in the text
};

std::optional<Literal> literal_at(const PythonAnalysis& a, uint32_t si) {
  const auto& t = a.sig_token(si);
  if (t.kind == TokenKind::String) {
    std::string_view s = t.text(a.text());
    // The same split the prefilter makes (python_prefilter.cpp): its needles are about this body.
    auto parts = python::split_string_literal(s);
    if (!parts || parts->bytes) return std::nullopt;
    // Implicit concatenation ("cu" "da") is not a plain device string: leave it alone.
    if (si + 1 < a.view.sig.size() && a.sig_token(si + 1).kind == TokenKind::String) return std::nullopt;
    if (si > 0 && a.sig_token(si - 1).kind == TokenKind::String) return std::nullopt;
    return Literal{si, si, a.view.sig[si], parts->body, true, t.begin + static_cast<size_t>(parts->body.data() - s.data())};
  }
  if (t.kind == TokenKind::FStringStart) {
    int depth = 0;
    uint32_t end = si;
    for (; end < a.view.sig.size(); ++end) {
      auto k = a.sig_token(end).kind;
      if (k == TokenKind::FStringStart) ++depth;
      else if (k == TokenKind::FStringEnd && --depth == 0) break;
    }
    if (end >= a.view.sig.size() || si + 1 >= end) return std::nullopt;
    const auto& mid = a.sig_token(si + 1);
    if (mid.kind != TokenKind::FStringMiddle) return std::nullopt;
    return Literal{si, end, a.view.sig[si + 1], mid.text(a.text()), si + 2 == end, mid.begin};
  }
  return std::nullopt;
}

// What the literals below start with: the prefilter's needles (add_string_needles) are these.
constexpr std::string_view kCudaDevice = "cuda", kCudaDevicePrefix = "cuda:";
constexpr std::string_view kNccl = "nccl", kNcclUpper = "NCCL";

bool is_cuda_device_value(const Literal& l) {
  std::string_view v = l.value;
  if (v == kCudaDevice) return l.complete;
  if (!v.starts_with(kCudaDevicePrefix)) return false;
  std::string_view rest = v.substr(kCudaDevicePrefix.size());
  if (!l.complete) return rest.empty();  // f"cuda:{rank}"
  if (rest == "{}") return true;         // "cuda:{}".format(i)
  return !rest.empty() && std::all_of(rest.begin(), rest.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// Where a literal stands: as an argument of a call (which callee, which keyword/position), or as
// an operand of ==/!=, or as a subscript.
struct Position {
  bool in_call = false;
  uint32_t open_sig = 0;
  std::string_view keyword;
  int positional_index = -1;
  bool compared = false;                 // operand of == / !=
  std::string_view compared_with_last;   // last name of the other operand's chain
  bool subscript_of_environ = false;
  bool membership_in_environ = false;    // "X" in os.environ
};

std::string_view chain_last_name_before(const PythonAnalysis& a, uint32_t si) {
  // si is the last token of the operand before an operator.
  return a.sig_is_name(si) ? a.sig_text(si) : std::string_view();
}

std::string_view chain_last_name_after(const PythonAnalysis& a, uint32_t si) {
  std::string_view last;
  while (a.sig_is_name(si)) {
    last = a.sig_text(si);
    if (!a.sig_is_op(si + 1, ".")) break;
    si += 2;
  }
  return last;
}

Position position_of(const PythonAnalysis& a, const Literal& l) {
  Position p;
  uint32_t b = l.first_sig, e = l.last_sig;
  if (b > 0 && (a.sig_is_op(b - 1, "==") || a.sig_is_op(b - 1, "!="))) {
    p.compared = true;
    p.compared_with_last = b >= 2 ? chain_last_name_before(a, b - 2) : std::string_view();
  }
  if (a.sig_is_op(e + 1, "==") || a.sig_is_op(e + 1, "!=")) {
    p.compared = true;
    p.compared_with_last = chain_last_name_after(a, e + 2);
  }
  if (b >= 2 && a.sig_is_op(b - 1, "[") && a.sig_is(b - 2, "environ") && a.sig_is_op(e + 1, "]"))
    p.subscript_of_environ = true;
  if (a.sig_is(e + 1, "in") && chain_last_name_after(a, e + 2) == "environ") p.membership_in_environ = true;

  // A whole argument: preceded by '(' / ',' (or `kw=`), followed by ',' / ')'.
  if (!(a.sig_is_op(e + 1, ",") || a.sig_is_op(e + 1, ")"))) return p;
  uint32_t before = b;
  if (b >= 2 && a.sig_is_op(b - 1, "=") && a.sig_is_name(b - 2)) {
    p.keyword = a.sig_text(b - 2);
    before = b - 2;
  }
  if (before == 0 || !(a.sig_is_op(before - 1, "(") || a.sig_is_op(before - 1, ","))) return p;
  // Walk back to the enclosing '(' counting top-level commas.
  int commas = 0;
  const auto& match = a.view.match;
  for (int64_t i = static_cast<int64_t>(before) - 1, steps = 0; i >= 0 && steps < 100000; --i, ++steps) {
    uint32_t u = static_cast<uint32_t>(i);
    if (a.sig_token(u).kind != TokenKind::Op) continue;
    std::string_view s = a.sig_text(u);
    if ((s == ")" || s == "]" || s == "}") && match[u] >= 0 && match[u] < i) {
      i = match[u];
      continue;
    }
    if (s == ",") ++commas;
    else if (s == "(") {
      p.in_call = u > 0 && (a.sig_is_name(u - 1) || a.sig_is_op(u - 1, ")") || a.sig_is_op(u - 1, "]"));
      p.open_sig = u;
      break;
    } else if (s == "[" || s == "{") {
      return p;
    }
  }
  if (p.keyword.empty()) p.positional_index = commas;
  return p;
}

bool is_device_position(const PythonAnalysis& a, const Position& p) {
  if (p.compared) return p.compared_with_last == "type" || p.compared_with_last.find("device") != std::string_view::npos;
  if (!p.in_call) return false;
  if (p.keyword == "device" || p.keyword == "device_type" || p.keyword == "map_location") return true;
  if (p.positional_index != 0) return false;
  Callee c = callee_of(a, p.open_sig);
  static const std::string_view kDeviceFirst[] = {"torch.device", "torch.autocast", "torch.amp.autocast",
                                                  "torch.amp.GradScaler", "torch.Generator", "torch.get_device_module"};
  for (auto q : kDeviceFirst)
    if (c.qualified == q) return true;
  return c.is_method && (c.last == "to" || c.last == "device");
}

bool is_backend_position(const PythonAnalysis& a, const Position& p) {
  if (!p.in_call) return false;
  if (p.keyword == "backend") return true;
  if (p.positional_index != 0) return false;
  Callee c = callee_of(a, p.open_sig);
  return c.last == "init_process_group" || c.last == "new_group";
}

bool is_env_position(const PythonAnalysis& a, const Position& p) {
  if (p.subscript_of_environ || p.membership_in_environ) return true;
  if (!p.in_call || p.positional_index != 0) return false;
  Callee c = callee_of(a, p.open_sig);
  if (c.last == "getenv" || c.last == "putenv" || c.last == "unsetenv") return true;
  if (c.last == "get" || c.last == "setdefault" || c.last == "pop")
    return p.open_sig >= 3 && a.sig_is_op(p.open_sig - 2, ".") && a.sig_is(p.open_sig - 3, "environ");
  return false;
}

// Replaces `from` inside the literal's value, keeping the case of its first letter (NCCL -> HCCL).
TextEdit replace_in_value(const Literal& l, std::string_view from, std::string_view to) {
  std::string lower;
  for (char c : l.value) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  size_t at = lower.find(from);
  std::string rep(to);
  if (at != std::string::npos && std::isupper(static_cast<unsigned char>(l.value[at])))
    for (auto& c : rep) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  uint32_t begin = static_cast<uint32_t>(l.value_offset + (at == std::string::npos ? 0 : at));
  return TextEdit{begin, static_cast<uint32_t>(begin + from.size()), rep};
}

}  // namespace

void match_strings(const PythonAnalysis& a, const RuleCatalog& rules, const EnvNameTable& env,
                   std::vector<PyMatch>& out) {
  const Rule* device = nullptr;
  const Rule* backend = nullptr;
  const Rule* backend_other = nullptr;
  const Rule* env_equiv = nullptr;
  const Rule* env_none = nullptr;
  for (const Rule* r : rules.of_kind(MatchKind::device_string)) device = r;
  for (const Rule* r : rules.of_kind(MatchKind::backend_string)) (r->position == "backend" ? backend : backend_other) = r;
  for (const Rule* r : rules.of_kind(MatchKind::env_name)) (r->equivalent.value_or(false) ? env_equiv : env_none) = r;

  const auto& sig = a.view.sig;
  for (uint32_t si : a.view.string_starts) {
    auto lit = literal_at(a, si);
    if (!lit) continue;
    std::string_view v = lit->value;
    const Rule* hit = nullptr;
    std::optional<TextEdit> edit;
    if (device && v.starts_with(kCudaDevice) && is_cuda_device_value(*lit)) {
      Position p = position_of(a, *lit);
      if (is_device_position(a, p)) {
        hit = device;
        edit = replace_in_value(*lit, device->rewrite_from, device->rewrite_to);
      }
    } else if ((v == kNccl || v == kNcclUpper) && lit->complete) {
      Position p = position_of(a, *lit);
      if (backend && is_backend_position(a, p)) {
        hit = backend;
        edit = replace_in_value(*lit, backend->rewrite_from, backend->rewrite_to);
      } else {
        hit = backend_other;
      }
    } else if (lit->complete && env.is_cuda_name(v)) {
      Position p = position_of(a, *lit);
      if (is_env_position(a, p)) {
        auto eq = env.equivalent ? env.equivalent(v) : std::nullopt;
        if (eq && env_equiv) {
          hit = env_equiv;
          edit = TextEdit{static_cast<uint32_t>(lit->value_offset), static_cast<uint32_t>(lit->value_offset + v.size()), *eq};
        } else {
          hit = env_none;
        }
      }
    }
    if (hit) {
      PyMatch m;
      m.rule = hit;
      m.first_tok = sig[lit->first_sig];
      m.last_tok = sig[lit->last_sig];
      if (hit->fix == FixKind::automatic) m.edit = edit;
      if (hit == env_equiv) m.message = hit->message + ": " + std::string(v) + " -> " + edit->text;
      out.push_back(std::move(m));
    }
    si = lit->last_sig;
  }
}

void add_string_needles(const RuleCatalog& rules, const EnvNameTable& env, PythonNeedles& needles) {
  if (!rules.of_kind(MatchKind::device_string).empty()) {  // is_cuda_device_value
    needles.add_string_value(kCudaDevice);
    needles.add_string_prefix(kCudaDevicePrefix);
  }
  if (!rules.of_kind(MatchKind::backend_string).empty()) {
    needles.add_string_value(kNccl);
    needles.add_string_value(kNcclUpper);
  }
  if (!rules.of_kind(MatchKind::env_name).empty())
    for (const auto& p : env.cuda_prefixes) needles.add_string_prefix(p);
}

}  // namespace banjia::scan
