// banjia_tokdump: test/benchmark helper for the Python front-end.
//   banjia_tokdump [--mode py311|py312] [--all] [--no-tokens] FILE...  one JSON line per file
//   banjia_tokdump --stats [--rounds N] [--mode ...] FILE...  CPU time per front-end stage (best of N)
//   --files-from PATH  reads more file names (one per line; "-" = stdin).
// Token rows are [type, string, start_line, start_col, end_line, end_col] as tokenize.TokenInfo;
// Whitespace trivia is left out unless --all.
#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/json_writer.h"
#include "python/module.h"
#include "python/source.h"
#include "python/tokenizer.h"

using namespace banjia;
using namespace banjia::python;

namespace {

std::string dump_file(const std::string& path, FStringMode mode, bool all, bool with_tokens) {
  JsonWriter w(false);
  w.begin_object().field("file", path);
  SourceFile src;
  try {
    src = decode_source(read_file(path), path);
  } catch (const InputError& e) {
    w.field("error", std::string(e.what())).end_object();
    return w.take();
  }
  TokenStream ts = tokenize(src.text, mode);
  std::string joined;
  joined.reserve(src.text.size());
  for (const Token& t : ts.tokens) joined.append(t.text(src.text));
  w.field("encoding", src.encoding).field("lossless", joined == src.text);
  w.key("tokenize_error");
  if (ts.error) {
    w.begin_object().field("line", ts.error->line).field("col", ts.error->col)
        .field("message", ts.error->message).end_object();
  } else {
    w.null();
  }
  if (!with_tokens) {
    w.field("token_count", static_cast<uint64_t>(ts.tokens.size())).end_object();
    return w.take();
  }
  w.key("tokens").begin_array();
  for (const Token& t : ts.tokens) {
    if (t.kind == TokenKind::Whitespace && !all) continue;
    const TokenPosition end = token_end(t, src.text);
    w.begin_array().value(token_kind_name(t.kind)).value(t.text(src.text)).value(t.line).value(t.col)
        .value(end.line).value(end.col).end_array();
  }
  w.end_array().end_object();
  return w.take();
}

// Thread CPU time, not wall time: the build machines are shared and wall time is mostly waiting.
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Per-stage CPU time over all files (best of `rounds`), as a scanner thread would run them:
// one TokenStream and ModuleView reused across files.
int stats(const std::vector<std::string>& files, FStringMode mode, int rounds) {
  std::vector<std::string> raw;
  size_t bytes = 0;
  for (const auto& f : files) {
    raw.push_back(read_file(f));
    bytes += raw.back().size();
  }
  double best[4] = {1e9, 1e9, 1e9, 1e9};
  size_t tokens = 0, refs = 0, errors = 0, call_args = 0;
  TokenStream ts;
  ModuleView view;
  for (int r = 0; r < rounds; ++r) {
    double t[4] = {0, 0, 0, 0};
    tokens = refs = errors = call_args = 0;
    for (const auto& bytes_in : raw) {
      double t0 = cpu_seconds();
      SourceFile src;
      try {
        src = decode_source(bytes_in, "<file>");
      } catch (const InputError&) {
        ++errors;
        continue;
      }
      double t1 = cpu_seconds();
      tokenize(src.text, mode, ts);
      double t2 = cpu_seconds();
      build_view(src.text, ts, view);
      double t3 = cpu_seconds();  // then imports, dotted names and the arguments of resolved calls
      ImportTable imports = collect_imports(view);
      for (const DottedRef& r : resolve_dotted_names(view, imports).refs) {
        ++refs;
        if (r.is_call) call_args += call_arguments(view, r.call_open_sig).size();
      }
      double t4 = cpu_seconds();
      t[0] += t1 - t0, t[1] += t2 - t1, t[2] += t3 - t2, t[3] += t4 - t3;
      tokens += ts.tokens.size();
      errors += ts.error.has_value();
    }
    for (int k = 0; k < 4; ++k) best[k] = std::min(best[k], t[k]);
  }
  double mb = static_cast<double>(bytes) / 1e6, total = best[0] + best[1] + best[2] + best[3];
  fmt::print("{{\"files\": {}, \"bytes\": {}, \"tokens\": {}, \"dotted_refs\": {}, \"call_args\": {}, \"files_with_errors\": {}, "
             "\"cpu_s\": {{\"decode\": {:.4f}, \"tokenize\": {:.4f}, \"view\": {:.4f}, \"imports_names\": {:.4f}, "
             "\"total\": {:.4f}}}, \"tokenize_mb_per_s\": {:.1f}, \"front_end_mb_per_s\": {:.1f}}}\n",
             files.size(), bytes, tokens, refs, call_args, errors, best[0], best[1], best[2], best[3], total, mb / best[1],
             mb / total);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  FStringMode mode = FStringMode::py312;
  bool all = false, want_stats = false, with_tokens = true;
  int rounds = 3;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--mode" && i + 1 < argc) {
      mode = std::string(argv[++i]) == "py311" ? FStringMode::py311 : FStringMode::py312;
    } else if (a == "--all") {
      all = true;
    } else if (a == "--no-tokens") {
      with_tokens = false;
    } else if (a == "--stats") {
      want_stats = true;
    } else if (a == "--rounds" && i + 1 < argc) {
      rounds = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--files-from" && i + 1 < argc) {
      std::string p = argv[++i];
      std::ifstream in_file;
      if (p != "-") in_file.open(p);
      std::istream& in = p == "-" ? std::cin : in_file;
      for (std::string line; std::getline(in, line);)
        if (!line.empty()) files.push_back(line);
    } else {
      files.push_back(a);
    }
  }
  try {
    if (want_stats) return stats(files, mode, rounds);
    for (const auto& f : files) {
      std::string line = dump_file(f, mode, all, with_tokens);
      line.push_back('\n');
      std::fwrite(line.data(), 1, line.size(), stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "banjia_tokdump: %s\n", e.what());
    return 2;
  }
  return 0;
}
