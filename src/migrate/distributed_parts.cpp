#include "migrate/distributed_parts.h"

#include <algorithm>

namespace banjia::migrate {

using python::CallArg;
using python::kNoIndex;
using python::TokenKind;

namespace {

bool is_loader(std::string_view q) { return q == "torch.utils.data.DataLoader" || q == "torch.utils.data.dataloader.DataLoader"; }

bool is_optimizer(std::string_view q) {
  if (!q.starts_with("torch.optim.") || q.starts_with("torch.optim.lr_scheduler.")) return false;
  const std::string_view last = q.substr(q.rfind('.') + 1);
  return !last.empty() && last.front() >= 'A' && last.front() <= 'Z';
}

}  // namespace

std::string_view ScriptParts::header(uint32_t stmt) const {
  const uint32_t first = a_.view.statements[stmt].first_sig;
  return a_.sig_is(first, "async") ? a_.sig_text(first + 1) : a_.sig_text(first);
}

uint32_t ScriptParts::block_end(uint32_t h) const {
  uint32_t j = h + 1;
  while (j < a_.view.statements.size() && depth(j) > depth(h)) ++j;
  return j - 1;
}

uint32_t ScriptParts::enclosing_def(uint32_t stmt) const {
  int d = depth(stmt);
  for (uint32_t k = stmt; k-- > 0 && d > 0;) {
    if (depth(k) >= d) continue;
    if (header(k) == "def") return k;
    d = depth(k);
  }
  return kNoIndex;
}

std::string ScriptParts::assigned_name(uint32_t stmt) const {
  const auto& st = a_.view.statements[stmt];
  if (st.last_sig <= st.first_sig + 1 || !a_.sig_is_name(st.first_sig) || !a_.sig_is_op(st.first_sig + 1, "=")) return {};
  return std::string(a_.sig_text(st.first_sig));
}

std::string ScriptParts::dotted_at(uint32_t first, uint32_t last) const {
  if ((last - first) % 2 != 0) return {};
  for (uint32_t s = first; s <= last; s += 2)
    if (!a_.sig_is_name(s) || (s < last && !a_.sig_is_op(s + 1, "."))) return {};
  return std::string(a_.text().substr(a_.sig_token(first).begin, a_.sig_token(last).end - a_.sig_token(first).begin));
}

bool ScriptParts::uses_torch_distributed() const { return first_distributed_line() > 0; }

int ScriptParts::first_distributed_line() const {
  for (const auto& r : a_.dotted.refs)
    if (r.qualified.starts_with("torch.distributed") || r.qualified.starts_with("torch.nn.parallel.DistributedDataParallel") ||
        r.qualified.starts_with("torch.utils.data.distributed"))
      return static_cast<int>(a_.sig_token(r.first_sig).line);
  return 0;
}

std::vector<DataLoaderCall> ScriptParts::data_loaders() const {
  std::vector<DataLoaderCall> out;
  for (const auto& r : a_.dotted.refs) {
    if (!r.is_call || r.in_import_stmt || !is_loader(r.qualified)) continue;
    if (a_.view.match[r.call_open_sig] < 0) continue;  // an unclosed call: nothing to edit in it
    const uint32_t open = r.call_open_sig, close = static_cast<uint32_t>(a_.view.match[open]);
    DataLoaderCall l;
    l.stmt = a_.view.stmt_of[open];
    const auto& st = a_.view.statements[l.stmt];
    if (st.first_sig + 2 == r.first_sig && close == st.last_sig) l.name = assigned_name(l.stmt);
    l.close = a_.sig_token(close).begin;
    l.trailing_comma = a_.sig_is_op(close - 1, ",");
    const std::vector<CallArg> args = python::call_arguments(a_.view, open);
    const CallArg* dataset = python::find_positional(args, 0);
    if (!dataset) dataset = python::find_keyword(args, "dataset");
    if (dataset) l.dataset = dotted_at(dataset->first_sig, dataset->last_sig);
    l.custom_sampler = python::find_keyword(args, "sampler") || python::find_keyword(args, "batch_sampler");
    if (const CallArg* s = python::find_keyword(args, "shuffle")) {
      l.shuffle = ByteRange{a_.sig_token(s->keyword_sig).begin, a_.sig_token(s->last_sig).end};
      l.shuffle_value = std::string(a_.text().substr(a_.sig_token(s->first_sig).begin,
                                                     a_.sig_token(s->last_sig).end - a_.sig_token(s->first_sig).begin));
      l.shuffles = l.shuffle_value != "False";
    }
    const auto stars = std::count_if(args.begin(), args.end(), [](const CallArg& c) { return c.double_star; });
    for (const CallArg& c : args) {
      // `**name`: the argument's tokens may or may not include the `**`
      const uint32_t name = a_.sig_is_op(c.first_sig, "**") ? c.first_sig + 1 : c.first_sig;
      if (c.double_star && stars == 1 && name == c.last_sig && a_.sig_is_name(name)) {
        l.kwargs = ByteRange{a_.sig_token(name - 1).begin, a_.sig_token(name).end};
        l.kwargs_name = std::string(a_.sig_text(name));
      }
    }
    if (stars > 0 && !l.kwargs) l.custom_sampler = true;  // what the loader gets cannot be read
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<OptimizerCall> ScriptParts::optimizers() const {
  std::vector<OptimizerCall> out;
  for (const auto& r : a_.dotted.refs) {
    if (!r.is_call || r.in_import_stmt || !is_optimizer(r.qualified)) continue;
    OptimizerCall o;
    o.stmt = a_.view.stmt_of[r.call_open_sig];
    o.name = assigned_name(o.stmt);
    const std::vector<CallArg> args = python::call_arguments(a_.view, r.call_open_sig);
    if (const CallArg* p = python::find_positional(args, 0); p && p->last_sig == p->first_sig + 4 &&
        a_.sig_is_name(p->first_sig) && a_.sig_is_op(p->first_sig + 1, ".") && a_.sig_is(p->first_sig + 2, "parameters") &&
        a_.sig_is_op(p->first_sig + 3, "(") && a_.sig_is_op(p->first_sig + 4, ")"))
      o.model = std::string(a_.sig_text(p->first_sig));
    out.push_back(std::move(o));
  }
  return out;
}

std::optional<DataLoaderCall> ScriptParts::training_loader(const std::vector<DataLoaderCall>& loaders) const {
  if (loaders.size() == 1) return loaders.front();
  auto only = [&](auto pred) -> std::optional<DataLoaderCall> {
    if (std::count_if(loaders.begin(), loaders.end(), pred) != 1) return std::nullopt;
    return *std::find_if(loaders.begin(), loaders.end(), pred);
  };
  if (auto s = only([](const DataLoaderCall& l) { return l.shuffles; })) return s;
  if (std::any_of(loaders.begin(), loaders.end(), [](const DataLoaderCall& l) { return l.shuffles; })) return std::nullopt;
  return only([](const DataLoaderCall& l) { return l.name.find("train") != std::string::npos; });
}

std::optional<uint32_t> ScriptParts::last_assignment_before(std::string_view name, uint32_t stmt) const {
  for (uint32_t k = stmt; k-- > 0;) {
    if (!same_function(k, stmt)) continue;
    if (assigned_name(k) == name) return k;
  }
  return std::nullopt;
}

std::string ScriptParts::device_of(std::string_view model, std::optional<uint32_t> stmt) const {
  if (!stmt) return {};
  const auto& st = a_.view.statements[*stmt];
  if (assigned_name(*stmt) != model) return {};
  for (uint32_t s = st.first_sig; s + 1 <= st.last_sig; ++s) {
    if (!a_.sig_is(s, "to") || !a_.view.is_attribute(s) || !a_.sig_is_op(s + 1, "(")) continue;
    const std::vector<CallArg> args = python::call_arguments(a_.view, s + 1);
    const CallArg* d = python::find_positional(args, 0);
    if (!d) d = python::find_keyword(args, "device");
    if (d) return dotted_at(d->first_sig, d->last_sig);
  }
  return {};
}

std::string ScriptParts::indent_of(uint32_t stmt) const {
  const std::string_view text = a_.text();
  size_t at = a_.sig_token(a_.view.statements[stmt].first_sig).begin;
  while (at > 0 && text[at - 1] != '\n' && text[at - 1] != '\r') --at;
  size_t end = at;
  while (end < text.size() && (text[end] == ' ' || text[end] == '\t')) ++end;
  return std::string(text.substr(at, end - at));
}

std::string ScriptParts::indent_unit() const {
  for (uint32_t s = 0; s < a_.view.statements.size(); ++s)
    if (depth(s) == 1) {
      const std::string in = indent_of(s);
      return in.find('\t') != std::string::npos ? "\t" : in.empty() ? "    " : in;
    }
  return "    ";
}

std::vector<uint32_t> ScriptParts::attribute_uses(std::string_view name, uint32_t after) const {
  std::vector<uint32_t> out;
  for (uint32_t s = after + 1; s < a_.view.statements.size(); ++s) {
    if (!same_function(s, after)) continue;
    if (assigned_name(s) == name) break;
    const auto& st = a_.view.statements[s];
    for (uint32_t si = st.first_sig; si + 2 <= st.last_sig; ++si)
      if (a_.sig_is(si, name) && a_.sig_is_name(si) && !a_.view.is_attribute(si) && a_.sig_is_op(si + 1, ".") && a_.sig_is_name(si + 2))
        out.push_back(si);
  }
  return out;
}

std::optional<EpochLoop> ScriptParts::epoch_loop(std::string_view loader, uint32_t after) const {
  for (uint32_t k = after + 1; k < a_.view.statements.size(); ++k) {
    if (!same_function(k, after) || header(k) != "for") continue;
    const auto& st = a_.view.statements[k];
    if (!a_.sig_is_name(st.first_sig + 1) || !a_.sig_is(st.first_sig + 2, "in")) continue;
    if (st.last_sig == st.first_sig + 4 && a_.sig_is(st.first_sig + 3, loader)) continue;  // the batch loop
    const uint32_t end = block_end(k);
    if (end == k) continue;
    bool uses = false;
    for (uint32_t si = a_.view.statements[k + 1].first_sig; si <= a_.view.statements[end].last_sig && !uses; ++si)
      uses = a_.sig_is(si, loader) && !a_.view.is_attribute(si);
    if (uses) return EpochLoop{k + 1, std::string(a_.sig_text(st.first_sig + 1))};
  }
  return std::nullopt;
}

std::vector<uint32_t> ScriptParts::output_statements() const {
  std::vector<uint32_t> out;
  std::vector<bool> seen(a_.view.statements.size());
  for (const auto& r : a_.dotted.refs) {
    if (!r.is_call || r.in_import_stmt) continue;
    if (r.qualified != "torch.save" && !r.qualified.starts_with("logging.")) continue;
    const uint32_t s = a_.view.stmt_of[r.first_sig];
    const auto& st = a_.view.statements[s];
    if (st.first_sig == r.first_sig && static_cast<uint32_t>(a_.view.match[r.call_open_sig]) == st.last_sig) seen[s] = true;
  }
  for (uint32_t s = 0; s < a_.view.statements.size(); ++s) {
    const auto& st = a_.view.statements[s];
    if (a_.sig_is(st.first_sig, "print") && a_.sig_is_name(st.first_sig) && a_.sig_is_op(st.first_sig + 1, "(") &&
        static_cast<uint32_t>(a_.view.match[st.first_sig + 1]) == st.last_sig && !a_.imports.binding_for("print"))
      seen[s] = true;
    if (seen[s]) out.push_back(s);
  }
  return out;
}

std::vector<CallPassing> ScriptParts::calls_passing(std::string_view loader, std::string_view model, uint32_t after) const {
  auto whole_argument = [&](uint32_t si) {
    return (a_.sig_is_op(si - 1, "(") || a_.sig_is_op(si - 1, ",")) && (a_.sig_is_op(si + 1, ")") || a_.sig_is_op(si + 1, ","));
  };
  std::vector<CallPassing> out;
  for (uint32_t s = after + 1; s < a_.view.statements.size(); ++s) {
    const std::string_view h = header(s);
    if (!same_function(s, after) || h == "for" || h == "if" || h == "while" || h == "with" || h == "def") continue;
    const auto& st = a_.view.statements[s];
    bool passes = false;
    CallPassing c{s, false, {}};
    for (uint32_t si = st.first_sig + 1; si < st.last_sig; ++si) {
      if (!a_.sig_is_name(si) || !whole_argument(si)) continue;
      if (a_.sig_is(si, loader)) passes = true;
      else if (a_.sig_is(si, model)) c.model_args.push_back(si);
    }
    if (!passes) continue;
    uint32_t callee = st.first_sig;
    while (callee + 2 <= st.last_sig && a_.sig_is_op(callee + 1, ".")) callee += 2;
    c.bare = a_.sig_is_name(st.first_sig) && a_.sig_is_op(callee + 1, "(") &&
             static_cast<uint32_t>(a_.view.match[callee + 1]) == st.last_sig;
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<uint32_t> ScriptParts::conditional_steps(std::string_view optimizer) const {
  std::vector<uint32_t> out;
  if (optimizer.empty()) return out;
  for (uint32_t s = 1; s < a_.view.statements.size(); ++s) {
    const auto& st = a_.view.statements[s];
    if (!a_.sig_is(st.first_sig, optimizer) || !a_.sig_is_op(st.first_sig + 1, ".") || !a_.sig_is(st.first_sig + 2, "step")) continue;
    for (uint32_t k = s; k-- > 0;)
      if (depth(k) < depth(s)) {
        if (header(k) == "if" || header(k) == "elif") out.push_back(s);
        break;
      }
  }
  return out;
}

bool ScriptParts::binds(std::string_view name) const { return a_.imports.binding_for(name) != nullptr; }

uint32_t ScriptParts::after_imports() const {
  uint32_t last = kNoIndex;
  for (uint32_t s : a_.view.import_statements)
    if (depth(s) == 0) last = s;
  if (last == kNoIndex) return 0;
  const auto& toks = a_.tokens.tokens;
  for (uint32_t t = a_.view.sig[a_.view.statements[last].last_sig] + 1; t < toks.size(); ++t)
    if (toks[t].kind == TokenKind::Newline) return toks[t].end;
  return static_cast<uint32_t>(a_.text().size());
}

bool ScriptParts::starts_its_line(uint32_t stmt) const {
  const std::string_view text = a_.text();
  size_t at = a_.sig_token(a_.view.statements[stmt].first_sig).begin;
  while (at > 0 && (text[at - 1] == ' ' || text[at - 1] == '\t')) --at;
  return at == 0 || text[at - 1] == '\n' || text[at - 1] == '\r';
}

bool ScriptParts::has_multiline_string(uint32_t stmt) const {
  const auto& st = a_.view.statements[stmt];
  for (uint32_t t = a_.view.sig[st.first_sig]; t <= a_.view.sig[st.last_sig]; ++t) {
    const auto& tok = a_.tokens.tokens[t];
    if ((tok.kind == TokenKind::String || tok.kind == TokenKind::FStringMiddle) && tok.text(a_.text()).find('\n') != std::string_view::npos)
      return true;
  }
  return false;
}

}  // namespace banjia::migrate
