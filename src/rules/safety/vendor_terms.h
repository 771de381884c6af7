// What marks code as NVIDIA-specific (data/vendor/nvidia.toml): words of a name that name NVIDIA
// hardware, and names of NVIDIA-only features.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace banjia::rules {

struct VendorTerms {
  struct Word {
    std::string word;     // lower case, as name_words splits a name
    bool strong = false;  // a name in code with this word is NVIDIA-only (not just `sm`, `nv`)
  };
  std::vector<Word> words;
  struct Feature {
    std::string name;        // a Name token or the last name of a chain
    std::string what;        // shown in messages
    bool setting = false;    // a CUDA setting torch_npu accepts and ignores (else: needs the hardware)
    bool part = false;       // also part of a longer name, in any case (`fp8` in `use_fp8`, `FP8Linear`)
  };
  std::vector<Feature> features;
  // NVIDIA GPU models (lower case), as words of string literals: "h100" in "NVIDIA H100 80GB HBM3".
  std::vector<std::string> products;

  // Whether `name`, split into words, has a word of `words` (only strong ones when `strong_only`).
  bool names_vendor(std::string_view name, bool strong_only = false) const;
  // The feature a Name token is, or nullptr.
  const Feature* feature(std::string_view name) const;
  // The product a string's words name, or "".
  std::string_view product(std::string_view text) const;
};

// Parsed once from the embedded knowledge base.
const VendorTerms& vendor_terms();

}  // namespace banjia::rules
