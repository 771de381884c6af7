// Can any Python rule match this file at all? Answered from the tokens alone, before the view,
// import table and dotted names are built (about half the cost of scanning a file): in a typical
// tree most files use no CUDA API, and those skip the rest (semgrep's rule pre-filtering, by token).
//
// Each match kind names what it cannot match without (`add_needles` in its unit under kinds/, next
// to its matcher): a Name token, a string literal's text, or a binary `@` in a loop. The
// filter must be sound: a file it turns away has no match. Whoever changes a matcher keeps its needles
// true (an alias once slipped through: a loop needle must also count in import statements); tests
// check the property over examples/, every rule example, the stdlib and torch, and fuzz_rewrite
// checks it on random input.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/string_hash.h"
#include "common/uninit_allocator.h"
#include "python/tokenizer.h"

namespace banjia::rules {

class RuleCatalog;

// Where a Name needle counts. A name several matchers want counts wherever any of them would.
struct NameNeedle {
  bool attribute_only = false;  // only after '.' (`.item()`)
  bool loop_only = false;       // only inside a `for`/`while` (the per-iteration advisories)
};

struct PythonNeedles {
  std::unordered_map<std::string, NameNeedle, StringHash, std::equal_to<>> names;
  // A string literal's whole text, or its leading text (after prefix and quotes; for an f-string,
  // its first literal part): "cuda", "nccl"; "cuda:", "CUDA_".
  std::vector<std::string> string_values;
  std::vector<std::string> string_prefixes;
  bool binary_at_in_loops = false;  // an `@` operator (not a decorator) inside a `for`/`while`

  void add_name(std::string_view name, NameNeedle where = {});
  // A dotted API name (`torch.cuda.synchronize`, or a prefix rule's `triton.jit`). Module-level
  // resolution builds every qualified name from the Name tokens of an import and of the chain at the
  // use site, so each component of a matched name (or of the prefix it extends) is a Name token of
  // the file: one component suffices as the needle. The choice only decides how many files pass.
  void add_dotted(std::string_view dotted, NameNeedle where = {});
  void add_string_value(std::string_view value);
  void add_string_prefix(std::string_view prefix);
};

class PythonPrefilter {
 public:
  explicit PythonPrefilter(PythonNeedles needles);
  // The needles of every Python match kind (kinds/registry.cpp) under `rules`.
  static PythonPrefilter for_rules(const RuleCatalog& rules);

  // False only when no matcher can fire on the file whose tokens these are.
  bool may_match(std::string_view text, const python::TokenStream& ts) const;

  const PythonNeedles& needles() const { return needles_; }

 private:
  // What the pass over the candidate tokens found: nothing, only needles that count inside loops
  // (that pass does not track loops), or a needle that counts where it stands.
  enum class Found { nothing, in_loop_only, needle };
  // Indices of the tokens that can hold a needle: Names of a needle's first byte and length, string
  // literals and f-string text, binary-operator candidates '@'. Branch-free: the per-token switch it
  // replaced mispredicted on most tokens, and this pass sees every token of every file.
  // Those of tokens [lo, hi).
  void candidate_tokens(std::string_view text, const python::TokenStream& ts, size_t lo, size_t hi,
                        UninitVector<uint32_t>& out) const;
  Found scan_candidates(std::string_view text, const python::TokenStream& ts,
                        const UninitVector<uint32_t>& candidates) const;
  // The full pass, tracking loops and imports, for a file whose only needles count in loops.
  bool scan_loops(std::string_view text, const python::TokenStream& ts) const;
  // False for nearly every name, from one table load: no needle has its first byte and length.
  bool may_be_needle(std::string_view name) const {
    if (name.size() > 32) return long_names_;
    return name_shapes_[static_cast<unsigned char>(name[0])] >> (name.size() - 1) & 1;
  }
  // The needle `name` names (after '.' or not), or nullptr.
  const NameNeedle* name_needle(std::string_view name, bool after_dot) const;
  bool value_may_match(std::string_view value, bool whole) const;
  // A string literal token (prefix and quotes included) whose text a string needle may match.
  bool literal_may_match(std::string_view literal) const;

  PythonNeedles needles_;
  // Bit (length - 1) of entry [first byte] is set when a needle name of that length (up to 32)
  // starts with that byte: most Name tokens are turned away by one table load, without hashing.
  std::array<uint32_t, 256> name_shapes_{};
  bool long_names_ = false;  // a needle name longer than 32 bytes (always looked up)
  std::array<bool, 256> string_first_{};  // first bytes of the string needles
  static_assert(static_cast<int>(python::TokenKind::ErrorToken) < 16);
  std::array<std::array<uint32_t, 256>, 16> candidate_lengths_{};  // [token kind][first byte]: see the constructor
};

}  // namespace banjia::rules
