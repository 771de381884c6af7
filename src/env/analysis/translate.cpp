#include "env/analysis/translate.h"

#include <algorithm>
#include <iterator>
#include <set>

#include <fmt/format.h>

#include "env/model/env_finding.h"
#include "env/model/knowledge_base.h"
#include "env/readers/shell_lexer.h"

namespace banjia {
namespace {

using env::knowledge_base;

// The Ascend variable of `pair` is a device list and `a` sets the CUDA one to a value that hides
// every GPU (the force-CPU idiom): not a list of device IDs, so there is nothing to translate.
const env::VarInfo* hides_every_device(const env::Assignment& a, const env::CudaPair& pair) {
  return a.has_value && !a.unresolved ? ascend_list_hidden_by(pair, a.value) : nullptr;
}

bool file_wide(const env::Assignment& a) { return a.has_value && !a.scoped; }

class Translator {
 public:
  Translator(std::string_view text, env::EnvFileKind kind, std::vector<ShellEdit>& edits,
             std::vector<Finding>* notes, const TranslateOptions& options)
      : text_(text), kind_(kind), index_(text), edits_(edits), notes_(notes), options_(options) {}

  void edit(size_t begin, size_t end, std::string after, const env::CudaPair& pair) {
    ShellEdit e;
    e.begin = begin;
    e.end = end;
    e.before = std::string(text_.substr(begin, end - begin));
    e.after = std::move(after);
    std::tie(e.line, e.column) = index_.locate(begin);
    e.rule = "env-cuda-name";
    e.source = pair.source;
    edits_.push_back(std::move(e));
  }

  void note(size_t offset, std::string_view rule, Severity sev, std::string message, std::string suggestion,
            std::string source) {
    if (!notes_) return;
    auto [line, col] = index_.locate(offset);
    notes_->push_back(env::make_finding(env::Site{"", line, col}, rule, sev, std::move(message), std::move(suggestion),
                                        std::move(source)));
  }

  // The value at [begin, end) rewritten so that it reads back as `value`. The original quoting is
  // kept where it still holds the new value; otherwise the value is written plain when every byte is
  // safe unquoted, else single-quoted. Copying the old quotes blindly changes meanings: a '$' that
  // `a'...$X'` keeps literal becomes an expansion once the 'a' option is dropped (docs/fuzzing.md,
  // requote-literal-dollar).
  // An unquoted value that becomes empty right before more text is written as "" (`NAME=(` would start
  // an array assignment). So is an emptied value of a Dockerfile `ENV NAME value` (no '='): `ENV NAME`
  // alone is no assignment, and Docker rejects it.
  std::string requote(size_t begin, size_t end, const std::string& value) const {
    std::string_view raw = text_.substr(begin, end - begin);
    const char q = raw.empty() ? '\0' : raw.front();
    const bool one_quoted_word = raw.size() >= 2 && (q == '"' || q == '\'') && raw.back() == q &&
                                 raw.find(q, 1) == raw.size() - 1;
    if (one_quoted_word && q == '\'' && value.find('\'') == std::string::npos) return '\'' + value + '\'';
    if (one_quoted_word && q == '"' && value.find_first_of("\"\\$`") == std::string::npos) return '"' + value + '"';
    if (!one_quoted_word && std::all_of(value.begin(), value.end(), is_plain_value_byte)) {
      // Emptied and followed by more text (`(`, or a .env value's tail after its closing quote): that
      // text would become the value, or start an array (docs/fuzzing.md, dotenv-emptied-value-before-tail).
      if (value.empty() && end < text_.size() && std::string_view(" \t\r\n").find(text_[end]) == std::string_view::npos)
        return "\"\"";
      if (value.empty() && kind_ == env::EnvFileKind::dockerfile && begin > 0 && text_[begin - 1] != '=') return "\"\"";
      return value;
    }
    return quote_value(value);
  }

  static bool is_plain_value_byte(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_,.:/=+-@%").find(c) != std::string_view::npos;
  }

  // `value` as one quoted word of this file kind.
  std::string quote_value(const std::string& value) const {
    if (value.find('\'') == std::string::npos) return '\'' + value + '\'';
    std::string out;
    if (kind_ == env::EnvFileKind::dotenv) {  // .env single quotes cannot hold a quote: "..." with escapes
      out = "\"";
      for (char c : value) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
      }
      return out + '"';
    }
    out = "'";  // POSIX shell and Dockerfile: close, escaped quote, reopen
    for (char c : value) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + '\'';
  }

  // The value of `a` as its Ascend counterpart takes it (translate_cuda_value), edited in place with
  // its notes.
  void ascend_value(const env::Assignment& a, const env::CudaPair& pair) {
    if (!a.has_value) return;
    ValueTranslation t = translate_cuda_value(pair, a.value, a.unresolved, options_);
    for (auto& n : t.notes)
      note(a.value_begin, n.rule, n.severity, std::move(n.message), std::move(n.suggestion), std::move(n.source));
    if (t.value) edit(a.value_begin, a.value_end, requote(a.value_begin, a.value_end, *t.value), pair);
  }

  bool is_kept_name(std::string_view name) const {
    return std::find(kept_names_.begin(), kept_names_.end(), name) != kept_names_.end();
  }

  void keep_hiding_assignment(const env::Assignment& a, const env::CudaPair& pair, const env::VarInfo& var) {
    kept_.emplace_back(a.name_begin, a.name_end);
    note(a.name_begin, "env-cuda-name", Severity::warning,
         fmt::format("{}=\"{}\" hides every GPU so that the program runs on the CPU; {} takes only a comma list of "
                     "ascending device IDs, so this was not translated", a.name, a.value, pair.ascend),
         std::string(kForceCpuAdvice), var.source);
  }

  // The file sets the Ascend variable itself to another value: renamed, this assignment would
  // contradict it, so it keeps its CUDA name and the conflict is reported (nothing the user wrote is lost).
  void keep_contradicting_assignment(const env::Assignment& a, const env::CudaPair& pair,
                                     const env::Assignment& ascend) {
    kept_.emplace_back(a.name_begin, a.name_end);
    note(a.name_begin, "env-cuda-ascend-conflict", Severity::warning,
         fmt::format("{}={} was not translated: line {} sets {}={}, and renamed the two settings would contradict "
                     "each other", a.name, a.value, ascend.line, pair.ascend, ascend.value),
         fmt::format("keep one of the two settings; torch_npu reads only {}", pair.ascend),
         knowledge_base().rule("env-cuda-ascend-conflict").source);
  }

  void run(const env::ParsedEnvFile& parsed) {
    const auto& kb = knowledge_base();
    for (const auto& p : parsed.problems)
      note(p.offset, "env-parse-error", Severity::warning, "cannot parse: " + p.message,
           "variables inside this construct were not translated", kb.rule("env-parse-error").source);
    const AscendConflicts conflicts(parsed);
    kept_names_ = names_kept_untranslated(parsed, conflicts);
    for (const auto& a : parsed.assignments) {
      const env::CudaPair* pair = kb.cuda_pair(a.name);
      if (pair && pair->automatic && keeps_cuda_name(a, kept_names_)) {
        const env::Assignment* ascend = conflicts.contradicting(a, *pair);
        if (const env::VarInfo* var = hides_every_device(a, *pair)) keep_hiding_assignment(a, *pair, *var);
        else if (ascend) keep_contradicting_assignment(a, *pair, *ascend);
        else kept_.emplace_back(a.name_begin, a.name_end);
      } else if (pair && pair->automatic) {
        edit(a.name_begin, a.name_end, pair->ascend, *pair);
        ascend_value(a, *pair);
      } else if (pair) {
        note(a.name_begin, "env-cuda-name", Severity::warning,
             fmt::format("{} was left alone: the Ascend counterpart {} needs a manual setting", a.name, pair->ascend),
             pair->note, pair->source);
      } else if (a.kind != env::AssignKind::unset && kb.looks_cuda(a.name)) {
        note(a.name_begin, "env-cuda-no-equivalent", Severity::info,
             fmt::format("{} was left alone: no documented Ascend equivalent", a.name),
             "it has no effect on Ascend", kb.cuda_prefixes_source);
      }
    }
    for (const auto& [begin, end] : parsed.heredoc_bodies) {
      std::string_view body = text_.substr(begin, end - begin);
      for (const auto& pair : kb.cuda) {
        size_t at = body.find(pair.name);
        if (pair.automatic && at != std::string_view::npos)
          note(begin + at, "env-cuda-name", Severity::info,
               fmt::format("{} inside a here-document was left alone (its text is data, not commands)", pair.name),
               fmt::format("if it is a generated script, rename it to {} by hand", pair.ascend), pair.source);
      }
    }
    for (const auto& r : parsed.references) {
      const env::CudaPair* pair = kb.cuda_pair(r.name);
      if (pair && pair->automatic && is_kept_name(r.name)) kept_.emplace_back(r.begin, r.end);
      else if (pair && pair->automatic) edit(r.begin, r.end, pair->ascend, *pair);
    }
    note_names_left(parsed);
  }

  // Every other whole-word use of a CUDA name that has an Ascend counterpart, outside what is renamed,
  // comments and the here-documents noted above: `printenv NAME`, `[[ -v NAME ]]`, `sudo NAME=1 cmd`,
  // a string in an inline Python line. banjia cannot tell whether these name the variable, so it says
  // where they are rather than leaving them silently.
  void note_names_left(const env::ParsedEnvFile& parsed) {
    auto handled = [&](size_t at) {
      for (const auto& e : edits_)
        if (e.begin <= at && at < e.end) return true;
      for (const auto& [begin, end] : kept_)
        if (begin <= at && at < end) return true;
      for (const auto* ranges : {&parsed.heredoc_bodies, &parsed.comments})
        for (const auto& [begin, end] : *ranges)
          if (begin <= at && at < end) return true;
      return false;
    };
    for (const auto& pair : knowledge_base().cuda) {
      if (!pair.automatic) continue;
      for (size_t at = text_.find(pair.name); at != std::string_view::npos; at = text_.find(pair.name, at + 1)) {
        const size_t end = at + pair.name.size();
        if ((at > 0 && env::is_shell_name_char(text_[at - 1])) ||
            (end < text_.size() && env::is_shell_name_char(text_[end])) || handled(at))
          continue;
        note(at, "env-cuda-name", Severity::info,
             fmt::format("{} was left alone here: not an assignment, unset or $ reference", pair.name),
             fmt::format("if it names the variable, rename it to {} by hand", pair.ascend), pair.source);
      }
    }
  }

  std::string apply() {
    std::sort(edits_.begin(), edits_.end(), [](const ShellEdit& x, const ShellEdit& y) { return x.begin < y.begin; });
    std::vector<ShellEdit> kept;
    for (auto& e : edits_)
      if (kept.empty() || e.begin >= kept.back().end) kept.push_back(std::move(e));
    edits_ = std::move(kept);
    std::string out;
    size_t pos = 0;
    for (const auto& e : edits_) {
      out.append(text_.substr(pos, e.begin - pos));
      out.append(e.after);
      pos = e.end;
    }
    out.append(text_.substr(pos));
    return out;
  }

 private:
  std::string_view text_;
  env::EnvFileKind kind_;
  env::LineIndex index_;
  std::vector<ShellEdit>& edits_;
  std::vector<Finding>* notes_;
  const TranslateOptions& options_;
  std::vector<std::string> kept_names_;                 // see names_kept_untranslated
  std::vector<std::pair<size_t, size_t>> kept_;         // names deliberately left, not to note again
};

}  // namespace

std::string translate_env_file(std::string_view text, env::EnvFileKind kind, std::vector<ShellEdit>& edits,
                               std::vector<Finding>* notes, const TranslateOptions& options) {
  edits.clear();
  Translator t(text, kind, edits, notes, options);
  t.run(env::parse_env_file(text, kind));
  return t.apply();
}

std::string translate_shell_env(std::string_view text, std::vector<ShellEdit>& edits, std::vector<Finding>* notes,
                                const TranslateOptions& options) {
  return translate_env_file(text, env::EnvFileKind::shell, edits, notes, options);
}

std::string cuda_value_in_ascend_terms(const env::CudaPair& pair, std::string_view value) {
  for (const auto& [from, to] : pair.value_map)
    if (value == from) return to;
  return std::string(value);
}


AscendConflicts::AscendConflicts(const env::ParsedEnvFile& parsed) {
  for (const auto& a : parsed.assignments) {
    if (!file_wide(a)) continue;
    if (seen_values_.emplace(a.name, a.value).second) ascend_values_[a.name].push_back(&a);
  }
  for (const auto& a : parsed.assignments) {
    const env::CudaPair* pair = knowledge_base().cuda_pair(a.name);
    if (!pair || by_cuda_name_.contains(a.name)) continue;
    if (const env::Assignment* ascend = contradicting(a, *pair)) by_cuda_name_.emplace(a.name, ascend);
  }
}

const env::Assignment* AscendConflicts::contradicting(const env::Assignment& cuda, const env::CudaPair& pair) const {
  if (!file_wide(cuda) || hides_every_device(cuda, pair)) return nullptr;
  auto it = ascend_values_.find(pair.ascend);
  if (it == ascend_values_.end()) return nullptr;
  const std::string wanted = cuda.unresolved ? cuda.value : cuda_value_in_ascend_terms(pair, cuda.value);
  for (const env::Assignment* ascend : it->second)
    if (ascend->value != wanted) return ascend;
  return nullptr;
}

const env::Assignment* AscendConflicts::of_pair(const env::CudaPair& pair) const {
  auto it = by_cuda_name_.find(pair.name);
  return it == by_cuda_name_.end() ? nullptr : it->second;
}

// A name the file sets only to hide every device, or whose Ascend counterpart the file sets to another
// value, keeps its CUDA spelling everywhere in the file (`export NAME`, `unset NAME`, `$NAME`), so the
// file keeps meaning one variable.
std::vector<std::string> names_kept_untranslated(const env::ParsedEnvFile& parsed) {
  return names_kept_untranslated(parsed, AscendConflicts(parsed));
}

std::vector<std::string> names_kept_untranslated(const env::ParsedEnvFile& parsed, const AscendConflicts& conflicts) {
  std::set<std::string, std::less<>> kept, translated;
  for (const auto& a : parsed.assignments) {
    const env::CudaPair* pair = knowledge_base().cuda_pair(a.name);
    if (!pair || !pair->automatic || !a.has_value) continue;
    const bool keep = hides_every_device(a, *pair) || conflicts.of_pair(*pair);
    (keep ? kept : translated).insert(a.name);
  }
  std::vector<std::string> out;
  std::set_difference(kept.begin(), kept.end(), translated.begin(), translated.end(), std::back_inserter(out));
  return out;
}

bool keeps_cuda_name(const env::Assignment& a, const std::vector<std::string>& kept_names) {
  const env::CudaPair* pair = knowledge_base().cuda_pair(a.name);
  if (!pair || !pair->automatic) return false;
  if (hides_every_device(a, *pair)) return true;
  return std::find(kept_names.begin(), kept_names.end(), a.name) != kept_names.end();
}

const env::VarInfo* ascend_list_hidden_by(const env::CudaPair& pair, std::string_view value) {
  const env::VarInfo* var = knowledge_base().var(pair.ascend);
  return var && var->type == "device_list" && hides_every_cuda_device(value) ? var : nullptr;
}

bool hides_every_cuda_device(std::string_view value) {
  if (value.starts_with("GPU-") || value.starts_with("MIG-")) return false;
  std::string_view first = value.substr(0, value.find(','));
  const size_t lead = first.find_first_not_of(" \t\n\r\f\v");
  first = lead == std::string_view::npos ? std::string_view() : first.substr(lead);
  const bool negative = first.starts_with('-');
  if (negative || first.starts_with('+')) first.remove_prefix(1);
  size_t digits = 0;
  while (digits < first.size() && first[digits] >= '0' && first[digits] <= '9') ++digits;
  if (digits == 0) return true;  // no ID before the first invalid character
  return negative && first.substr(0, digits).find_first_not_of('0') != std::string_view::npos;  // -N, N > 0
}

std::optional<std::string> ascend_equivalent(std::string_view cuda_name) {
  const env::CudaPair* pair = env::cuda_name_pairs().cuda_pair(cuda_name);
  if (pair && pair->automatic) return pair->ascend;
  return std::nullopt;
}

}  // namespace banjia
