#include "migrate/python_rewriter.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <tuple>

#include "common/errors.h"
#include "migrate/import_insertion.h"
#include "python/source.h"
#include "rules/kinds/gpu_path.h"
#include "rules/core/source_files.h"
#include "rules/sources/python_scanner.h"

namespace banjia::migrate {

namespace {

// In the order they apply: an insertion (`import torch_npu`, a note) at the offset where a
// replacement starts goes first.
std::vector<rules::TextEdit> in_text_order(std::vector<rules::TextEdit> edits) {
  std::stable_sort(edits.begin(), edits.end(),
                   [](const auto& x, const auto& y) { return std::tie(x.begin, x.end) < std::tie(y.begin, y.end); });
  return edits;
}

// `edits` in text order.
std::string apply_edits(std::string_view text, const std::vector<rules::TextEdit>& edits) {
  std::string out;
  out.reserve(text.size() + 64);
  uint32_t pos = 0;
  for (const auto& e : edits) {
    out.append(text.substr(pos, e.begin - pos));
    out += e.text;
    pos = e.end;
  }
  out.append(text.substr(pos));
  return out;
}

// The edited file in its declared (non-UTF-8) encoding, keeping the original bytes of everything not
// edited. `text` is the decoded file and `edits` (text order) apply to it. Each unedited stretch and
// each replaced stretch of the text is encoded on its own; together they must give back exactly the
// original bytes, which holds for stateless encodings (latin-1, cp1252, gbk, ...). Then the edits'
// texts, encoded, take the replaced stretches' places. nullopt when that does not hold (a stateful
// encoding such as utf-7 or iso-2022-jp, whose bytes depend on what precedes them) or an edit's text
// has no representation in the encoding.
std::optional<std::string> encode_edited(std::string_view original, std::string_view text,
                                         const std::vector<rules::TextEdit>& edits, const python::SourceFile& source) {
  python::SourceEncoder encoder(source);
  if (!encoder.ok()) return std::nullopt;
  std::string out;
  out.reserve(original.size() + 64);
  size_t byte_pos = 0;
  // Encodes text[from, to), which must be the next original bytes; false when it is not.
  auto keep = [&](size_t from, size_t to, bool copy) {
    auto enc = encoder.encode(text.substr(from, to - from));
    if (!enc || original.substr(byte_pos, enc->size()) != *enc) return false;
    if (copy) out.append(*enc);
    byte_pos += enc->size();
    return true;
  };
  size_t pos = 0;
  for (const auto& e : edits) {
    if (!keep(pos, e.begin, true) || !keep(e.begin, e.end, false)) return std::nullopt;
    auto inserted = encoder.encode(e.text);
    if (!inserted) return std::nullopt;
    out.append(*inserted);
    pos = e.end;
  }
  if (!keep(pos, text.size(), true) || byte_pos != original.size()) return std::nullopt;
  return out;
}

// Drops edits that overlap an earlier one (two rules touching the same bytes): the first wins.
std::vector<rules::TextEdit> non_overlapping(std::vector<rules::TextEdit> edits) {
  std::stable_sort(edits.begin(), edits.end(), [](const auto& x, const auto& y) { return x.begin < y.begin; });
  std::vector<rules::TextEdit> out;
  for (auto& e : edits) {
    if (!out.empty() && e.begin < out.back().end) continue;
    out.push_back(std::move(e));
  }
  return out;
}

// The closing insertion and the inserted keywords of each applied edit that has them; where one would
// fall inside another edit, the opening edit is dropped too (never half a pair of parentheses, never
// half a call).
void add_closing_edits(const std::vector<rules::PyMatch>& matches, std::vector<rules::TextEdit>& edits) {
  std::vector<rules::TextEdit> closings;
  for (const auto& m : matches) {
    if (!m.edit || (!m.closing_edit && m.inserts.empty())) continue;
    auto opening = std::find_if(edits.begin(), edits.end(), [&](const auto& e) {
      return e.begin == m.edit->begin && e.end == m.edit->end && e.text == m.edit->text;
    });
    if (opening == edits.end()) continue;
    std::vector<rules::TextEdit> with = m.inserts;
    if (m.closing_edit) with.push_back(*m.closing_edit);
    const bool inside = std::any_of(with.begin(), with.end(), [&](const auto& w) {
      return std::any_of(edits.begin(), edits.end(), [&](const auto& e) { return e.begin < w.begin && w.begin < e.end; });
    });
    if (inside) edits.erase(opening);
    else closings.insert(closings.end(), with.begin(), with.end());
  }
  edits.insert(edits.end(), closings.begin(), closings.end());
}

// The consecutive `# banjia: ...` comment lines that end right before `offset` (a line start), joined.
std::string annotation_block_above(std::string_view text, size_t offset) {
  std::string block;
  size_t end = offset;
  while (end > 0) {
    size_t line_end = end - (text.substr(0, end).ends_with("\r\n") ? 2 : 1);
    size_t start = text.substr(0, line_end).find_last_of("\r\n");
    start = start == std::string_view::npos ? 0 : start + 1;
    std::string_view line = text.substr(start, line_end - start);
    size_t code = line.find_first_not_of(" \t");
    if (code == std::string_view::npos || !line.substr(code).starts_with("# banjia: ")) break;
    block.append(line).push_back('\n');
    end = start;
  }
  return block;
}

// `text` with the numbers after "line"/"lines" taken out: a note names lines of the file, which move
// by the notes inserted above them, so a second run compares notes without them.
std::string without_line_numbers(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const bool after_line = out.ends_with("line ") || out.ends_with("lines ") || out.ends_with(", ");
    if (after_line && std::isdigit(static_cast<unsigned char>(text[i]))) {
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
      out += '#';
      continue;
    }
    out += text[i++];
  }
  return out;
}

// `# banjia: [rule] message` lines above statements left for manual work (once per line).
std::vector<rules::TextEdit> annotations(const rules::PythonAnalysis& a, const std::vector<Finding>& leftovers,
                                        const std::vector<rules::PyMatch>& matches) {
  std::vector<rules::TextEdit> out;
  const std::string nl = line_ending_of(a.text());
  // Group the leftover messages by the statement they belong to.
  std::vector<std::pair<uint32_t, std::vector<std::string>>> by_offset;
  for (size_t i = 0; i < matches.size(); ++i) {
    const auto& m = matches[i];
    if (leftovers.empty() || (m.rule->fix != FixKind::manual && m.rule->fix != FixKind::unsupported && !m.blocked))
      continue;
    // Find the statement that contains this match.
    uint32_t tok = m.first_tok;
    uint32_t line_begin = a.tokens.tokens[tok].begin;
    for (const auto& st : a.view.statements) {
      if (a.view.sig[st.first_sig] <= tok && tok <= a.view.sig[st.last_sig]) {
        line_begin = a.sig_token(st.first_sig).begin;
        break;
      }
    }
    line_begin = first_line_of_logical_line(a, line_begin);
    std::string note = "[" + m.rule->id + "] " + (m.message.empty() ? m.rule->message : m.message);
    auto it = std::find_if(by_offset.begin(), by_offset.end(), [&](const auto& p) { return p.first == line_begin; });
    if (it == by_offset.end()) by_offset.push_back({line_begin, {note}});
    else if (std::find(it->second.begin(), it->second.end(), note) == it->second.end()) it->second.push_back(note);
  }
  for (const auto& [offset, notes] : by_offset) {
    // Idempotent: a note already written in the `# banjia:` lines right above is not written again
    // (a first run may have joined it with notes a second run does not find, once its rewrites
    // change what an alias means: docs/fuzzing.md, joined-annotation-subset).
    const std::string above = without_line_numbers(annotation_block_above(a.text(), offset));
    std::string joined;
    for (const auto& n : notes)
      if (above.find(without_line_numbers(n)) == std::string::npos) joined += (joined.empty() ? "" : "; ") + n;
    if (joined.empty()) continue;
    std::string_view rest = a.text().substr(offset);
    size_t indent_len = rest.find_first_not_of(" \t");
    std::string indent(rest.substr(0, indent_len == std::string_view::npos ? 0 : indent_len));
    out.push_back({offset, offset, indent + "# banjia: " + joined + nl});
  }
  return out;
}

}  // namespace

namespace {

FileRewrite rewrite_pass(std::string_view bytes, const std::string& display, const rules::RuleCatalog& rules,
                         const RewriteOptions& options, const rules::FlowSeeds* seeds, const rules::FileDirectory* directory) {
  FileRewrite fr;
  fr.display = display;
  fr.original = std::string(bytes);
  fr.rewritten = fr.original;
  std::unique_ptr<rules::PythonAnalysis> a;
  try {
    a = rules::analyse_python(bytes, display);
  } catch (const InputError& e) {
    fr.leftovers.push_back(rules::input_error_finding(display, e.problem() + "; copied unchanged"));
    return fr;
  }
  rules::TreeContext tree{seeds, &fr.questions, directory};
  auto matches = rules::match_python(*a, rules, &tree);
  // The accelerator target writes `torch.accelerator...`: in a file where `torch` names something
  // else (`from torch.cuda.amp import torch`) that text would mean something else, so it stays.
  const auto torch_binding = a->imports.resolve("torch");
  const bool torch_rebound = options.target != rules::kTargetNpu && torch_binding && *torch_binding != "torch";
  std::vector<rules::TextEdit> edits;
  // Whether an edit other than an import redirected to a shim was made: the shims import torch_npu
  // themselves where they use it, so a file whose only change is such a redirect needs no import.
  bool device_edits = false;
  for (const auto& m : matches) {
    Finding f = rules::finding_for_match(*a, m, display);
    if (m.rule->match.is<rules::GpuPathMatch>()) {
      fr.gpu_paths.push_back(std::move(f));
      continue;
    }
    if (torch_rebound && m.edit && m.edit->text.find("torch.") != std::string::npos) {
      f.fix = FixKind::manual;
      f.replacement.reset();
      f.message += fmt::format("; not rewritten: `torch` in this file is {}, not the torch module", *torch_binding);
      fr.leftovers.push_back(std::move(f));
      continue;
    }
    if (m.edit && !m.blocked && m.rule->fix == FixKind::automatic) {
      edits.push_back(*m.edit);
      if (m.rule->rewrite == rules::RewriteKind::redirect_import) {
        const std::string& shim = m.rule->rewrite_as<rules::NameRewrite>().to;
        if (std::find(fr.shims.begin(), fr.shims.end(), shim) == fr.shims.end()) fr.shims.push_back(shim);
      } else {
        device_edits = true;
      }
      Change c;
      c.file = display;
      c.line = f.line;
      c.column = f.column;
      c.rule = m.rule->id;
      c.before = std::string(a->text().substr(a->tokens.tokens[m.first_tok].begin,
                                              a->tokens.tokens[m.last_tok].end - a->tokens.tokens[m.first_tok].begin));
      c.after = f.replacement.value_or("");
      c.caution = m.rule->caution;
      fr.changes.push_back(std::move(c));
    } else if (!(m.rule->fix == FixKind::automatic && !m.blocked)) {
      fr.leftovers.push_back(std::move(f));
    }
    // An automatic match without an edit (reached through a rewritten import alias) needs nothing.
  }
  edits = non_overlapping(std::move(edits));
  add_closing_edits(matches, edits);
  std::vector<rules::TextEdit> all = edits;
  // torch_npu registers torch.npu when imported; the accelerator target's code needs torch itself
  // (torch_npu then loads through torch's `torch.backends` entry point: docs/scan-migrate.md).
  const bool npu = options.target == rules::kTargetNpu;
  const std::string module = npu ? "torch_npu" : "torch";
  const bool writes_torch = std::any_of(edits.begin(), edits.end(), [](const auto& e) { return e.text.find("torch.") != std::string::npos; });
  if (options.insert_import && device_edits && (npu ? !imports_torch_npu(*a) : writes_torch && needs_module_import(*a, module))) {
    rules::TextEdit ins = module_import_edit(*a, edits, module);
    all.push_back(ins);
    Change c;
    c.file = display;
    c.rule = npu ? "import-torch-npu" : "import-torch";
    c.before = "";
    c.after = "import " + module;
    // Line of the insertion point.
    c.line = 1 + static_cast<int>(std::count(a->text().begin(), a->text().begin() + ins.begin, '\n'));
    c.column = 1;
    fr.changes.push_back(std::move(c));
  }
  if (options.annotate) {
    auto notes = annotations(*a, fr.leftovers, matches);
    all.insert(all.end(), notes.begin(), notes.end());
  }
  if (all.empty()) return fr;
  all = in_text_order(std::move(all));
  std::string text = apply_edits(a->text(), all);
  // The result must still tokenize and declare the same encoding (an inserted comment on line 1 or 2
  // could read as a PEP 263 cookie; fuzz_rewrite found one with lone-CR line ends); otherwise keep the
  // original (never write broken code).
  if (python::tokenize(text).error || python::find_coding_cookie(text) != python::find_coding_cookie(a->text())) {
    fr.leftovers.push_back(rules::input_error_finding(display, "rewrite would not tokenize (or would change the encoding cookie); file left unchanged"));
    fr.changes.clear();
    fr.shims.clear();
    return fr;
  }
  if (a->source.encoding != "utf-8") {
    // Edits apply to the decoded text; they are written back in the file's own encoding. Where that
    // cannot keep every other byte (fuzz_rewrite once found UTF-8 written under a utf-7 cookie),
    // neither rewrites nor --annotate comments touch the file.
    auto encoded = encode_edited(bytes, a->text(), all, a->source);
    if (!encoded) {
      fr.leftovers.push_back(rules::input_error_finding(
          display, "source encoding is " + a->source.encoding +
                       ", which cannot be edited in place here (a stateful encoding, or an edit it cannot represent): not "
                       "rewritten (convert it to UTF-8 first)"));
      fr.changes.clear();
      fr.shims.clear();
      return fr;
    }
    text = std::move(*encoded);
  }
  fr.rewritten = (a->source.had_bom ? std::string("\xEF\xBB\xBF") : std::string()) + text;
  std::stable_sort(fr.changes.begin(), fr.changes.end(),
                   [](const Change& x, const Change& y) { return std::tie(x.line, x.column) < std::tie(y.line, y.column); });
  return fr;
}

}  // namespace

FileRewrite rewrite_python(std::string_view bytes, const std::string& display, const rules::RuleCatalog& rules,
                           const RewriteOptions& options, const rules::FlowSeeds* seeds, const rules::FileDirectory* directory) {
  FileRewrite fr = rewrite_pass(bytes, display, rules, options, seeds, directory);
  // An inserted `import torch` binds a name the file left unbound, and names spelled through it
  // (torch.cuda.synchronize) resolve only now: a second pass rewrites them, so that migrating the
  // output again changes nothing. Its report lines are those of the file after the first pass.
  const bool imported_torch = std::any_of(fr.changes.begin(), fr.changes.end(), [](const Change& c) { return c.rule == "import-torch"; });
  if (!imported_torch) return fr;
  FileRewrite again = rewrite_pass(fr.rewritten, display, rules, options, seeds, directory);
  if (!again.changed()) return fr;
  for (auto& shim : again.shims)
    if (std::find(fr.shims.begin(), fr.shims.end(), shim) == fr.shims.end()) fr.shims.push_back(std::move(shim));
  fr.rewritten = std::move(again.rewritten);
  fr.changes.insert(fr.changes.end(), again.changes.begin(), again.changes.end());
  fr.leftovers = std::move(again.leftovers);
  fr.gpu_paths = std::move(again.gpu_paths);
  fr.questions = std::move(again.questions);
  return fr;
}

}  // namespace banjia::migrate
