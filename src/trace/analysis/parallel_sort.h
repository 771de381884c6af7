// Sorts a vector on several threads: equal slices sorted side by side, then merged pairwise
// (each round's merges in parallel). For a strict total order the result is the same for any
// number of threads; callers whose order has ties must not depend on the order of tied elements.
#pragma once
#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "common/thread_pool.h"

namespace banjia::trace {

template <class T, class Less>
void parallel_sort(std::vector<T>& v, Less less, unsigned threads) {
  const size_t n = v.size();
  if (threads <= 1 || n < (size_t{1} << 14)) {
    std::sort(v.begin(), v.end(), less);
    return;
  }
  const size_t parts = threads;
  auto bound = [&](size_t k) { return n * std::min(k, parts) / parts; };
  parallel_for(parts, threads, [&](size_t k) { std::sort(v.begin() + bound(k), v.begin() + bound(k + 1), less); });
  std::vector<T> tmp(n);
  for (size_t width = 1; width < parts; width *= 2) {
    size_t pairs = (parts + 2 * width - 1) / (2 * width);
    parallel_for(pairs, threads, [&](size_t p) {
      size_t a = bound(2 * p * width), m = bound((2 * p + 1) * width), e = bound((2 * p + 2) * width);
      std::merge(v.begin() + a, v.begin() + m, v.begin() + m, v.begin() + e, tmp.begin() + a, less);
    });
    v.swap(tmp);
  }
}

// Groups the items of `parts` (taken in order, and freed) by key(item), groups by ascending key,
// items in their order within a group. For data with few distinct keys such as (pid, tid) or device.
template <class T, class KeyFn>
std::vector<std::vector<T>> group_by(std::vector<std::vector<T>>&& parts, KeyFn key) {
  using K = decltype(key(std::declval<const T&>()));
  std::map<K, size_t> index;
  std::vector<std::vector<T>> groups;
  const K* last = nullptr;
  size_t g = 0;
  for (auto& part : parts) {
    for (const T& x : part) {
      K k = key(x);
      if (!last || !(k == *last)) {
        auto [it, fresh] = index.try_emplace(k, groups.size());
        if (fresh) groups.emplace_back();
        g = it->second;
        last = &it->first;
      }
      groups[g].push_back(x);
    }
    std::vector<T>().swap(part);
  }
  std::vector<std::vector<T>> ordered;
  for (auto& [k, i] : index) ordered.push_back(std::move(groups[i]));
  return ordered;
}

// Sorts data that is already almost in order (trace events of one thread or stream, written in time
// order with a few exceptions) in O(n + k log k) for k elements out of place: elements below the
// running maximum are set aside, sorted, and merged back. Falls back to a full sort when many are.
template <class T, class Less>
void sort_nearly_sorted(std::vector<T>& v, Less less) {
  std::vector<T> rest;
  size_t kept = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (kept > 0 && less(v[i], v[kept - 1])) {
      rest.push_back(v[i]);
      if (rest.size() > v.size() / 8) {  // far from sorted: put the set-aside ones back, sort all
        std::copy(rest.begin(), rest.end(), v.begin() + static_cast<ptrdiff_t>(kept));
        std::sort(v.begin(), v.end(), less);
        return;
      }
    } else {
      v[kept++] = v[i];
    }
  }
  if (rest.empty()) return;
  std::sort(rest.begin(), rest.end(), less);
  std::vector<T> sorted(v.size());
  std::merge(v.begin(), v.begin() + static_cast<ptrdiff_t>(kept), rest.begin(), rest.end(), sorted.begin(), less);
  v.swap(sorted);
}

// Stable LSD radix sort by an integer key, 16 bits per pass over (key - min key): as many passes
// as the key range needs (two for correlation ids spanning less than 2^32). Items with equal keys
// keep their order.
template <class T, class KeyFn>
void radix_sort(std::vector<T>& v, KeyFn key) {
  if (v.size() < 2) return;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const T& x : v) {
    lo = std::min<int64_t>(lo, key(x));
    hi = std::max<int64_t>(hi, key(x));
  }
  const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  auto digit = [&](const T& x, int shift) {
    return static_cast<size_t>(((static_cast<uint64_t>(key(x)) - static_cast<uint64_t>(lo)) >> shift) & 0xFFFF);
  };
  std::vector<T> tmp(v.size());
  std::vector<size_t> start(65536);
  for (int shift = 0; shift < 64 && (range >> shift) != 0; shift += 16) {
    std::fill(start.begin(), start.end(), 0);
    for (const T& x : v) ++start[digit(x, shift)];
    size_t sum = 0;
    for (size_t& c : start) {
      size_t count = c;
      c = sum;
      sum += count;
    }
    for (const T& x : v) tmp[start[digit(x, shift)]++] = x;
    v.swap(tmp);
  }
}

}  // namespace banjia::trace
