#include "rules/analyses/tree_flow.h"

#include <memory>
#include <optional>

#include "common/errors.h"
#include "common/file_io.h"
#include "rules/analyses/device_flow.h"
#include "rules/analyses/local_functions.h"
#include "rules/core/source_files.h"

namespace banjia::rules {

void add_tree_questions(const std::vector<DeviceValue>& values, const std::vector<bool>& unresolved, TreeQuestions& out) {
  for (size_t i = 0; i < values.size(); ++i) {
    const DeviceValue& d = values[i];
    if (!unresolved[i] || !d.cuda) continue;
    if (d.role == ValueRole::producer && d.module_level && !d.key.empty()) out.constants.push_back({d.key, d.kind});
    if (!d.call_target.empty()) out.calls.push_back({d.call_target, d.call_position, d.kind});
  }
}

namespace {

// The dotted names a file can be imported as: pkg/sub/mod.py -> pkg.sub.mod, sub.mod, mod
// (which one depends on sys.path; any of them may be what an import says); pkg/__init__.py -> pkg.
std::vector<std::string> module_names(const std::string& relative) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= relative.size(); ++i)
    if (i == relative.size() || relative[i] == '/') {
      std::string part = relative.substr(start, i - start);
      if (!part.empty() && part != ".") parts.push_back(std::move(part));
      start = i + 1;
    }
  if (parts.empty()) return {};
  std::string& last = parts.back();
  if (last.size() > 3 && last.ends_with(".py")) last.resize(last.size() - 3);
  if (last == "__init__") parts.pop_back();
  std::vector<std::string> out;
  for (size_t from = 0; from < parts.size(); ++from) {
    std::string name;
    for (size_t k = from; k < parts.size(); ++k) name += (k > from ? "." : "") + parts[k];
    if (!name.empty()) out.push_back(name);
  }
  return out;
}

// A relative import's target (".utils.setup" in pkg/train.py) as an absolute dotted name.
std::string absolute_target(std::string_view target, const std::string& importer_relative) {
  size_t dots = 0;
  while (dots < target.size() && target[dots] == '.') ++dots;
  if (dots == 0) return std::string(target);
  std::vector<std::string> pkg;
  size_t start = 0;
  for (size_t i = 0; i < importer_relative.size(); ++i)
    if (importer_relative[i] == '/') {
      std::string part = importer_relative.substr(start, i - start);
      if (!part.empty() && part != ".") pkg.push_back(std::move(part));
      start = i + 1;
    }
  for (size_t up = 1; up < dots && !pkg.empty(); ++up) pkg.pop_back();
  std::string out;
  for (const auto& p : pkg) out += p + ".";
  return out + std::string(target.substr(dots));
}

// One file of the tree, read and analysed at most once, with what the answers need from it.
struct Loaded {
  std::string bytes;
  bool readable = true;
  std::unique_ptr<PythonAnalysis> analysis;
  DeviceNames held;
  std::optional<LocalFunctions> functions;
};

class Tree {
 public:
  explicit Tree(const std::vector<TreeFile>& files) : files_(files), loaded_(files.size()) {
    for (size_t i = 0; i < files.size(); ++i)
      for (auto& m : module_names(files[i].relative)) modules_[m].push_back(i);
  }
  // The files a dotted module name may refer to.
  const std::vector<size_t>& files_of(const std::string& module) const {
    static const std::vector<size_t> none;
    auto it = modules_.find(module);
    return it == modules_.end() ? none : it->second;
  }
  // The file's bytes ("" when it cannot be read).
  const std::string& bytes(size_t i) {
    if (!loaded_[i]) {
      loaded_[i] = std::make_unique<Loaded>();
      try {
        loaded_[i]->bytes = read_file(files_[i].path, kMaxSourceFileBytes);
      } catch (const InputError&) {
        loaded_[i]->readable = false;
      }
    }
    return loaded_[i]->bytes;
  }
  // The file analysed, or nullptr when it cannot be read or parsed.
  const Loaded* load(size_t i) {
    bytes(i);
    Loaded& l = *loaded_[i];
    if (l.readable && !l.analysis) {
      try {
        l.analysis = analyse_python(l.bytes, files_[i].relative);
        l.held = device_names_of(*l.analysis, find_device_values(*l.analysis));
        l.functions.emplace(*l.analysis);
      } catch (const InputError&) {
        l.readable = false;
        l.analysis.reset();
      }
    }
    return l.analysis ? &l : nullptr;
  }
  const std::string& relative(size_t i) const { return files_[i].relative; }
  size_t size() const { return files_.size(); }

 private:
  const std::vector<TreeFile>& files_;
  std::vector<std::unique_ptr<Loaded>> loaded_;
  std::unordered_map<std::string, std::vector<size_t>> modules_;
};

const std::unordered_set<std::string>& held_names(const Loaded& l, ValueKind k) {
  return k == ValueKind::device ? l.held.device : l.held.backend;
}

// Does file g import `name` from one of `modules` and use it as a `kind` value?
bool importer_uses_as(Tree& tree, size_t g, const std::vector<std::string>& modules, const std::string& name, ValueKind kind) {
  if (tree.bytes(g).find(name) == std::string::npos) return false;
  const Loaded* l = tree.load(g);
  if (!l) return false;
  for (const auto& b : l->analysis->imports.bindings) {
    std::string target = absolute_target(b.target, tree.relative(g));
    for (const auto& m : modules) {
      if (b.is_from && target == m + "." + name && held_names(*l, kind).count(b.local)) return true;
      if (!b.is_from && target == m && held_names(*l, kind).count(name)) return true;  // m.name
    }
  }
  return false;
}

}  // namespace

std::unordered_map<size_t, FlowSeeds> answer_tree_questions(const std::vector<TreeFile>& files,
                                                            const std::vector<TreeQuestions>& questions) {
  std::unordered_map<size_t, FlowSeeds> seeds;
  Tree tree(files);
  for (size_t f = 0; f < questions.size() && f < files.size(); ++f) {
    const TreeQuestions& q = questions[f];
    if (q.empty()) continue;
    std::vector<std::string> modules = module_names(files[f].relative);
    for (const auto& c : q.constants)
      for (size_t g = 0; g < tree.size(); ++g)
        if (g != f && importer_uses_as(tree, g, modules, c.name, c.kind)) {
          seeds[f].names(c.kind).insert(c.name);
          break;
        }
    for (const auto& call : q.calls) {
      std::string target = absolute_target(call.target, files[f].relative);
      size_t dot = target.rfind('.');
      if (dot == std::string::npos) continue;
      for (size_t d : tree.files_of(target.substr(0, dot))) {
        const Loaded* l = tree.load(d);
        if (!l || d == f) continue;
        std::string_view param = l->functions->parameter(target.substr(dot + 1), call.position, false);
        if (param.empty() || !held_names(*l, call.kind).count(std::string(param))) continue;
        FlowSeeds& s = seeds[f];
        s.call_parameters[call.target + "@" + std::to_string(call.position)] = std::string(param);
        s.names(call.kind).insert(std::string(param));
        break;
      }
    }
  }
  return seeds;
}

}  // namespace banjia::rules
