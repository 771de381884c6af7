#include "rules/rewrites/rename_call.h"

#include <algorithm>
#include <cctype>

#include "python/expression.h"
#include "rules/analyses/python_analysis.h"
#include "rules/core/catalog.h"

namespace banjia::rules {

namespace {

std::string_view first_component(std::string_view s) { return s.substr(0, s.find('.')); }

// The entry of `renames` naming `qualified` or the longest component prefix of it.
const std::pair<std::string, std::string>* rename_for(const Rule& r, const std::vector<std::string_view>& q,
                                                       size_t& components) {
  const std::pair<std::string, std::string>* best = nullptr;
  components = 0;
  for (const auto& entry : r.rewrite_as<CallRewrite>().renames) {
    const auto n = split_dots(entry.first);
    if (n.size() > q.size() || n.size() <= components || !std::equal(n.begin(), n.end(), q.begin())) continue;
    best = &entry;
    components = n.size();
  }
  return best;
}

// The items of a call template's argument list before its "...": "{device}, dtype=x" -> two items.
std::vector<std::string> template_items(std::string_view args) {
  std::vector<std::string> items;
  int depth = 0;
  std::string cur;
  for (char c : args) {
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      items.push_back(cur);
      cur.clear();
      continue;
    }
    if (!(cur.empty() && c == ' ')) cur += c;
  }
  while (!cur.empty() && cur.back() == ' ') cur.pop_back();
  if (!cur.empty()) items.push_back(cur);
  return items;
}

std::string_view keyword_of(std::string_view item) {
  size_t eq = item.find('=');
  if (eq == std::string_view::npos || eq == 0 || item.find('(') < eq) return {};
  return item.substr(0, eq);
}

bool has_comment_between(const PythonAnalysis& a, uint32_t first_tok, uint32_t last_tok) {
  for (uint32_t t = first_tok; t <= last_tok; ++t)
    if (a.tokens.tokens[t].kind == python::TokenKind::Comment) return true;
  return false;
}

constexpr std::string_view kArgs = "{args}";

// `text` with every `torch.` written as `head.` (the name this file binds torch to).
std::string spelled_through(const std::string& text, std::string_view head) {
  if (head == "torch") return text;
  std::string out;
  size_t pos = 0;
  for (size_t at = text.find("torch."); at != std::string::npos; at = text.find("torch.", at + 6)) {
    const char before = at == 0 ? ' ' : text[at - 1];
    if (std::isalnum(static_cast<unsigned char>(before)) || before == '_' || before == '.') continue;
    out.append(text, pos, at - pos).append(head);
    pos = at + 5;  // the '.' stays
  }
  return out.append(text, pos, std::string::npos);
}

// A whole-call template "(NEW({args}) if COND else None)": the call, from its first name to its
// closing parenthesis, becomes the template around its own argument text. The opening (up to the
// call's "(") and the closing (its ")") are separate edits, so that edits inside the arguments still
// apply. The template spells `torch`; the call's own name for torch (`th`) is written in its place,
// so the call must be spelled through that name in full.
std::optional<TextEdit> whole_call_edit(const PythonAnalysis& a, const python::DottedRef& ref, const Rule& r,
                                        std::string_view to_template, size_t args_at, bool spelled_as_written,
                                        std::optional<TextEdit>& closing, std::string& why) {
  const std::string to = spelled_through(std::string(to_template), a.sig_text(ref.first_sig));
  args_at = to.find(kArgs);
  const std::string_view new_call = std::string_view(to).substr(0, args_at);
  if (!spelled_as_written || !ref.is_call) {
    why = "write this use as " + std::string(to) + " by hand ({args}: the call's arguments)";
    return std::nullopt;
  }
  const int32_t close = a.view.match[ref.call_open_sig];
  if (close < 0) {
    why = "rewrite this call by hand";
    return std::nullopt;
  }
  if (r.rewrite_as<CallRewrite>().positional_only)
    for (const auto& arg : python::call_arguments(a.view, ref.call_open_sig))
      if (arg.position < 0) {
        why = std::string(new_call) + " takes its arguments positionally only: pass them so, then migrate again";
        return std::nullopt;
      }
  const auto& close_tok = a.sig_token(static_cast<uint32_t>(close));
  closing = TextEdit{close_tok.begin, close_tok.end, to.substr(args_at + kArgs.size())};
  return TextEdit{a.tokens.tokens[ref.first_tok(a.view)].begin, a.sig_token(ref.call_open_sig).end, to.substr(0, args_at)};
}

}  // namespace

std::optional<TextEdit> rename_call_edit(const PythonAnalysis& a, const python::DottedRef& ref, const Rule& r,
                                         std::optional<TextEdit>& closing, std::vector<TextEdit>& inserts, std::string& why) {
  const auto q = split_dots(ref.qualified);
  size_t components = 0;
  const auto* entry = rename_for(r, q, components);
  if (!entry) {
    why = "`" + std::string(ref.qualified) + "` has no device-agnostic counterpart in torch.accelerator or torch.amp: it stays";
    return std::nullopt;
  }
  const std::string& to = entry->second;
  if (const size_t args_at = to.find(kArgs); args_at != std::string::npos) {
    const std::string_view head = a.sig_text(ref.first_sig);
    const python::ImportBinding* b = a.imports.binding_for(head);
    const bool torch_as_written = b ? b->target == "torch" && b->origin == python::BindingOrigin::import_statement : head == "torch";
    return whole_call_edit(a, ref, r, to, args_at, torch_as_written && components == q.size() && ref.name_count() == q.size(),
                           closing, why);
  }
  const size_t paren = to.find('(');
  const std::string new_name = to.substr(0, paren);
  const std::string_view root = first_component(new_name);
  const size_t written = ref.name_count();
  const std::string_view head = a.sig_text(ref.first_sig);
  const python::ImportBinding* b = a.imports.binding_for(head);
  // The head must be the module itself: imported as such, or the bare name no import binds (as the
  // inserted `import torch` would bind it: deciding alike before and after keeps migrate idempotent).
  const bool head_is_root = b ? b->target == root && b->origin == python::BindingOrigin::import_statement : head == root;
  if (written != q.size() || !head_is_root) {
    why = "spelled through the name `" + std::string(head) + "`: write " + new_name + " by hand";
    return std::nullopt;
  }
  const auto& toks = a.tokens.tokens;
  const uint32_t head_end = toks[ref.first_tok(a.view)].end;
  const std::string tail = new_name.substr(root.size());  // ".accelerator.synchronize"
  if (paren == std::string::npos && r.rewrite_as<CallRewrite>().positional_only && ref.is_call) {
    for (const auto& arg : python::call_arguments(a.view, ref.call_open_sig))
      if (arg.position < 0) {
        why = new_name + " takes its arguments positionally only: pass them so, then migrate again";
        return std::nullopt;
      }
  }
  if (paren == std::string::npos)
    return TextEdit{head_end, toks[ref.name_tok(a.view, static_cast<uint32_t>(components - 1))].end, tail};

  // A call template "NAME(ITEMS, ...)": ITEMS go before the call's own arguments.
  if (!ref.is_call || components != q.size()) {
    why = "not called here: " + new_name + " needs arguments the original does not take; rewrite by hand";
    return std::nullopt;
  }
  const size_t dots = to.find("...", paren);
  const auto items = template_items(std::string_view(to).substr(paren + 1, (dots == std::string::npos ? to.size() - 1 : dots) - paren - 1));
  const auto args = python::call_arguments(a.view, ref.call_open_sig);
  const bool template_keywords = std::any_of(items.begin(), items.end(), [](const auto& i) { return !keyword_of(i).empty(); });
  // The original's parameter names, to pass its positional arguments by keyword.
  const std::vector<std::string>* params = nullptr;
  for (const auto& [name, names] : r.rewrite_as<CallRewrite>().positional)
    if (name == entry->first) params = &names;
  std::vector<std::string_view> given;  // keywords the call passes, by name or by position
  for (const auto& arg : args) {
    if (!arg.keyword.empty()) given.push_back(arg.keyword);
    else if (arg.position >= 0 && params && static_cast<size_t>(arg.position) < params->size()) given.push_back((*params)[static_cast<size_t>(arg.position)]);
  }
  std::vector<std::string> kept;
  for (const auto& item : items) {
    const std::string_view kw = keyword_of(item);
    if (!kw.empty() && std::find(given.begin(), given.end(), kw) != given.end()) continue;  // the call says it itself
    kept.push_back(item);
  }
  for (const auto& arg : args) {
    // Positional arguments would follow the template's keywords (a syntax error) or mean other
    // parameters, unless the original's parameter names say which they are; star arguments cannot
    // be checked.
    const bool named = params && arg.position >= 0 && static_cast<size_t>(arg.position) < params->size();
    if ((arg.position >= 0 && template_keywords && !named) || arg.star || arg.double_star) {
      why = "pass the arguments of this call by keyword, then migrate again (" + new_name + " takes them in another order)";
      return std::nullopt;
    }
    if (named && template_keywords) {
      const uint32_t at = a.sig_token(arg.first_sig).begin;
      inserts.push_back({at, at, (*params)[static_cast<size_t>(arg.position)] + "="});
    }
  }
  const int32_t close = a.view.match[ref.call_open_sig];
  if (close < 0 || has_comment_between(a, a.view.sig[ref.call_open_sig], a.view.sig[static_cast<uint32_t>(close)])) {
    why = "rewrite this call to " + new_name + " by hand";
    return std::nullopt;
  }
  std::string text = tail + "(";
  for (size_t i = 0; i < kept.size(); ++i) text += (i ? ", " : "") + kept[i];
  if (!args.empty() && !kept.empty()) text += ", ";
  return TextEdit{head_end, a.sig_token(ref.call_open_sig).end, text};
}

}  // namespace banjia::rules
