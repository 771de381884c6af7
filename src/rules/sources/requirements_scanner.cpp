#include "rules/sources/requirements_scanner.h"

#include <cctype>
#include <fmt/format.h>


#include "common/errors.h"
#include "common/line_index.h"
#include "common/toml_document.h"
#include "rules/core/finding_factory.h"
#include "rules/kinds/requirement.h"

namespace banjia::rules {

namespace {

std::string normalise(std::string_view name) {
  std::string out;
  for (char c : name) {
    char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.push_back(l == '_' || l == '.' ? '-' : l);
  }
  return out;
}

bool is_cuda_index(std::string_view url) {
  // PyTorch's CUDA wheel indexes end in /whl/cuNNN.
  size_t p = url.find("/whl/cu");
  return p != std::string_view::npos && p + 7 < url.size() && std::isdigit(static_cast<unsigned char>(url[p + 7]));
}

// Parses "name[extras] op version ; marker" starting at `offset` in the file.
std::optional<Requirement> parse_spec(std::string_view spec, size_t offset) {
  size_t b = 0;
  while (b < spec.size() && std::isspace(static_cast<unsigned char>(spec[b]))) ++b;
  size_t e = b;
  while (e < spec.size() && (std::isalnum(static_cast<unsigned char>(spec[e])) || spec[e] == '-' ||
                             spec[e] == '_' || spec[e] == '.'))
    ++e;
  if (e == b) return std::nullopt;
  Requirement r;
  r.name = normalise(spec.substr(b, e - b));
  r.spec = std::string(spec.substr(b));
  while (!r.spec.empty() && std::isspace(static_cast<unsigned char>(r.spec.back()))) r.spec.pop_back();
  r.offset = offset + b;
  // torch==2.1.0+cu121: a CUDA local version label.
  std::string_view rest = spec.substr(e);
  size_t plus = rest.find("+cu");
  r.torch_cuda_build = (r.name == "torch" || r.name == "torchvision" || r.name == "torchaudio") &&
                       plus != std::string_view::npos && plus + 3 < rest.size() &&
                       std::isdigit(static_cast<unsigned char>(rest[plus + 3]));
  return r;
}

}  // namespace

std::vector<Requirement> parse_requirements_txt(std::string_view text) {
  std::vector<Requirement> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    // Strip comments (" #" or a line starting with '#') and environment markers.
    size_t hash = line.find('#');
    if (hash != std::string_view::npos && (hash == 0 || std::isspace(static_cast<unsigned char>(line[hash - 1]))))
      line = line.substr(0, hash);
    std::string_view trimmed = line;
    while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.front()))) trimmed.remove_prefix(1);
    if (trimmed.starts_with("--index-url") || trimmed.starts_with("--extra-index-url") ||
        trimmed.starts_with("-i ") || trimmed.starts_with("-f ") || trimmed.starts_with("--find-links")) {
      if (is_cuda_index(trimmed))
        out.push_back({"--index-url", std::string(trimmed), pos + static_cast<size_t>(trimmed.data() - line.data()), true});
    } else if (!trimmed.empty() && trimmed.front() != '-') {
      size_t semi = line.find(';');
      if (auto r = parse_spec(line.substr(0, semi), pos)) out.push_back(std::move(*r));
    }
    if (nl == text.size()) break;
    pos = nl + 1;
  }
  return out;
}

std::vector<Requirement> parse_setup_py_requirements(std::string_view text) {
  std::vector<Requirement> out;
  for (std::string_view key : {"install_requires", "extras_require", "setup_requires"}) {
    for (size_t k = text.find(key); k != std::string_view::npos; k = text.find(key, k + key.size())) {
      size_t open = text.find_first_of("[{", k);
      size_t eq = text.find('=', k);
      if (open == std::string_view::npos || eq == std::string_view::npos || eq > open) continue;
      char close_ch = text[open] == '[' ? ']' : '}';
      int depth = 0;
      for (size_t i = open; i < text.size(); ++i) {
        char c = text[i];
        if (c == '[' || c == '{' || c == '(') ++depth;
        else if (c == ']' || c == '}' || c == ')') {
          if (--depth == 0 && c == close_ch) break;
        } else if (c == '"' || c == '\'') {
          size_t e = text.find(c, i + 1);
          if (e == std::string_view::npos) break;
          // In extras_require dicts, keys are strings followed by ':'; skip them.
          size_t after = text.find_first_not_of(" \t\r\n", e + 1);
          if (!(close_ch == '}' && after != std::string_view::npos && text[after] == ':')) {
            std::string_view lit = text.substr(i + 1, e - i - 1);
            size_t semi = lit.find(';');
            if (auto r = parse_spec(lit.substr(0, semi), i + 1)) out.push_back(std::move(*r));
          }
          i = e;
        }
      }
    }
  }
  return out;
}

std::vector<Requirement> parse_pyproject_requirements(std::string_view text, const std::string& file) {
  toml::table doc = parse_toml(text, file);
  std::vector<Requirement> out;
  auto add = [&](const toml::node& n) {
    if (auto s = n.value<std::string>()) {
      size_t off = n.source().begin.line > 0 ? 0 : 0;
      // toml++ gives line/column; convert back to an offset in the text.
      size_t line = n.source().begin.line, col = n.source().begin.column;
      size_t pos = 0;
      for (size_t l = 1; l < line && pos != std::string_view::npos; ++l) {
        pos = text.find('\n', pos);
        if (pos != std::string_view::npos) ++pos;
      }
      if (pos != std::string_view::npos) off = pos + (col > 0 ? col : 1);  // +1 skips the quote
      size_t semi = s->find(';');
      if (auto r = parse_spec(std::string_view(*s).substr(0, semi), off)) out.push_back(std::move(*r));
    }
  };
  if (auto* deps = doc["project"]["dependencies"].as_array())
    for (const auto& n : *deps) add(n);
  if (auto* opt = doc["project"]["optional-dependencies"].as_table())
    for (const auto& [k, v] : *opt)
      if (auto* arr = v.as_array())
        for (const auto& n : *arr) add(n);
  if (auto* poetry = doc["tool"]["poetry"]["dependencies"].as_table()) {
    for (const auto& [k, v] : *poetry) {
      Requirement r{normalise(k.str()), std::string(k.str()), 0, false};
      size_t line = k.source().begin.line, pos = 0;
      for (size_t l = 1; l < line && pos != std::string_view::npos; ++l) {
        pos = text.find('\n', pos);
        if (pos != std::string_view::npos) ++pos;
      }
      r.offset = pos == std::string_view::npos ? 0 : pos + k.source().begin.column - 1;
      if (r.name != "python") out.push_back(std::move(r));
      (void)v;
    }
  }
  return out;
}

void scan_dependency_file(std::string_view text, DependencyFile kind, const std::string& display,
                          const RuleCatalog& rules, std::vector<Finding>& out) {
  std::vector<Requirement> reqs;
  switch (kind) {
    case DependencyFile::requirements_txt: reqs = parse_requirements_txt(text); break;
    case DependencyFile::setup_py: reqs = parse_setup_py_requirements(text); break;
    case DependencyFile::pyproject_toml: reqs = parse_pyproject_requirements(text, display); break;
    case DependencyFile::none: return;
  }
  LineIndex lines(text);
  const auto& rule_list = rules.of_kind<RequirementMatch>();
  for (const auto& req : reqs) {
    for (const Rule* r : rule_list) {
      const RequirementMatch& m = r->params<RequirementMatch>();
      bool hit = false;
      if (m.torch_cuda_build) hit = req.torch_cuda_build;
      else if (req.name != "--index-url") {
        for (const auto& p : m.packages) hit = hit || normalise(p) == req.name;
        for (const auto& p : m.prefixes) hit = hit || req.name.starts_with(normalise(p));
      }
      if (!hit) continue;
      size_t len = req.spec.size();
      Finding f = make_finding(*r, display, lines, req.offset, req.offset + len);
      f.message = fmt::format("`{}`: {}", req.spec, r->message);
      out.push_back(std::move(f));
      break;
    }
  }
}

}  // namespace banjia::rules
