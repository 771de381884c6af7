// Structure on top of the token stream: significant tokens with bracket matching and statements,
// the import table of a module, dotted names resolved to fully qualified names, and call arguments.
// Resolution is module-level and purely syntactic (no flow analysis); see docs/design/python-frontend.md.
#pragma once
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/string_hash.h"
#include "common/uninit_allocator.h"
#include "python/tokenizer.h"

namespace banjia::python {

constexpr uint32_t kNoIndex = UINT32_MAX;

// Significant tokens only (no Whitespace/Comment/NL), with bracket matching and statements.
struct ModuleView {
  std::string_view src;
  const TokenStream* ts = nullptr;
  UninitVector<uint32_t> sig;     // indices into ts->tokens of significant tokens (not zeroed on resize)
  UninitVector<int32_t> match;    // per sig index: sig index of the matching bracket, or -1
                                  // (also pairs FStringStart with FStringEnd)
  // Simple statements: logical lines, split at top-level ';' and after the ':' of a compound
  // statement header with a body on the same line (`if x: import y`). Indent/Dedent/Newline/
  // EndMarker tokens belong to no statement.
  struct Statement { uint32_t first_sig, last_sig; int indent_depth; };
  std::vector<Statement> statements;
  UninitVector<uint32_t> stmt_of;  // per sig index: its statement index, or kNoIndex
  std::vector<uint32_t> import_statements;  // indices of the statements that start with `import` or `from`
  std::vector<uint32_t> name_heads;  // sig indices of Name tokens not preceded by '.' (chain heads)
  std::vector<uint32_t> string_starts;  // sig indices of String and FStringStart tokens, in order
  // Per sig index: the byte of a one-character operator token ('.', '(', '@', ...), else '\0'.
  // The matchers test "is this a '.'" millions of times; one byte load beats fetching the token.
  UninitVector<char> op1;

  const Token& tok(uint32_t sig_index) const { return ts->tokens[sig[sig_index]]; }
  std::string_view text(uint32_t sig_index) const { return tok(sig_index).text(src); }
  bool is_op(uint32_t sig_index, std::string_view op) const {
    if (op.size() == 1) return sig_index < op1.size() && op1[sig_index] == op[0];
    return sig_index < sig.size() && tok(sig_index).kind == TokenKind::Op && text(sig_index) == op;
  }
  bool is_name(uint32_t sig_index, std::string_view name) const {
    return sig_index < sig.size() && tok(sig_index).kind == TokenKind::Name && text(sig_index) == name;
  }
  // Calls fn(sig_index) for every one-character operator token `op`, in order: memchr over op1
  // skips the tokens in between many at a time (a matcher looking for '.' or '(' otherwise tests
  // every significant token of the file).
  template <class Fn>
  void for_each_op1(char op, Fn&& fn) const {
    const char* const base = op1.data();
    const char* const end = base + op1.size();
    for (const char* p = base; p < end; ++p) {
      p = static_cast<const char*>(std::memchr(p, op, static_cast<size_t>(end - p)));
      if (!p) break;
      fn(static_cast<uint32_t>(p - base));
    }
  }
  // The Name at sig_index is an attribute access (`x.cuda`, `foo().cuda`): preceded by '.'.
  bool is_attribute(uint32_t sig_index) const { return sig_index > 0 && is_op(sig_index - 1, "."); }
};
ModuleView build_view(std::string_view src, const TokenStream& ts);
// Same, into `out`, reusing its vectors' capacity (see tokenize(text, mode, out)).
void build_view(std::string_view src, const TokenStream& ts, ModuleView& out);

// Where a binding comes from: an import statement, or a name that resolves like one although no import
// binds it (see ImportTable::derived).
enum class BindingOrigin {
  import_statement,
  assignment,   // a module-level `NAME = dotted.chain` whose chain resolves (`sync = torch.cuda.synchronize`)
  star_import,  // `cuda` used as a module in a file with `from torch import *` (see derive_bindings)
};

struct ImportBinding {   // one name bound by an import statement (or derived, see BindingOrigin)
  std::string local;     // name bound in the module ("th", "tc", "ac", "torch" for `import torch.cuda`; "*" for star)
  std::string target;    // fully qualified name `local` refers to ("torch", "torch.cuda", "torch.cuda.amp.autocast");
                         // relative imports keep their dots (".x", "..pkg.y")
  std::string imported;  // dotted name as written after `import` or `from` joined with the imported
                         // name: "torch.cuda" for `import torch.cuda`, "torch.cuda.amp.autocast" for from-imports
  bool is_from = false;  // from X import Y
  uint32_t stmt = 0;     // index into ModuleView::statements
  uint32_t first_tok = 0, last_tok = 0;  // ts->tokens indices of the imported dotted name, for rewriting
  uint32_t alias_tok = kNoIndex;         // ts->tokens index of the alias name
  int indent_depth = 0;  // 0 = module level
  BindingOrigin origin = BindingOrigin::import_statement;
  // For derived bindings: assignment: first_tok/last_tok span the chain after `=` and alias_tok is
  // the assigned name; star_import: first_tok = last_tok = the `*` of `from torch import *`.
};

struct ImportTable {
  std::vector<ImportBinding> bindings;  // in source order, module-level and nested
  // Names no import binds that resolve like imports (derive_bindings), in source order. Kept apart
  // so that whoever walks the import statements (`bindings`) sees only those.
  std::vector<ImportBinding> derived;
  // Resolves a bound name: the last module-level binding of it wins; a name bound only inside
  // functions/classes resolves to the last such binding; a name no import binds resolves through
  // `derived`. "th" -> "torch", "ac" -> "torch.cuda.amp.autocast".
  std::optional<std::string> resolve(std::string_view local) const;
  const ImportBinding* binding_for(std::string_view local) const;

  // local -> bindings index that resolve() uses; built by collect_imports (rebuild_index() after edits).
  std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>> index;
  // local -> derived index (names not in `index`).
  std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>> derived_index;
  void rebuild_index();
};
// The import table of a module, with its derived bindings.
ImportTable collect_imports(const ModuleView& view);
// Fills table.derived (and its index) from the view; collect_imports calls it. Syntactic and
// conservative, so that a derived name never stands for something else:
//  * assignment: a statement at indentation 0 that is exactly `NAME = NAME(.NAME)*`, whose chain
//    resolves through the imports or an earlier derived alias, where NAME is bound nowhere else in
//    the file (no import, other assignment, `def`/`class`/`for`/`as`/`global`/`del`, parameter) and is
//    not an imported name. `ipg = dist.init_process_group` makes `ipg(...)` a call of
//    torch.distributed.init_process_group.
//  * star_import: torch's `__all__` has no `cuda` (torch 2.13: `from torch import *` binds no `cuda`),
//    so a bare `cuda.X` beside `from torch import *` reaches torch.cuda only through another star
//    import (a project module that re-exports it). banjia resolves such a `cuda` to torch.cuda when
//    the file has `from torch import *`, no binding of `cuda` (import, assignment, parameter, loop
//    variable, ...), and every bare `cuda` in it is followed by `.`.
void derive_bindings(const ModuleView& view, ImportTable& table);

// Dotted-name chains at use sites: every maximal NAME(.NAME)* chain not preceded by '.' whose head
// is an imported name (th.cuda.synchronize -> torch.cuda.synchronize), plus the dotted names inside
// import statements themselves (qualified absolutely). Assignment targets and keyword-argument
// names of length 1 are not uses and are skipped.
struct DottedRef {
  std::string_view qualified;       // fully qualified name; points into the DottedNames::text it came with
  // sig indices of the first and last NAME component. A chain is NAME ('.' NAME)*, so component i
  // is sig token first_sig + 2i: the components need no list of their own (no allocation per name).
  uint32_t first_sig = 0, last_sig = 0;
  bool is_call = false;             // followed by '('
  uint32_t call_open_sig = kNoIndex;  // sig index of that '('
  bool in_import_stmt = false;

  uint32_t name_count() const { return (last_sig - first_sig) / 2 + 1; }
  // ts->tokens index of NAME component i (0 = the head).
  uint32_t name_tok(const ModuleView& v, uint32_t i) const { return v.sig[first_sig + 2 * i]; }
  uint32_t first_tok(const ModuleView& v) const { return v.sig[first_sig]; }
  uint32_t last_tok(const ModuleView& v) const { return v.sig[last_sig]; }
};
// The refs of one module and the bytes their qualified names live in: one buffer per module instead
// of a heap string per name (most qualified names are longer than std::string's inline capacity).
// Moving keeps the names valid (the buffer is a heap block); copying is not allowed.
struct DottedNames {
  std::vector<DottedRef> refs;  // in source order, not overlapping
  std::vector<char> text;       // backing store of every refs[i].qualified
  std::vector<std::pair<uint32_t, uint32_t>> spans;  // scratch: (offset, length) in text per ref

  DottedNames() = default;
  DottedNames(DottedNames&&) noexcept = default;
  DottedNames& operator=(DottedNames&&) noexcept = default;
  DottedNames(const DottedNames&) = delete;
  DottedNames& operator=(const DottedNames&) = delete;
};
// The chain as written, without spaces or line continuations ("th.cuda.synchronize").
std::string written_form(const ModuleView& v, const DottedRef& r);
DottedNames resolve_dotted_names(const ModuleView& view, const ImportTable& imports);
// Same, into `out`, reusing its buffers.
void resolve_dotted_names(const ModuleView& view, const ImportTable& imports, DottedNames& out);

// `dotted` is `module` or a name below it, component-wise: `rotary_emb2` is not below `rotary_emb`.
inline bool within_module(std::string_view dotted, std::string_view module) {
  return dotted.starts_with(module) && (dotted.size() == module.size() || dotted[module.size()] == '.');
}

// One argument of a call: `f(a, *rest, device="cuda", **kw)`.
struct CallArg {
  uint32_t first_sig, last_sig;     // the argument's tokens; for keywords the value only
  std::string_view keyword;         // keyword name, empty for positional / starred
  uint32_t keyword_sig = kNoIndex;  // sig index of the keyword name
  int position = -1;                // index among positional arguments, -1 for keyword/starred
  bool star = false, double_star = false;
};
// Arguments of the call whose '(' is at sig index open_sig. Empty when there is no matching ')'.
std::vector<CallArg> call_arguments(const ModuleView& view, uint32_t open_sig);
// The keyword argument `name=` of that call, if present.
const CallArg* find_keyword(const std::vector<CallArg>& args, std::string_view name);
// The positional argument at `position`, if present.
const CallArg* find_positional(const std::vector<CallArg>& args, int position);

}  // namespace banjia::python
