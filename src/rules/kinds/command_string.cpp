// Match kind "command-string" (command_string.h).
#include "rules/kinds/command_string.h"

#include <algorithm>

#include "rules/analyses/python_analysis.h"
#include "rules/analyses/python_prefilter.h"
#include "rules/analyses/string_literal_site.h"
#include "rules/core/catalog.h"
#include "rules/core/match.h"
#include "rules/core/match_fields.h"

namespace banjia::rules {

namespace {

// The program a command line literal starts with: its text up to the first blank. An f-string's
// leading text names the program only when a blank ends it there (f"nvidia-smi -i {i}").
std::string_view program_of(const Literal& lit) {
  const size_t blank = lit.value.find_first_of(" \t");
  if (blank == std::string_view::npos) return lit.complete ? lit.value : std::string_view();
  return lit.value.substr(0, blank);
}

// The '(' of the call whose first argument the literal is, as the whole argument (`run("cmd")`,
// `run(args="cmd")`) or as the first item of a list or tuple that is (`run(["cmd", "-L"])`);
// kNoIndex otherwise.
uint32_t command_call_open(const PythonAnalysis& a, const Literal& lit) {
  const Position p = position_of(a, lit);
  if (p.in_call && (p.positional_index == 0 || p.keyword == "args")) return p.open_sig;
  const uint32_t first = lit.first_sig;
  if (first < 2 || !(a.sig_is_op(first - 1, "[") || a.sig_is_op(first - 1, "("))) return python::kNoIndex;
  const uint32_t display = first - 1;
  const int32_t close = a.view.match[display];
  if (close < 0 || !(a.sig_is_op(lit.last_sig + 1, ",") || lit.last_sig + 1 == static_cast<uint32_t>(close)))
    return python::kNoIndex;
  const uint32_t open = display - 1;  // the call's '(' right before the display
  const uint32_t after = static_cast<uint32_t>(close) + 1;
  if (!a.sig_is_op(open, "(") || open == 0 || !a.sig_is_name(open - 1)) return python::kNoIndex;
  if (!(a.sig_is_op(after, ",") || a.sig_is_op(after, ")"))) return python::kNoIndex;
  return open;
}

}  // namespace

CommandStringMatch CommandStringMatch::parse(const MatchFields& m) { return {m.strings("names"), m.strings("commands")}; }

void CommandStringMatch::add_needles(const RuleCatalog& rules, PythonNeedles& needles) {
  // The literal's text starts with the program.
  for (const Rule* r : rules.of_kind<CommandStringMatch>())
    for (const auto& command : r->params<CommandStringMatch>().commands) needles.add_string_prefix(command);
}

void CommandStringMatch::match(const MatchContext& c, std::vector<PyMatch>& out) {
  const auto& command_rules = c.rules.of_kind<CommandStringMatch>();
  if (command_rules.empty()) return;
  const PythonAnalysis& a = c.analysis;
  for (uint32_t si : a.view.string_starts) {
    const auto lit = literal_at(a, si);
    if (!lit) continue;
    const std::string_view program = program_of(*lit);
    if (program.empty()) continue;
    for (const Rule* r : command_rules) {
      const auto& commands = r->params<CommandStringMatch>().commands;
      if (std::find(commands.begin(), commands.end(), program) == commands.end()) continue;
      const uint32_t open = command_call_open(a, *lit);
      if (open == python::kNoIndex) continue;
      const std::string_view callee = callee_of(a, open).qualified;
      const auto& callables = r->params<CommandStringMatch>().names;
      if (std::find(callables.begin(), callables.end(), callee) == callables.end()) continue;
      PyMatch m;
      m.rule = r;
      m.first_tok = a.view.sig[lit->first_sig];
      m.last_tok = a.view.sig[lit->last_sig];
      out.push_back(std::move(m));
    }
  }
}

}  // namespace banjia::rules
