#include "compare/model/count_sketch.h"

#include <cmath>
#include <string_view>

#include <simdjson.h>

namespace banjia::compare {

std::optional<SketchScheme> parse_sketch_scheme(simdjson::dom::element scheme) {
  std::string_view kind, order;
  if (scheme["kind"].get(kind) != simdjson::SUCCESS || kind != "count-sketch") return std::nullopt;
  if (scheme["order"].get(order) != simdjson::SUCCESS || order != "row-major") return std::nullopt;
  SketchScheme s;
  for (auto [name, field] : {std::pair{"buckets", &s.buckets}, {"prime", &s.prime}, {"a", &s.a}, {"b", &s.b}, {"c", &s.c}})
    if (scheme[name].get(*field) != simdjson::SUCCESS) return std::nullopt;
  // Products stay below 2^62 (as they do in the int64 arithmetic that wrote the sketch).
  if (s.prime < 2 || s.prime > (int64_t{1} << 31) || s.buckets < 1 || s.buckets > 4096) return std::nullopt;
  for (int64_t v : {s.a, s.b, s.c})
    if (v < 0 || v >= s.prime) return std::nullopt;
  return s;
}

std::vector<double> sketch_of(const NpyView& v, const SketchScheme& s) {
  if (v.fortran_order && v.shape.size() > 1) return {};
  std::vector<double> out(static_cast<size_t>(s.buckets), 0.0);
  const auto p = static_cast<uint64_t>(s.prime), k = static_cast<uint64_t>(s.buckets);
  for (size_t n = 0; n < v.count; ++n) {
    const double x = element_as_double(v, n);
    if (!std::isfinite(x)) return {};
    const uint64_t i = n % p;
    const uint64_t h = (static_cast<uint64_t>(s.a) * (i * i % p) % p + static_cast<uint64_t>(s.b) * i % p +
                        static_cast<uint64_t>(s.c)) % p;
    out[h % k] += (h / k) % 2 == 0 ? x : -x;
  }
  return out;
}

std::optional<double> sketch_distance(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || a.size() != b.size()) return std::nullopt;
  double sum = 0;
  for (size_t j = 0; j < a.size(); ++j) sum += (a[j] - b[j]) * (a[j] - b[j]);
  return std::sqrt(sum);
}

}  // namespace banjia::compare
