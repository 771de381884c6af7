// Environment files: the shell lexer, shell/.env/Dockerfile assignment parsing and translate.
// Properties: every byte range (words, references, comments, edits) lies inside the text;
// translating is idempotent; the translated text holds the same assignments in the same order, each
// CUDA name that has an automatic Ascend counterpart renamed to it (a rename that cut a name short,
// or an edit that moved a line into or out of an instruction, shows here even when a second
// translate would change nothing); and the same $NAME references in the same order, renamed the same
// way (a reference read short is not renamed).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "env/readers/env_file.h"
#include "env/model/knowledge_base.h"
#include "env/readers/shell_lexer.h"
#include "env/analysis/translate.h"
#include "fuzz_check.h"

using namespace banjia;

namespace {
// The names a translation should leave: each CUDA name with an automatic counterpart renamed.
std::string renamed(const std::string& name, bool translated) {
  const env::CudaPair* pair = translated ? env::knowledge_base().cuda_pair(name) : nullptr;
  return pair && pair->automatic ? pair->ascend : name;
}

// Assignment names, then reference names (after a separator), in file order. Translation keeps the
// CUDA spelling of what it leaves untranslated (names_kept_untranslated: the force-CPU idiom, a
// setting its Ascend counterpart contradicts).
std::vector<std::string> names_of(std::string_view text, env::EnvFileKind kind, bool translated) {
  const env::ParsedEnvFile parsed = env::parse_env_file(text, kind);
  const std::vector<std::string> kept = translated ? names_kept_untranslated(parsed) : std::vector<std::string>{};
  auto is_kept = [&](const std::string& n) { return std::find(kept.begin(), kept.end(), n) != kept.end(); };
  std::vector<std::string> names;
  for (const auto& a : parsed.assignments) names.push_back(renamed(a.name, translated && !keeps_cuda_name(a, kept)));
  names.emplace_back("$");
  for (const auto& r : parsed.references) names.push_back(renamed(r.name, translated && !is_kept(r.name)));
  return names;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  env::ShellLexResult lex = env::lex_shell(text);
  for (const auto& c : lex.commands)
    for (const auto& w : c.words) FUZZ_CHECK(w.begin <= w.end && w.end <= size, "word range inside text");
  for (const auto& r : lex.references) FUZZ_CHECK(r.begin <= r.end && r.end <= size, "reference inside text");
  for (const auto& [b, e] : lex.comments) FUZZ_CHECK(b <= e && e <= size, "comment inside text");

  env::LineIndex lines(text);
  for (env::EnvFileKind kind : {env::EnvFileKind::shell, env::EnvFileKind::dotenv, env::EnvFileKind::dockerfile}) {
    env::ParsedEnvFile parsed = env::parse_env_file(text, kind);
    for (const auto& a : parsed.assignments) {
      FUZZ_CHECK(a.name_begin <= a.name_end && a.name_end <= size, "name range inside text");
      FUZZ_CHECK(a.value_begin <= a.value_end && a.value_end <= size, "value range inside text");
      (void)lines.locate(a.name_begin);
    }
    for (const auto& [b, e] : parsed.comments) FUZZ_CHECK(b <= e && e <= size, "comment range inside text");
    std::vector<ShellEdit> edits;
    std::vector<Finding> notes;
    std::string once = translate_env_file(text, kind, edits, &notes);
    for (const auto& e : edits) FUZZ_CHECK(e.begin <= e.end && e.end <= size, "edit range inside text");
    std::vector<ShellEdit> edits2;
    std::string twice = translate_env_file(once, kind, edits2, nullptr);
    FUZZ_CHECK(twice == once, "translate is idempotent");
    FUZZ_CHECK(names_of(once, kind, false) == names_of(text, kind, true), "translate renames and keeps every assignment and reference");
  }
  return 0;
}
