// `banjia scan PATH...`: inventory of CUDA-specific uses with fix kind and NPU replacement.
#include "scan/command.h"

#include <cstdio>
#include <mutex>
#include <unistd.h>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/fuzzy.h"
#include "common/json_writer.h"
#include "common/report.h"
#include "scan/rule_doc.h"
#include "scan/scan_summary.h"
#include "scan/scanner.h"

namespace banjia::scan {

namespace {

std::string rule_list_text(const rules::RuleCatalog& rules) {
  std::string s;
  for (const auto& r : rules.rules())
    s += fmt::format("{:<28} {:<12} {:<11} {}\n    source: {}\n", r.id, r.category, to_string(r.fix),
                     r.summary.empty() ? r.message : r.summary, r.source);
  return s;
}

void write_rewrite(JsonWriter& w, const rules::Rule& r) {
  if (r.rewrite == rules::RewriteKind::none) {
    w.null();
    return;
  }
  // `from` and `to` are written for every rewrite kind, empty where the kind has none: readers of the
  // list take them as always present.
  const auto* names = std::get_if<rules::NameRewrite>(&r.rewrite_params);
  w.begin_object().field("kind", to_string(r.rewrite));
  w.field("from", names ? names->from : std::string()).field("to", names ? names->to : std::string());
  if (const auto* call = std::get_if<rules::CallRewrite>(&r.rewrite_params)) {
    w.key("names").begin_object();
    for (const auto& [from, to] : call->renames) w.field(from, to);
    w.end_object();
  }
  if (const auto* d = std::get_if<rules::DeviceRewrite>(&r.rewrite_params)) {
    const std::pair<const char*, const std::string*> expressions[] = {
        {"value", &d->value}, {"compare", &d->compare}, {"specific", &d->specific}, {"indexed", &d->indexed}, {"ids", &d->ids}};
    for (const auto& [key, text] : expressions)
      if (!text->empty()) w.field(key, *text);
  }
  w.end_object();
}

void write_rule_text(JsonWriter& w, const rules::Rule& r) {
  w.field("fix", to_string(r.fix)).field("summary", r.summary).field("message", r.message);
  w.field("replacement", r.replacement).field("min_torch_npu", r.min_torch_npu).field("source", r.source);
}

// The catalogue as banjia loaded it, for tools that check what it emits (tests/data): each rule, and
// under "target" its form for every other migration target.
std::string rule_list_json(const rules::RuleCatalog& rules) {
  JsonWriter w;
  w.begin_array();
  for (const auto& r : rules.rules()) {
    w.begin_object().field("id", r.id).field("category", r.category).field("severity", to_string(r.severity));
    write_rule_text(w, r);
    w.key("match").begin_object().field("kind", to_string(r.match)).key("names").begin_array();
    for (const auto& n : r.match.names()) w.value(n);
    w.end_array().end_object().key("rewrite");
    write_rewrite(w, r);
    if (!r.targets.empty()) {
      w.key("target").begin_object();
      for (const auto& [name, form] : r.targets) {
        w.key(name).begin_object();
        write_rule_text(w, *form);
        w.key("rewrite");
        write_rewrite(w, *form);
        w.end_object();
      }
      w.end_object();
    }
    w.end_object();
  }
  w.end_array();
  return w.take() + "\n";
}

// The page of rule `id` (docs/rules/<id>.md is this output, written by tools/gen_rule_docs.py).
std::string explain_rule(std::string_view id) {
  const auto& rules = rules::RuleCatalog::builtin();
  if (const rules::Rule* r = rules.find(id)) return scan::rule_doc_markdown(*r);
  std::vector<std::string> ids;
  for (const auto& r : rules.rules()) ids.push_back(r.id);
  throw InputError(std::string(id), no_such("rule", id, ids));
}

}  // namespace

int run_scan(const ScanVerbOptions& args, const OutputOptions& out) {
  if (!args.explain.empty()) {
    out.write(explain_rule(args.explain));
    return kExitOk;
  }
  if (args.list_rules) {
    const auto& rules = rules::RuleCatalog::builtin();
    out.write(out.format == "json" ? rule_list_json(rules) : rule_list_text(rules));
    return kExitOk;
  }
  scan::ScanOptions opts;
  opts.exclude_globs = args.exclude;
  opts.select = args.select;
  opts.ignore = args.ignore;
  opts.threads = args.threads;
  std::mutex progress_mutex;
  bool tty = ::isatty(2) != 0;
  if (tty) {
    opts.progress = [&](size_t done, size_t total) {
      if (total < 200 || (done % 50 != 0 && done != total)) return;
      std::lock_guard lock(progress_mutex);
      std::fprintf(stderr, "\rscanning %zu/%zu files%s", done, total, done == total ? "\r\x1b[K" : "");
    };
  }
  // The rule catalogue is not loaded here: the first file a worker scans loads it, while the walk
  // is still finding files (parsing it first would be a few serial milliseconds of every scan).
  scan::ScanResult result = scan::scan_paths(args.paths, opts);
  scan::ScanSummary summary = scan::summarise(result);
  const auto& rules = rules::RuleCatalog::builtin();

  Report report;
  report.command = "scan";
  report.files_scanned = static_cast<int>(summary.files.total());
  report.findings = std::move(result.findings);
  for (const auto& r : rules.rules())
    report.rules.push_back({r.id, r.summary, r.source, scan::rule_doc_uri(r.id).value_or(""),
                            scan::rule_doc_text(r), scan::rule_doc_markdown(r)});
  report.summary_json = [&](JsonWriter& w) { scan::summary_json(w, summary); };
  report.summary_text = scan::summary_text(summary, "banjia scan");
  return out.emit(report);
}

}  // namespace banjia::scan
