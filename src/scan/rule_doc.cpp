#include "scan/rule_doc.h"

#include <algorithm>

#include <fmt/format.h>

#include "rules/core/source_files.h"

namespace banjia::scan {

namespace {

size_t longest_backtick_run(std::string_view text) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

// The example text verbatim inside a fence longer than any backtick run in it, so no example can
// close the block early.
void code_block(std::string& out, std::string_view text, std::string_view language) {
  const std::string fence(std::max<size_t>(3, longest_backtick_run(text) + 1), '`');
  out += fence + std::string(language) + "\n";
  out += text;
  if (!text.ends_with('\n')) out += '\n';
  out += fence + "\n";
}

std::string code_span(std::string_view text) {
  const std::string ticks(longest_backtick_run(text) + 1, '`');
  const bool pad = text.starts_with('`') || text.ends_with('`');
  return ticks + (pad ? " " : "") + std::string(text) + (pad ? " " : "") + ticks;
}

// Sources are plain text naming files such as torch_npu/npu/__init__.py: Markdown must not read
// their underscores and asterisks as emphasis.
std::string escape_markdown(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::string_view("\\`*_[]<>|#").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

// The fence language of an example, from the kind of file it is.
std::string_view fence_language(std::string_view file) {
  switch (rules::classify_file(file)) {
    case rules::FileKind::python: return "python";
    case rules::FileKind::shell: return "sh";
    case rules::FileKind::cuda_source: return "cpp";
    case rules::FileKind::dependency_list: return file.ends_with(".toml") ? "toml" : "text";
    case rules::FileKind::config:
      return file.ends_with(".toml") ? "toml" : file.ends_with(".json") ? "json" : "yaml";
    case rules::FileKind::other: break;
  }
  return "text";
}

std::string_view one_line(const rules::Rule& r) { return r.summary.empty() ? r.message : r.summary; }

void examples_section(std::string& out, const rules::Rule& r, std::string_view heading) {
  if (r.examples.empty()) return;
  out += fmt::format("{} Examples\n\n", heading);
  for (const auto& x : r.examples) {
    // The default file, example.py, goes unsaid: most rules read Python.
    const std::string in = x.file == rules::RuleExample{}.file ? "" : fmt::format(" in `{}`", x.file);
    out += fmt::format("{}{}:\n\n", x.none ? "Not reported" : "Reported", in);
    code_block(out, x.before, fence_language(x.file));
    if (x.after) {
      out += "\n`banjia migrate` writes:\n\n";
      code_block(out, *x.after, fence_language(x.file));
    }
    if (!x.program.empty()) {
      out += "\nread by this program:\n\n";
      code_block(out, x.program, "python");
    }
    if (x.run || !x.program.empty())
      out += "\nThe tests run it under `python -m banjia.npu_sim`: the original stops at its first CUDA use, the "
             "migrated program runs on the simulated NPU.\n";
    out += "\n";
  }
  const bool placeholder = std::any_of(r.examples.begin(), r.examples.end(), [](const rules::RuleExample& x) {
    return x.after && x.after->find("{device_type}") != std::string::npos;
  });
  if (placeholder)
    out += "`{device_type}` stands for the target's device type expression (the `device-string` rule's "
           "replacement), as migrate writes it.\n\n";
}

// What one migration target does with the rule; `heading` is the Markdown level of its sections.
void form_sections(std::string& out, const rules::Rule& r, std::string_view heading) {
  out += fmt::format("{} Message\n\n{}\n\n", heading, r.message);
  out += fmt::format("{} Replacement\n\n", heading);
  out += r.replacement ? code_span(*r.replacement) + "\n\n" : "None.\n\n";
  if (r.rewrite != rules::RewriteKind::none)
    out += fmt::format("`banjia migrate` rewrites each finding ({} rewrite).\n\n", code_span(to_string(r.rewrite)));
  if (!r.caution.empty())
    out += fmt::format("{} Caution\n\nMigrate shows this with each change: {}\n\n", heading, r.caution);
  examples_section(out, r, heading);
  out += fmt::format("{} Source\n\n{}\n\n", heading, escape_markdown(r.source));
}

void properties_table(std::string& out, const rules::Rule& r, bool with_category) {
  out += "| | |\n|---|---|\n";
  if (with_category) out += fmt::format("| Category | `{}` |\n", r.category);
  out += fmt::format("| Fix | `{}` |\n| Severity | `{}` |\n", to_string(r.fix), to_string(r.severity));
  if (with_category && !r.data_file.empty()) out += fmt::format("| Defined in | `{}` |\n", r.data_file);
  out += "\n";
}

}  // namespace

std::string rule_doc_markdown(const rules::Rule& r) {
  std::string out = fmt::format("# {}\n\n{}\n\n", r.id, one_line(r));
  properties_table(out, r, true);
  form_sections(out, r, "##");
  if (r.targets.empty()) {
    out += "## Migration targets\n\nThe rule is the same for every migration target (`--target npu`, "
           "`--target accelerator`).\n";
    return out;
  }
  for (const auto& [name, form] : r.targets) {
    out += fmt::format("## Target `{}`\n\nWith `banjia migrate --target {}` (and `scan` findings for it):\n\n", name, name);
    properties_table(out, *form, false);
    form_sections(out, *form, "###");
  }
  while (out.ends_with("\n\n")) out.pop_back();
  return out;
}

std::string rule_doc_text(const rules::Rule& r) {
  std::string out = fmt::format("{}\n\n{}\n", one_line(r), r.message);
  if (r.replacement) out += fmt::format("Replacement: {}\n", *r.replacement);
  if (!r.caution.empty()) out += fmt::format("Caution: {}\n", r.caution);
  out += fmt::format("Source: {}\n", r.source);
  for (const auto& [name, form] : r.targets) {
    out += fmt::format("\nTarget {}: {}\n", name, form->message);
    if (form->replacement) out += fmt::format("Replacement: {}\n", *form->replacement);
  }
  return out;
}

}  // namespace banjia::scan
