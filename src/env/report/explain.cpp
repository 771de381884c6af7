#include "env/report/explain.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/fuzzy.h"
#include "common/json_writer.h"
#include "env/model/knowledge_base.h"

namespace banjia::env {
namespace {

struct Entry {  // one thing the knowledge base knows, flattened for display
  std::string name, kind;
  std::vector<std::pair<std::string, std::string>> fields;  // label, text (empty texts are skipped)
  std::string source;
};

std::string join(const std::vector<std::string>& v) { return fmt::format("{}", fmt::join(v, ", ")); }

Entry describe(const VarInfo& v) {
  Entry e{v.name, "variable", {}, v.source};
  std::string values = join(v.values);
  if (v.min || v.max)
    values = fmt::format("[{}, {}]", v.min ? std::to_string(*v.min) : "", v.max ? std::to_string(*v.max) : "");
  if (v.multiple_of) values += fmt::format(", multiple of {}", *v.multiple_of);
  std::string invalid;
  if (v.invalid == InvalidPolicy::error)
    invalid = "makes " + v.fails + (v.invalid_message.empty() ? "" : ": \"" + v.invalid_message + "\"");
  if (v.invalid == InvalidPolicy::normalised) invalid = "silently replaced by " + v.normalised_to;
  if (v.strtol) invalid = "parsed with strtol: non-numeric text such as 'true' reads as 0";
  e.fields = {{"component", v.component},
              {"class", std::string(to_string(v.cls))},
              {"type", v.type},
              {"values", values},
              {"default", v.default_value},
              {"effect", v.effect},
              {"impact", v.impact},
              {"invalid", invalid},
              {"debug values", join(v.debug_values)},
              {"debug cost", v.cost},
              {"replacement", v.replacement},
              {"use instead", v.api},
              {"versions", v.versions}};
  return e;
}

Entry describe(const AllocOption& o) {
  Entry e{o.name, "PYTORCH_NPU_ALLOC_CONF option", {}, o.source};
  std::string range;
  if (o.min) range += fmt::format(">= {} ", *o.min);
  if (o.gt) range += fmt::format("> {} ", *o.gt);
  if (o.max) range += fmt::format("<= {} ", *o.max);
  if (o.lt) range += fmt::format("< {} ", *o.lt);
  e.fields = {{"type", o.type},
              {"values", o.values.empty() ? range : join(o.values)},
              {"default", o.default_value},
              {"meaning", o.meaning},
              {"deprecated", o.deprecated ? "yes, use " + o.replacement : ""},
              {"invalid", o.invalid_message},
              {"versions", o.versions}};
  return e;
}

// A suggested name as the user should write it: a torch.npu.set_option key is no environment
// variable (env check says so), so it is offered as the call that sets it.
std::string as_written(const std::string& name) {
  const VarInfo* v = knowledge_base().var(name);
  return v && v->cls == VarClass::set_option && !v->api.empty() ? v->api : name;
}

Entry describe(const NameInfo& n) {
  Entry e{n.name, "not a torch_npu/CANN variable (" + n.kind + ")", {}, n.source};
  std::vector<std::string> suggestions;
  for (const auto& name : n.did_you_mean) suggestions.push_back(as_written(name));
  e.fields = {{"verdict", n.kind}, {"use instead", n.use}, {"did you mean", join(suggestions)}};
  return e;
}

Entry describe(const CudaPair& c) {
  Entry e{c.name, "CUDA/NCCL variable", {}, c.source};
  e.fields = {{"Ascend equivalent", c.ascend},
              {"translated automatically", c.automatic ? "yes (banjia env translate)" : "no"},
              {"note", c.note}};
  return e;
}

std::vector<Entry> all_entries() {
  const auto& kb = knowledge_base();
  std::vector<Entry> out;
  for (const auto& v : kb.vars) out.push_back(describe(v));
  for (const auto& o : kb.alloc_options) out.push_back(describe(o));
  for (const auto& n : kb.names) out.push_back(describe(n));
  for (const auto& c : kb.cuda) out.push_back(describe(c));
  return out;
}

// Source tags (PTA-doc, HCCL-doc, ...) mentioned in a source string, expanded to their locations.
std::vector<std::string> expand_tags(const std::string& source) {
  std::vector<std::string> out;
  for (const auto& t : knowledge_base().tags)
    if (source.find(t.name) != std::string::npos) out.push_back(t.name + " = " + t.location);
  return out;
}

std::string render_text(const Entry& e) {
  std::string out = fmt::format("{}  ({})\n", e.name, e.kind);
  for (const auto& [label, text] : e.fields)
    if (!text.empty()) out += fmt::format("  {:<13} {}\n", label + ":", text);
  out += fmt::format("  {:<13} {}\n", "source:", e.source);
  for (const auto& t : expand_tags(e.source)) out += fmt::format("  {:<13} {}\n", "", t);
  return out;
}

void render_json(JsonWriter& w, const Entry& e) {
  w.begin_object().field("name", e.name).field("kind", e.kind);
  for (const auto& [label, text] : e.fields) {
    if (text.empty()) continue;
    std::string key = label;
    for (auto& c : key) c = c == ' ' ? '_' : c;
    w.field(key, text);
  }
  w.field("source", e.source);
  w.key("source_locations").begin_array();
  for (const auto& t : expand_tags(e.source)) w.value(t);
  w.end_array().end_object();
}

}  // namespace

std::string explain(std::string_view query, bool json) {
  auto entries = all_entries();
  std::vector<const Entry*> exact, matches;
  std::string key = upper(query);
  for (const auto& e : entries)
    if (upper(e.name) == key) exact.push_back(&e);
  if (exact.empty()) {
    std::vector<std::string> names;
    for (const auto& e : entries) names.push_back(e.name);
    auto near = closest_names(query, names, 5);
    for (const auto& e : entries) {
      bool sub = !key.empty() && upper(e.name).find(key) != std::string::npos;
      bool close = std::find(near.begin(), near.end(), e.name) != near.end();
      if (sub || close) matches.push_back(&e);
    }
  }
  if (exact.empty() && matches.empty())
    throw InputError(std::string(query), "not in the knowledge base (no documented variable, allocator option or "
                                         "known name matches; try a shorter word)");
  const auto& shown = exact.empty() ? matches : exact;
  if (json) {
    JsonWriter w;
    w.begin_object().field("query", query).field("exact", !exact.empty()).key("matches").begin_array();
    for (const auto* e : shown) render_json(w, *e);
    w.end_array().end_object();
    return w.take() + "\n";
  }
  std::string out;
  if (exact.empty() && shown.size() > 1) {
    out += fmt::format("{} entries match '{}':\n", shown.size(), query);
    for (const auto* e : shown) {
      std::string what;
      for (const auto& [label, text] : e->fields)
        if ((label == "effect" || label == "meaning" || label == "use instead" || label == "Ascend equivalent") &&
            what.empty())
          what = text;
      if (what.size() > 90) what = what.substr(0, what.rfind(' ', 87)) + "...";
      out += fmt::format("  {:<34} {:<30} {}\n", e->name, e->kind.substr(0, 30), what);
    }
    out += "Run `banjia env explain NAME` for the details of one.\n";
    return out;
  }
  for (size_t i = 0; i < shown.size(); ++i) out += (i ? "\n" : "") + render_text(*shown[i]);
  return out;
}

}  // namespace banjia::env
