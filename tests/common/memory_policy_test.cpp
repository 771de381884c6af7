// back_heap_with_huge_pages: after it, blocks from malloc -- on this thread or another -- come from
// the brk heap, in a range advised for transparent huge pages (VmFlags "hg" in /proc/self/smaps).
// Each check runs in a child process: the call changes malloc for the whole process, and how much
// heap is free already depends on the tests that ran before it in the same process.
#include "common/memory_policy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

namespace banjia {
namespace {

// Name and VmFlags of the mapping that holds `p`, from /proc/self/smaps.
struct Mapping {
  std::string name, flags;
};
Mapping mapping_of(const void* p) {
  const auto addr = reinterpret_cast<uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  Mapping m;
  while (std::getline(smaps, line)) {
    unsigned long lo = 0, hi = 0;
    char name[256] = "";
    if (std::sscanf(line.c_str(), "%lx-%lx %*s %*s %*s %*s %255s", &lo, &hi, name) >= 2 && line.find(':') > 8) {
      inside = addr >= lo && addr < hi;
      if (inside) m.name = name;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      m.flags = line.substr(8) + " ";
      return m;
    }
  }
  return m;
}

// GCC defines __SANITIZE_ADDRESS__; clang answers __has_feature.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define BANJIA_SANITIZED_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define BANJIA_SANITIZED_HEAP 1
#endif
#endif

// Why these checks cannot run here, or nullptr.
const char* why_not_here() {
#ifdef BANJIA_SANITIZED_HEAP
  return "the sanitizer's allocator replaces malloc's heap";
#else
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode;
  if (!std::getline(f, mode) || mode.find("[never]") != std::string::npos)
    return "the kernel has transparent huge pages off";
  return nullptr;
#endif
}

// Exit code of the child: 0 when a 3 MiB block (malloc's own heap, below the 32 MB mmap threshold)
// allocated on this thread and on another one lies in an advised part of [heap].
[[noreturn]] void child_checks() {
  if (back_heap_with_huge_pages() < (size_t{2} << 20)) std::_Exit(3);
  void* here = std::malloc(size_t{3} << 20);
  void* there = nullptr;
  std::thread([&] { there = std::malloc(size_t{3} << 20); }).join();
  for (void* block : {here, there}) {
    const Mapping m = mapping_of(block);
    if (m.name != "[heap]") std::_Exit(4);
    if (m.flags.find(" hg ") == std::string::npos) std::_Exit(5);
    std::memset(block, 1, size_t{3} << 20);  // the advised range is ordinary, writable memory
  }
  std::free(here);
  std::free(there);
  std::_Exit(0);
}

TEST(BackHeapWithHugePages, BlocksOfEveryThreadComeFromTheAdvisedHeap) {
  if (const char* why = why_not_here()) GTEST_SKIP() << why;
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(child_checks(), testing::ExitedWithCode(0), "");
}

// A reserve above malloc's trim threshold (1 GiB here before) was handed back to the kernel at the
// first free, and the heap then grew again in ordinary pages (trace asks for twice its input).
TEST(BackHeapWithHugePages, ALargeReserveOutlivesTheFirstFree) {
  if (const char* why = why_not_here()) GTEST_SKIP() << why;
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        if (back_heap_with_huge_pages(size_t{1536} << 20) < (size_t{1} << 30)) std::_Exit(3);
        std::free(std::malloc(size_t{3} << 20));  // back to the top of the heap
        char* block = static_cast<char*>(std::malloc(size_t{3} << 20));
        for (const char* at : {block, block + (size_t{3} << 20) - 1}) {  // its first and last byte
          const Mapping m = mapping_of(at);
          if (m.name != "[heap]" || m.flags.find(" hg ") == std::string::npos) std::_Exit(4);
        }
        std::_Exit(0);
      },
      testing::ExitedWithCode(0), "");
}

TEST(BackHeapWithHugePages, ActsOncePerProcess) {
  if (const char* why = why_not_here()) GTEST_SKIP() << why;
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // A second call (a second scan in the same process) leaves the heap as the first one made it.
  EXPECT_EXIT(
      {
        if (back_heap_with_huge_pages() == 0) std::_Exit(3);
        std::_Exit(back_heap_with_huge_pages() == 0 ? 0 : 4);
      },
      testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace banjia
