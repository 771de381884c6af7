// Check 3 of rewrite_safety.h: CUDA checks that select code. A rewritten check (`torch.cuda.
// is_available()` -> `torch.npu.is_available()`, `device.type == "cuda"` -> `== "npu"`) turns the
// code it selects on for the NPU. That is right only when that code is meant for any accelerator
// and runs there. The check stays, reported, where
//  (a) its result is stored under a name that means an NVIDIA GPU (`is_nvidia = ... == "cuda"`);
//  (b) the code it selects needs NVIDIA hardware (data/vendor/nvidia.toml: compute capability, TMA,
//      `hopper` names), or is nothing but CUDA settings (TF32, cuDNN flags) the NPU ignores;
//  (c) the code it selects keeps a CUDA use that is not rewritten.
// The code selected by a check that stays is kept with it (its rewrites would break the NVIDIA path
// and never run on the NPU); CUDA uses under such a check do not count for the checks around it.
// Blocking can make an enclosing check's code keep a CUDA use: the checks are repeated until nothing
// changes.
#include <algorithm>
#include <optional>
#include <unordered_map>

#include "rules/core/catalog.h"
#include "rules/kinds/device_string.h"
#include "rules/analyses/string_literal_site.h"
#include "rules/safety/rewrite_safety_parts.h"
#include "rules/safety/vendor_terms.h"

namespace banjia::rules::safety {

namespace {

using python::Part;
using python::SigRange;
using python::SlotKind;

struct Check {
  size_t match;
  SigRange expr;  // the check: the call, or the comparison around it
  uint32_t stmt;
  bool negated;
};

bool is_header(const PythonAnalysis& a, uint32_t stmt, std::string_view keyword) {
  const auto& st = a.view.statements[stmt];
  return a.sig_is(st.first_sig, keyword) && a.sig_is_op(st.last_sig, ":");
}

// The comparison (==, !=, in, is, <, ...) around `e`, if `e` is an operand of one.
std::optional<std::pair<SigRange, bool>> comparison_around(const PythonAnalysis& a, SigRange e) {
  const python::Slot slot = python::slot_of(a.view, e);
  for (const auto& step : python::locate(a.view, slot.range, e))
    if (step.part == Part::compared) return std::make_pair(step.node, step.op == "!=" || step.op == "not in");
  if (slot.kind == SlotKind::call_argument && slot.open_sig >= 2 && a.sig_is_op(slot.open_sig - 2, ".")) {
    const std::string_view method = a.sig_text(slot.open_sig - 1);
    if (method == "startswith" || method == "endswith") {
      const auto& st = a.view.statements[a.view.stmt_of[slot.open_sig]];
      const uint32_t start = python::primary_start(a.view, slot.open_sig - 3, st.first_sig);
      return std::make_pair(SigRange{start, static_cast<uint32_t>(a.view.match[slot.open_sig])}, false);
    }
  }
  return std::nullopt;
}

// Whether an odd number of `not`s of the statement apply to `e`: `not x == "cuda"`,
// `not (x == "cuda" and ...)`.
bool negated_by_not(const PythonAnalysis& a, uint32_t stmt, SigRange e) {
  const auto& st = a.view.statements[stmt];
  bool negated = false;
  for (uint32_t si = st.first_sig; si < e.first; ++si) {
    if (!a.sig_is(si, "not") || a.sig_is(si + 1, "in")) continue;
    const uint32_t operand_end = python::primary_end(a.view, si + 1, st.last_sig);
    // `not` binds looser than a comparison: `not x == y` negates the comparison it starts.
    if ((si + 1 == e.first) || (si + 1 <= e.first && e.last <= operand_end)) negated = !negated;
  }
  return negated;
}

// The check a match rewrites, if it rewrites one.
std::optional<Check> check_of(const PythonAnalysis& a, const std::vector<PyMatch>& matches, size_t i) {
  const PyMatch& m = matches[i];
  if (!applies(m)) return std::nullopt;
  const uint32_t first = sig_of_token(a, m.first_tok), last = sig_of_token(a, m.last_tok);
  std::optional<std::pair<SigRange, bool>> found;
  if (const python::DottedRef* ref = a.ref_ending_at(last); ref && ref->first_sig == first && ref->is_call) {
    const bool available = ref->qualified.ends_with("cuda.is_available");
    if (!available && !ref->qualified.ends_with("cuda.device_count")) return std::nullopt;
    const int32_t close = a.view.match[ref->call_open_sig];
    if (close < 0) return std::nullopt;
    const SigRange call{first, static_cast<uint32_t>(close)};
    found = comparison_around(a, call);
    if (!found && !available) return std::nullopt;  // device_count() not compared: not a check
    if (!found) found = std::make_pair(call, false);
  } else if (m.rule->match.is<DeviceStringMatch>() || m.rule->match.is<BackendStringMatch>()) {
    found = comparison_around(a, {first, last});
  }
  if (!found) return std::nullopt;
  const uint32_t stmt = statement_of(a, found->first.first);
  if (stmt == python::kNoIndex) return std::nullopt;
  return Check{i, found->first, stmt, found->second != negated_by_not(a, stmt, found->first)};
}

SigRange body_range(const PythonAnalysis& a, const Arm& arm) {
  return {a.view.statements[arm.body_first].first_sig, a.view.statements[arm.body_last].last_sig};
}

// The `if` that starts the chain an `elif` header belongs to.
uint32_t chain_start(const PythonAnalysis& a, const Blocks& b, uint32_t stmt) {
  const auto& sts = a.view.statements;
  for (uint32_t s = stmt; s != python::kNoIndex && s < sts.size(); --s) {
    if (sts[s].indent_depth == sts[stmt].indent_depth && b.parent[s] == b.parent[stmt] && a.sig_is(sts[s].first_sig, "if")) return s;
    if (s == 0) break;
  }
  return stmt;
}

// Whether statement s leaves its block: return, raise, continue, break.
bool exits(const PythonAnalysis& a, uint32_t s) {
  const uint32_t first = a.view.statements[s].first_sig;
  return a.sig_is(first, "return") || a.sig_is(first, "raise") || a.sig_is(first, "continue") || a.sig_is(first, "break");
}

// The code an if/elif/while header selects: its arm's body, or, for a negated test, the arms after it.
void add_selected(const PythonAnalysis& a, const Blocks& b, uint32_t header, bool negated, std::vector<SigRange>& out) {
  if (is_header(a, header, "while")) {
    if (b.body_end[header] != python::kNoIndex && b.body_end[header] > header)
      out.push_back(body_range(a, {header, header + 1, b.body_end[header], false}));
    return;
  }
  const auto arms = chain_arms(a, b, chain_start(a, b, header));
  for (size_t k = 0; k < arms.size(); ++k) {
    if (arms[k].header != header) continue;
    for (size_t j = negated ? k + 1 : k; j < (negated ? arms.size() : k + 1); ++j)
      if (arms[j].body_first <= arms[j].body_last) out.push_back(body_range(a, arms[j]));
    // `if not cuda: ...; return`: what follows the chain in its block is what the check selects.
    if (negated && arms[k].body_first <= arms[k].body_last && exits(a, arms[k].body_last) &&
        a.view.statements[arms[k].body_last].indent_depth == a.view.statements[arms[k].body_first].indent_depth) {
      const uint32_t after = arms.back().body_last + 1, parent = b.parent[header];
      const auto& sts = a.view.statements;
      uint32_t last = parent == python::kNoIndex ? static_cast<uint32_t>(sts.size() - 1) : b.body_end[parent];
      if (after < sts.size() && after <= last) out.push_back({sts[after].first_sig, sts[last].last_sig});
    }
  }
}

// The name a statement stores the check's result under (`use_cuda = torch.cuda.is_available()`).
std::string stored_under(const PythonAnalysis& a, SigRange expr) {
  const python::Slot slot = python::slot_of(a.view, expr);
  if (slot.kind != SlotKind::assignment_value || slot.targets.size() != 1) return {};
  return std::string(python::chain_last_name(a.view, slot.targets[0]));
}

bool is_test_header(const PythonAnalysis& a, uint32_t stmt) {
  return is_header(a, stmt, "if") || is_header(a, stmt, "elif") || is_header(a, stmt, "while");
}

// Per name: the if/elif/while headers that test it and the statements that assign it, in order.
// Built once per file, the first time a check's result is stored under a name.
class NameTests {
 public:
  explicit NameTests(const PythonAnalysis& a) : a_(a) {}
  struct Uses {
    std::vector<uint32_t> tests, assignments;
  };
  const Uses& of(std::string_view name) {
    if (!built_) build();
    static const Uses none;
    auto it = by_name_.find(name);
    return it == by_name_.end() ? none : it->second;
  }

 private:
  void build() {
    built_ = true;
    const auto& v = a_.view;
    for (uint32_t s = 0; s < v.statements.size(); ++s) {
      const auto& st = v.statements[s];
      const bool test = is_test_header(a_, s);
      for (uint32_t si = st.first_sig; si <= st.last_sig; ++si) {
        if (!a_.sig_is_name(si)) continue;
        Uses& u = by_name_[a_.sig_text(si)];
        if (test && si > st.first_sig && si < st.last_sig && !a_.sig_is_op(si + 1, "(") && (u.tests.empty() || u.tests.back() != s))
          u.tests.push_back(s);
        if (!test && a_.sig_is_op(si + 1, "=") && (u.assignments.empty() || u.assignments.back() != s)) u.assignments.push_back(s);
      }
    }
  }
  const PythonAnalysis& a_;
  bool built_ = false;
  std::unordered_map<std::string_view, Uses> by_name_;
};

// Everything the check selects: the code of its header, or the rest of its statement and the code of
// the headers that test the name it is stored under, up to where that name is assigned again.
std::vector<SigRange> selected_code(const PythonAnalysis& a, const Blocks& b, NameTests& names, const Check& c) {
  std::vector<SigRange> out;
  if (is_test_header(a, c.stmt)) {
    add_selected(a, b, c.stmt, c.negated, out);
    return out;
  }
  const auto& st = a.view.statements[c.stmt];
  out.push_back({st.first_sig, st.last_sig});
  const std::string name = stored_under(a, c.expr);
  if (name.empty()) return out;
  const NameTests::Uses& uses = names.of(name);
  const auto next = std::upper_bound(uses.assignments.begin(), uses.assignments.end(), c.stmt);
  const uint32_t until = next == uses.assignments.end() ? UINT32_MAX : *next;
  for (auto it = std::upper_bound(uses.tests.begin(), uses.tests.end(), c.stmt); it != uses.tests.end() && *it < until; ++it) {
    const auto& hs = a.view.statements[*it];
    const bool negated = hs.first_sig + 1 < hs.last_sig && a.sig_is(hs.first_sig + 1, "not");
    add_selected(a, b, *it, negated, out);
  }
  return out;
}

std::string quoted(std::string_view s) { return "`" + std::string(s) + "`"; }

// (b): what makes the selected code NVIDIA-only, or "". Code under a check that stays (`skip`) does not
// count: it is false on an NPU.
template <class Skip>
std::string nvidia_only_code(const PythonAnalysis& a, const std::vector<SigRange>& code, const SigRange& check, Skip&& skip) {
  const VendorTerms& terms = vendor_terms();
  std::string setting;
  bool other_code = false;
  for (const SigRange& r : code) {
    for (uint32_t si = r.first; si <= r.last && si < a.view.sig.size(); ++si) {
      if ((check.first <= si && si <= check.last) || skip(si)) continue;
      if (!a.sig_is_name(si)) {
        if (auto lit = literal_at(a, si)) {
          if (const std::string_view p = terms.product(lit->value); !p.empty())
            return "it selects code for NVIDIA GPU models (line " + std::to_string(a.sig_token(si).line) + ": \"" +
                   std::string(p) + "\")";
          si = lit->last_sig;
        }
        continue;
      }
      const std::string_view n = a.sig_text(si);
      const std::string line = " (line " + std::to_string(a.sig_token(si).line) + ": ";
      if (const auto* f = terms.feature(n)) {
        if (!f->setting) return "it selects code that needs NVIDIA hardware" + line + quoted(n) + ", " + f->what + ")";
        if (setting.empty()) setting = "it selects only CUDA settings the NPU ignores" + line + quoted(n) + ", " + f->what + ")";
        continue;
      }
      if (terms.names_vendor(n, true)) return "it selects code for NVIDIA hardware" + line + quoted(n) + ")";
    }
  }
  // Settings alone: every statement of the selected code touches one.
  for (const SigRange& r : code)
    for (uint32_t s = a.view.stmt_of[r.first]; s != python::kNoIndex && s < a.view.statements.size() && a.view.statements[s].first_sig <= r.last; ++s) {
      const auto& st = a.view.statements[s];
      bool touches = skip(st.first_sig);
      for (uint32_t si = st.first_sig; si <= st.last_sig; ++si)
        if (a.sig_is_name(si) && terms.feature(a.sig_text(si))) touches = true;
      if (!touches && !(check.first >= st.first_sig && check.last <= st.last_sig)) other_code = true;
    }
  return other_code ? std::string() : setting;
}

}  // namespace

void block_unsafe_checks(const PythonAnalysis& a, const Blocks& b, Blocker& blocker) {
  std::vector<PyMatch>& matches = blocker.matches();
  std::vector<Check> checks;
  for (size_t i = 0; i < matches.size(); ++i)
    if (auto c = check_of(a, matches, i)) checks.push_back(*c);
  if (checks.empty()) return;
  // Inner checks first: what an inner check keeps decides what its enclosing checks select.
  std::stable_sort(checks.begin(), checks.end(), [](const Check& x, const Check& y) { return x.expr.first > y.expr.first; });
  const VendorTerms& terms = vendor_terms();
  std::vector<std::vector<SigRange>> code(checks.size());
  NameTests names(a);
  for (size_t k = 0; k < checks.size(); ++k) code[k] = selected_code(a, b, names, checks[k]);
  // The matches by first sig, so that a check visits only the matches in the code it selects: the
  // work stays proportional to the file, not to checks times matches.
  std::vector<std::pair<uint32_t, size_t>> by_sig;
  by_sig.reserve(matches.size());
  for (size_t i = 0; i < matches.size(); ++i) by_sig.emplace_back(sig_of_token(a, matches[i].first_tok), i);
  std::sort(by_sig.begin(), by_sig.end());
  auto for_each_selected = [&](size_t k, auto&& fn) {
    for (const SigRange& r : code[k])
      for (auto it = std::lower_bound(by_sig.begin(), by_sig.end(), std::make_pair(r.first, size_t{0}));
           it != by_sig.end() && it->first <= r.last; ++it)
        if (it->second != checks[k].match && !(checks[k].expr.first <= it->first && it->first <= checks[k].expr.last))
          if (fn(it->second)) return;
  };
  // Code under a check that stays is false on an NPU: its CUDA uses do not run there.
  std::vector<char> under_kept(a.view.sig.size(), 0);
  auto under_kept_check = [&](uint32_t si) { return si < under_kept.size() && under_kept[si]; };
  // Keeps check k and the code it selects; returns how many CUDA uses that leaves through imports.
  auto keep = [&](size_t k, const std::string& why) {
    size_t left = blocker.block(checks[k].match, "not rewritten: " + why, PyMatch::Hold::nvidia_path);
    for (const SigRange& r : code[k]) std::fill(under_kept.begin() + r.first, under_kept.begin() + r.last + 1, 1);
    const std::string with = "kept with the CUDA check on line " + std::to_string(a.sig_token(checks[k].expr.first).line) +
                             ", which selects this code and stays";
    for_each_selected(k, [&](size_t j) {
      if (applies(matches[j])) left += blocker.block(j, with, PyMatch::Hold::nvidia_path);
      return false;
    });
    return left;
  };
  // (a) and (b) do not depend on other decisions.
  for (size_t k = 0; k < checks.size(); ++k) {
    if (!applies(matches[checks[k].match])) continue;
    const std::string name = stored_under(a, checks[k].expr);
    const std::string why = !name.empty() && terms.names_vendor(name)
                                ? "its result is stored as " + quoted(name) + ", a name for an NVIDIA GPU"
                                : nvidia_only_code(a, code[k], checks[k].expr, under_kept_check);
    if (!why.empty()) keep(k, why + "; on an NPU this check must stay false (the NVIDIA path)");
  }
  // The checks of one test are one condition: rewriting some of them changes what it means.
  auto keep_siblings = [&]() {
    size_t left = 0;
    for (size_t k = 0; k < checks.size(); ++k) {
      if (applies(matches[checks[k].match])) continue;
      for (size_t j = 0; j < checks.size(); ++j)
        if (j != k && checks[j].stmt == checks[k].stmt && applies(matches[checks[j].match]))
          left += keep(j, "its test also holds the CUDA check on line " +
                              std::to_string(a.sig_token(checks[k].expr.first).line) +
                              ", which stays; the test changes as a whole or not at all");
    }
    return left;
  };
  keep_siblings();
  // (c), inner checks first; again while a blocked import leaves new CUDA uses behind.
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = 0; k < checks.size(); ++k) {
      if (!applies(matches[checks[k].match])) continue;
      size_t stays = matches.size();
      for_each_selected(k, [&](size_t j) {
        const bool found = is_leftover(matches[j]) && !under_kept_check(sig_of_token(a, matches[j].first_tok));
        if (found) stays = j;
        return found;
      });
      if (stays == matches.size()) continue;
      // Only a CUDA use left behind by a blocked import can change what checks already visited select.
      changed = keep(k, "the code it selects keeps a CUDA use that is not rewritten (line " +
                            std::to_string(line_of_token(a, matches[stays].first_tok)) + ": " +
                            quoted(span_text(a, matches[stays])) +
                            "); rewriting only this check would run that on the NPU: migrate it first, then this check") > 0 ||
                changed;
      changed = keep_siblings() > 0 || changed;
    }
  }
}

}  // namespace banjia::rules::safety
