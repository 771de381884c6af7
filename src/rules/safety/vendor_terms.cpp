#include "rules/safety/vendor_terms.h"

#include <algorithm>
#include <cctype>

#include "common/embedded_data.h"
#include "common/errors.h"
#include "common/fuzzy.h"
#include "common/toml_document.h"
#include "rules/analyses/name_words.h"

namespace banjia::rules {

namespace {
constexpr std::string_view kVendorFile = "data/vendor/nvidia.toml";
}

bool VendorTerms::names_vendor(std::string_view name, bool strong_only) const {
  for (const auto& w : name_words(name))
    for (const auto& v : words)
      if (v.word == w && (v.strong || !strong_only)) return true;
  return false;
}

const VendorTerms::Feature* VendorTerms::feature(std::string_view name) const {
  const std::string low = lower(name);
  for (const auto& f : features)
    if (f.name == name || (f.part && low.find(f.name) != std::string::npos)) return &f;
  return nullptr;
}

std::string_view VendorTerms::product(std::string_view text) const {
  const std::string low = lower(text);
  for (size_t i = 0; i < low.size();) {
    size_t j = i;
    while (j < low.size() && std::isalnum(static_cast<unsigned char>(low[j]))) ++j;
    const std::string_view word = std::string_view(low).substr(i, j - i);
    for (const auto& p : products)
      if (word == p) return p;
    i = j == i ? i + 1 : j;
  }
  return {};
}

const VendorTerms& vendor_terms() {
  static const VendorTerms terms = [] {
    VendorTerms t;
    const auto text = embedded_file(kVendorFile);
    if (!text) throw InputError(std::string(kVendorFile), "not compiled into this binary");
    const toml::table doc = parse_toml(*text, std::string(kVendorFile));
    if (const auto* words = doc["word"].as_array())
      for (const auto& w : *words)
        if (const auto* wt = w.as_table())
          t.words.push_back({(*wt)["word"].value_or(std::string()), (*wt)["strong"].value_or(false)});
    if (const auto* names = doc["name"].as_array())
      for (const auto& n : *names)
        if (const auto* nt = n.as_table())
          t.features.push_back({(*nt)["name"].value_or(std::string()), (*nt)["what"].value_or(std::string()),
                                (*nt)["kind"].value_or(std::string()) == "setting", (*nt)["part"].value_or(false)});
    if (const auto* products = doc["product"].as_array())
      for (const auto& p : *products)
        if (const auto* pt = p.as_table()) t.products.push_back((*pt)["name"].value_or(std::string()));
    return t;
  }();
  return terms;
}

}  // namespace banjia::rules
