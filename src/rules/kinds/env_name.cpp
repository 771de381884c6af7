// Match kind "env-name" (env_name.h): CUDA/NCCL environment variable names used as such in Python. Where a name stands:
//   os.environ["X"], "X" in os.environ, os.getenv("X"), os.putenv/unsetenv("X"),
//   os.environ.get/setdefault/pop("X");
//   a key of an environment dict: {**os.environ, "X": v}, env={"X": v} (a call's `env=`, as
//   subprocess takes), os.environ.update({"X": v});
//   a keyword naming the variable: dict(os.environ, X=v), os.environ.update(X=v);
//   the same on a copy of the environment: env = os.environ.copy() (or dict(os.environ), {**os.environ})
//   then env["X"] = v, env.setdefault("X", v), env.update(...).
// As `banjia env translate` does for shell (env/analysis/translate.h, one table: data/env): names renamed
// automatically there are renamed here, with the value set to a literal translated the same way
// (PYTORCH_CUDA_ALLOC_CONF without the options torch_npu rejects, NCCL_DETERMINISTIC 1 -> true); a
// documented pair that needs a manual setting is reported with its note and source; other CUDA
// names are reported. A value that hides every GPU ("-1", "": the force-CPU idiom) set for a name the
// hide-all rule lists is reported instead of renamed: the Ascend device list takes only IDs.
#include "rules/kinds/env_name.h"

#include "env/model/knowledge_base.h"
#include "env/analysis/translate.h"
#include "rules/analyses/python_analysis.h"
#include "rules/analyses/python_prefilter.h"
#include "rules/analyses/string_literal_site.h"
#include "rules/core/catalog.h"
#include "rules/core/match.h"
#include "rules/core/match_fields.h"

namespace banjia::rules {

namespace {

// The sig index of the bracket enclosing sig index si (within its statement), or kNoIndex.
uint32_t enclosing_open(const PythonAnalysis& a, uint32_t si) {
  const uint32_t stmt = a.view.stmt_of[si];
  const uint32_t first = stmt == python::kNoIndex ? 0 : a.view.statements[stmt].first_sig;
  for (uint32_t k = si; k > first;) {
    --k;
    const char op = a.view.op1[k];
    if ((op == ')' || op == ']' || op == '}') && a.view.match[k] >= 0 && static_cast<uint32_t>(a.view.match[k]) < k)
      k = static_cast<uint32_t>(a.view.match[k]);
    else if (op == '(' || op == '[' || op == '{')
      return k;
  }
  return python::kNoIndex;
}

// Names the file binds to a copy of the environment, assigned at module level or in a function:
// `env = os.environ.copy()`, `env = dict(os.environ)`, `env = {**os.environ, ...}`, `env = copy(os.environ)`.
// Setting a variable in one (`env["X"] = v`) sets it for the process it is passed to.
std::vector<std::string_view> environment_copies(const PythonAnalysis& a) {
  std::vector<std::string_view> names;
  for (const auto& st : a.view.statements) {
    const uint32_t f = st.first_sig;
    if (st.last_sig < f + 3 || !a.sig_is_name(f) || !a.sig_is_op(f + 1, "=")) continue;
    const uint32_t v = f + 2;
    bool copy = false;
    if (a.sig_is_name(v)) {
      uint32_t end = v;  // the chain NAME(.NAME)*
      while (end + 2 <= st.last_sig && a.sig_is_op(end + 1, ".") && a.sig_is_name(end + 2)) end += 2;
      const std::string_view last = a.sig_text(end);
      const bool called = a.sig_is_op(end + 1, "(");
      if (last == "copy" && end >= v + 2 && a.sig_is(end - 2, "environ")) copy = called;  // os.environ.copy()
      else if ((last == "dict" || last == "copy" || last == "deepcopy") && called)  // dict(os.environ), copy.copy(os.environ)
        copy = chain_last_name_after(a, end + 2) == "environ";
    } else if (a.sig_is_op(v, "{") && a.sig_is_op(v + 1, "**")) {
      copy = chain_last_name_after(a, v + 2) == "environ";
    }
    if (copy) names.push_back(a.sig_text(f));
  }
  return names;
}

// The environment, or a copy of it, ends right before sig index si: `os.environ`, `environ`, or a name
// bound to a copy (not an attribute: `self.env` is no copy this file made).
bool environ_before(const PythonAnalysis& a, uint32_t si, const std::vector<std::string_view>& copies) {
  if (si == 0) return false;
  if (a.sig_is(si - 1, "environ")) return true;
  return a.sig_is_name(si - 1) && !a.view.is_attribute(si - 1) &&
         std::find(copies.begin(), copies.end(), a.sig_text(si - 1)) != copies.end();
}

// The call at '(' open_sig is `<environment>.update(`.
bool is_environ_update(const PythonAnalysis& a, uint32_t open_sig, const std::vector<std::string_view>& copies) {
  return open_sig >= 3 && a.sig_is(open_sig - 1, "update") && a.sig_is_op(open_sig - 2, ".") &&
         environ_before(a, open_sig - 2, copies);
}

// `{` at open is a dict of environment variables: the `env=` argument of a call, the argument of
// os.environ.update, or a display that unpacks `**<...>environ`.
bool is_environment_dict(const PythonAnalysis& a, uint32_t open, const std::vector<std::string_view>& copies) {
  if (open >= 3 && a.sig_is_op(open - 1, "=") && a.sig_is(open - 2, "env") &&
      (a.sig_is_op(open - 3, "(") || a.sig_is_op(open - 3, ",")))
    return true;
  if (open >= 1 && a.sig_is_op(open - 1, "(") && is_environ_update(a, open - 1, copies)) return true;
  const int32_t close = a.view.match[open];
  for (uint32_t k = open + 1; close > 0 && k < static_cast<uint32_t>(close); ++k) {
    if (a.view.match[k] > static_cast<int32_t>(k) && a.view.op1[k] != '\0') {
      k = static_cast<uint32_t>(a.view.match[k]);  // skip nested brackets
      continue;
    }
    if (a.sig_is_op(k, "**") && (k == open + 1 || a.sig_is_op(k - 1, ",")) &&
        chain_last_name_after(a, k + 1) == "environ")
      return true;
  }
  return false;
}

// The string literal at sig index si when it is a whole expression (followed by `,`, `)`, `}` or the
// end of its statement); nullopt for anything else.
std::optional<Literal> whole_literal(const PythonAnalysis& a, uint32_t si) {
  if (si >= a.view.sig.size()) return std::nullopt;
  auto lit = literal_at(a, si);
  if (!lit || !lit->complete) return std::nullopt;
  const uint32_t next = lit->last_sig + 1;
  const uint32_t stmt = a.view.stmt_of[lit->last_sig];
  const bool ends_stmt = stmt != python::kNoIndex && a.view.statements[stmt].last_sig == lit->last_sig;
  if (ends_stmt || a.sig_is_op(next, ",") || a.sig_is_op(next, ")") || a.sig_is_op(next, "}")) return lit;
  return std::nullopt;
}

// How a name literal stands, and the literal value it is set to when the code sets it.
struct EnvSite {
  bool is_env = false;
  bool sets = false;              // the code sets the variable here
  std::optional<Literal> value;   // to this literal
};

EnvSite env_site_of_literal(const PythonAnalysis& a, const Literal& lit, const std::vector<std::string_view>& copies) {
  EnvSite s;
  const Position p = position_of(a, lit);
  const uint32_t after = lit.last_sig + 1;
  const bool subscript = p.subscript_of_environ || (lit.first_sig >= 2 && a.sig_is_op(lit.first_sig - 1, "[") &&
                                                    environ_before(a, lit.first_sig - 1, copies) && a.sig_is_op(after, "]"));
  if (subscript) {
    s.is_env = true;
    s.sets = a.sig_is_op(after + 1, "=");  // os.environ["X"] = v
    if (s.sets) s.value = whole_literal(a, after + 2);
    return s;
  }
  if (p.membership_in_environ) return {true, false, std::nullopt};
  if (p.in_call && p.positional_index == 0) {
    const Callee c = callee_of(a, p.open_sig);
    const bool method_of_environ = p.open_sig >= 3 && a.sig_is_op(p.open_sig - 2, ".") && environ_before(a, p.open_sig - 2, copies);
    const bool sets = c.last == "putenv" || (c.last == "setdefault" && method_of_environ);
    s.is_env = c.last == "getenv" || c.last == "unsetenv" || sets ||
               ((c.last == "get" || c.last == "pop") && method_of_environ);
    s.sets = sets;
    if (sets && a.sig_is_op(after, ",")) s.value = whole_literal(a, after + 1);
    return s;
  }
  // A key of an environment dict: `"X": v` directly inside `{`.
  if (!a.sig_is_op(after, ":")) return s;
  const uint32_t open = enclosing_open(a, lit.first_sig);
  if (open == python::kNoIndex || a.view.op1[open] != '{' || !(a.sig_is_op(lit.first_sig - 1, "{") || a.sig_is_op(lit.first_sig - 1, ",")))
    return s;
  if (!is_environment_dict(a, open, copies)) return s;
  s.is_env = s.sets = true;
  s.value = whole_literal(a, after + 1);
  return s;
}

class EnvMatcher {
 public:
  EnvMatcher(const PythonAnalysis& a, const RuleCatalog& rules, const EnvNameTable& env, std::vector<PyMatch>& out)
      : a_(a), env_(env), out_(out) {
    for (const Rule* r : rules.of_kind<EnvNameMatch>()) {
      // The rule with names is the one for variables whose value is a CUDA device list.
      if (!r->params<EnvNameMatch>().names.empty()) hide_all_ = r;
      else (r->params<EnvNameMatch>().equivalent.value_or(false) ? equivalent_ : no_equivalent_) = r;
    }
  }
  bool active() const { return equivalent_ || no_equivalent_; }

  // The variable named at [first_sig, last_sig], spelled `name` starting at byte `offset`.
  void add(std::string_view name, size_t offset, uint32_t first_sig, uint32_t last_sig, bool sets,
           std::optional<Literal> value) {
    const bool hides = hide_all_ && value && hides_every_cuda_device(value->value) && [&] {
      const auto& names = hide_all_->params<EnvNameMatch>().names;
      return std::find(names.begin(), names.end(), name) != names.end();
    }();
    sites_.push_back({name, offset, first_sig, last_sig, sets, hides, value});
  }

  // A name the file sets only to hide every GPU keeps its CUDA spelling everywhere in the file, so
  // that what reads it still reads what was set.
  void report() {
    std::vector<std::string_view> kept, translated;
    for (const Site& s : sites_)
      if (s.sets) (s.hides ? kept : translated).push_back(s.name);
    std::erase_if(kept, [&](std::string_view n) { return std::find(translated.begin(), translated.end(), n) != translated.end(); });
    for (const Site& s : sites_) {
      PyMatch m;
      m.first_tok = a_.view.sig[s.first_sig];
      m.last_tok = a_.view.sig[s.last_sig];
      const env::CudaPair* pair = env_.pair ? env_.pair(s.name) : nullptr;
      if (s.hides) {
        m.rule = hide_all_;
      } else if (std::find(kept.begin(), kept.end(), s.name) != kept.end()) {
        m.rule = hide_all_;
        m.message = "left as " + std::string(s.name) + ": this file sets it only to hide every GPU (not translated)";
      } else if (pair && pair->automatic && equivalent_) {
        m.rule = equivalent_;
        if (equivalent_->fix == FixKind::automatic)
          m.edit = TextEdit{static_cast<uint32_t>(s.offset), static_cast<uint32_t>(s.offset + s.name.size()), pair->ascend};
        m.message = equivalent_->message + ": " + std::string(s.name) + " -> " + pair->ascend;
        if (s.value && equivalent_->fix == FixKind::automatic) value_of(s, *pair);
      } else if (pair && no_equivalent_) {
        // A documented counterpart whose syntax differs: env translate leaves it too, with the pair's note.
        m.rule = no_equivalent_;
        m.message = std::string(s.name) + " was left alone: the Ascend counterpart " + pair->ascend +
                    " needs a manual setting" + (pair->note.empty() ? "" : " (" + pair->note + ")");
        m.source = pair->source;
        m.replacement = pair->ascend;
      } else if (no_equivalent_) {
        m.rule = no_equivalent_;
      } else {
        continue;
      }
      out_.push_back(std::move(m));
    }
  }

  void string_names(const std::vector<std::string_view>& copies) {
    for (uint32_t si : a_.view.string_starts) {
      auto lit = literal_at(a_, si);
      if (!lit) continue;
      si = lit->last_sig;
      if (!lit->complete || !env_.is_cuda_name(lit->value)) continue;
      const EnvSite site = env_site_of_literal(a_, *lit, copies);
      if (site.is_env) add(lit->value, lit->value_offset, lit->first_sig, lit->last_sig, site.sets, site.value);
    }
  }

  // Keywords naming variables: dict(os.environ, X=v) and os.environ.update(X=v) (or a copy's update).
  void keyword_names(const std::vector<std::string_view>& copies) {
    a_.view.for_each_op1('(', [&](uint32_t open) {
      if (open == 0 || !a_.sig_is_name(open - 1)) return;
      const bool update = is_environ_update(a_, open, copies);
      const bool dict = a_.sig_is(open - 1, "dict") && !a_.view.is_attribute(open - 1);
      if (!update && !dict) return;
      const auto args = python::call_arguments(a_.view, open);
      if (dict) {
        const python::CallArg* first = python::find_positional(args, 0);
        if (!first || chain_last_name_after(a_, first->first_sig) != "environ" || !a_.sig_is_name(first->last_sig) ||
            a_.sig_text(first->last_sig) != "environ")
          return;
      }
      for (const auto& arg : args) {
        if (arg.keyword.empty() || !env_.is_cuda_name(arg.keyword)) continue;
        add(arg.keyword, a_.sig_token(arg.keyword_sig).begin, arg.keyword_sig, arg.keyword_sig, true,
            whole_literal(a_, arg.first_sig));
      }
    });
  }

 private:
  struct Site {
    std::string_view name;
    size_t offset;
    uint32_t first_sig, last_sig;
    bool sets, hides;
    std::optional<Literal> value;  // the literal the code sets the variable to
  };

  // The literal value of a renamed variable, as the Ascend one takes it (env/analysis/translate.h, as `env
  // translate` translates it in a shell script): rewritten in place, and what was dropped or left
  // said. A literal with escapes is not rewritten: its text is not its value.
  void value_of(const Site& s, const env::CudaPair& pair) {
    const Literal& lit = *s.value;
    const bool plain = lit.value.find('\\') == std::string_view::npos;
    ValueTranslation t = translate_cuda_value(pair, lit.value, !plain);
    if (!t.value && t.notes.empty()) return;
    PyMatch m;
    m.rule = equivalent_;
    m.first_tok = a_.view.sig[lit.first_sig];
    m.last_tok = a_.view.sig[lit.last_sig];
    std::string said;
    for (const auto& n : t.notes) said += (said.empty() ? "" : "; ") + n.message;
    if (!t.notes.empty()) m.source = t.notes.front().source;
    if (t.value && equivalent_->fix == FixKind::automatic) {
      m.edit = TextEdit{static_cast<uint32_t>(lit.value_offset), static_cast<uint32_t>(lit.value_offset + lit.value.size()), *t.value};
      m.message = "value translated for " + pair.ascend + (said.empty() ? "" : ": " + said);
    } else {
      m.blocked = true;  // reported for a person, as env translate reports it
      m.message = said.empty() ? pair.ascend + " takes this value differently: " + pair.note : said;
    }
    out_.push_back(std::move(m));
  }

  const PythonAnalysis& a_;
  const EnvNameTable& env_;
  std::vector<PyMatch>& out_;
  const Rule* equivalent_ = nullptr;
  const Rule* no_equivalent_ = nullptr;
  const Rule* hide_all_ = nullptr;
  std::vector<Site> sites_;  // in source order
};

}  // namespace

EnvNameMatch EnvNameMatch::parse(const MatchFields& m) { return {m.strings("names"), m.flag("equivalent"), m.strings("prefixes")}; }

void EnvNameMatch::match(const MatchContext& c, std::vector<PyMatch>& out) {
  EnvMatcher m(c.analysis, c.rules, c.env, out);
  if (!m.active()) return;
  const auto copies = environment_copies(c.analysis);
  m.string_names(copies);
  m.keyword_names(copies);
  m.report();
}

void EnvNameMatch::add_needles(const RuleCatalog& rules, PythonNeedles& needles) {
  if (rules.of_kind<EnvNameMatch>().empty()) return;
  for (const auto& p : builtin_env_names().cuda_prefixes) needles.add_string_prefix(p);
  // A variable named by a keyword (dict(os.environ, CUDA_X=...), os.environ.update(CUDA_X=...)) is a
  // Name token, not a string: those calls always name `environ`.
  needles.add_name("environ");
}

}  // namespace banjia::rules
