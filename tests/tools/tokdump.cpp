// banjia_tokdump: test/benchmark helper for the Python front-end.
//   banjia_tokdump [--mode py311|py312] [--all] FILE...      one JSON line per file (tokens)
//   banjia_tokdump --stats [--mode ...] FILE...               throughput of decode+tokenize+view+imports
//   --files-from PATH  reads more file names (one per line; "-" = stdin).
// Token rows are [type, string, start_line, start_col, end_line, end_col] as tokenize.TokenInfo;
// Whitespace trivia is left out unless --all.
#include <chrono>
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

std::string dump_file(const std::string& path, FStringMode mode, bool all) {
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
  w.key("tokens").begin_array();
  for (const Token& t : ts.tokens) {
    if (t.kind == TokenKind::Whitespace && !all) continue;
    w.begin_array().value(token_kind_name(t.kind)).value(t.text(src.text)).value(t.line).value(t.col)
        .value(t.end_line).value(t.end_col).end_array();
  }
  w.end_array().end_object();
  return w.take();
}

int stats(const std::vector<std::string>& files, FStringMode mode) {
  std::vector<std::string> texts;
  size_t bytes = 0;
  for (const auto& f : files) {
    texts.push_back(read_file(f));
    bytes += texts.back().size();
  }
  using clock = std::chrono::steady_clock;
  size_t tokens = 0, refs = 0, errors = 0;
  double tok_s = 0, all_s = 0;
  for (const auto& bytes_in : texts) {
    auto t0 = clock::now();
    SourceFile src;
    try {
      src = decode_source(bytes_in, "<file>");
    } catch (const InputError&) {
      ++errors;
      continue;
    }
    TokenStream ts = tokenize(src.text, mode);
    auto t1 = clock::now();
    ModuleView view = build_view(src.text, ts);
    ImportTable imports = collect_imports(view);
    refs += resolve_dotted_names(view, imports).size();
    auto t2 = clock::now();
    tokens += ts.tokens.size();
    errors += ts.error.has_value();
    tok_s += std::chrono::duration<double>(t1 - t0).count();
    all_s += std::chrono::duration<double>(t2 - t0).count();
  }
  double mb = bytes / 1e6;
  fmt::print("{{\"files\": {}, \"bytes\": {}, \"tokens\": {}, \"dotted_refs\": {}, \"files_with_errors\": {}, "
             "\"decode_tokenize_s\": {:.4f}, \"tokenize_mb_per_s\": {:.1f}, \"with_view_imports_names_s\": {:.4f}, "
             "\"front_end_mb_per_s\": {:.1f}}}\n",
             files.size(), bytes, tokens, refs, errors, tok_s, mb / tok_s, all_s, mb / all_s);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  FStringMode mode = FStringMode::py312;
  bool all = false, want_stats = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--mode" && i + 1 < argc) {
      mode = std::string(argv[++i]) == "py311" ? FStringMode::py311 : FStringMode::py312;
    } else if (a == "--all") {
      all = true;
    } else if (a == "--stats") {
      want_stats = true;
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
    if (want_stats) return stats(files, mode);
    for (const auto& f : files) {
      std::string line = dump_file(f, mode, all);
      line.push_back('\n');
      std::fwrite(line.data(), 1, line.size(), stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "banjia_tokdump: %s\n", e.what());
    return 2;
  }
  return 0;
}
