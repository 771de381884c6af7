// Open-addressing hash map from 64-bit ids (correlation / External ids) to 64-bit values. The trace
// analyses look up millions of ids; std::unordered_map's node allocations dominated that cost.
#pragma once
#include <cstdint>
#include <vector>

#include "trace/model/trace_model.h"

namespace banjia::trace {

class IdMap {
 public:
  explicit IdMap(size_t expected = 16) {
    size_t cap = 16;
    while (cap < expected * 2) cap <<= 1;
    keys_.assign(cap, kNone);
    values_.resize(cap);
  }
  // Inserts or overwrites. `key` must not be kNone.
  void set(int64_t key, int64_t value) { slot_for(key, true, value); }
  // Keeps the first value for a key.
  void add(int64_t key, int64_t value) { slot_for(key, false, value); }
  const int64_t* find(int64_t key) const {
    size_t mask = keys_.size() - 1;
    for (size_t i = hash(key) & mask;; i = (i + 1) & mask) {
      if (keys_[i] == key) return &values_[i];
      if (keys_[i] == kNone) return nullptr;
    }
  }

 private:
  static size_t hash(int64_t k) {
    uint64_t x = static_cast<uint64_t>(k) * 0x9E3779B97F4A7C15ull;
    return static_cast<size_t>(x ^ (x >> 29));
  }
  void slot_for(int64_t key, bool overwrite, int64_t value) {
    if ((size_ + 1) * 2 > keys_.size()) grow();
    size_t mask = keys_.size() - 1;
    for (size_t i = hash(key) & mask;; i = (i + 1) & mask) {
      if (keys_[i] == kNone) {
        keys_[i] = key;
        values_[i] = value;
        ++size_;
        return;
      }
      if (keys_[i] == key) {
        if (overwrite) values_[i] = value;
        return;
      }
    }
  }
  void grow() {
    std::vector<int64_t> k = std::move(keys_), v = std::move(values_);
    keys_.assign(k.size() * 2, kNone);
    values_.assign(k.size() * 2, 0);
    size_ = 0;
    for (size_t i = 0; i < k.size(); ++i)
      if (k[i] != kNone) slot_for(k[i], true, v[i]);
  }
  std::vector<int64_t> keys_, values_;
  size_t size_ = 0;
};

}  // namespace banjia::trace
