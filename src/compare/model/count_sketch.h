// Count sketches of tensors (python/banjia/_sketch.py writes them in stats captures): each element,
// in row-major order, is added with a sign to one of a few buckets chosen by a hash of its index.
// The sketch is linear, so ||S(a) - S(b)|| estimates ||a - b|| without either tensor: compare uses
// it to measure a stats capture's relative error as it measures a tensor capture's.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "compare/readers/npy_format.h"

namespace simdjson::dom {
class element;
}  // namespace simdjson::dom

namespace banjia::compare {

// h(i) = (a i^2 + b i + c) mod prime; bucket h mod buckets, sign + for even (h / buckets).
struct SketchScheme {
  int64_t buckets = 0, prime = 0, a = 0, b = 0, c = 0;
  bool operator==(const SketchScheme&) const = default;
};

// The scheme an index's "sketch" object names, or nullopt where it is not a count sketch this code
// computes the same way (another kind, element order or hash; values out of range).
std::optional<SketchScheme> parse_sketch_scheme(simdjson::dom::element scheme);

// The sketch of a tensor under `scheme`; empty for a Fortran-order array (its storage order is not
// row-major) or a tensor with a non-finite element (its sketch estimates nothing).
std::vector<double> sketch_of(const NpyView& v, const SketchScheme& scheme);

// ||S(a) - S(b)||: an estimate of ||a - b||; nullopt unless both have the same number of buckets.
std::optional<double> sketch_distance(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace banjia::compare
