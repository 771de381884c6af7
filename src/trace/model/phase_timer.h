// Wall-clock timings of the phases of one trace analysis, printed to stderr when the environment
// variable BANJIA_TRACE_TIMING is set (used by bench/trace_bench.sh to split parse vs analysis).
#pragma once
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sys/resource.h>

namespace banjia::trace {

class PhaseTimer {
 public:
  explicit PhaseTimer(const char* what)
      : what_(what), start_(std::chrono::steady_clock::now()), cpu_start_(enabled() ? cpu_ms() : 0) {}
  ~PhaseTimer() {
    if (!enabled()) return;
    auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(stderr, "banjia trace timing: %-18s wall %8.1f ms  cpu (whole process) %8.1f ms\n", what_, ms,
                 cpu_ms() - cpu_start_);
  }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  static bool enabled() {
    static const bool on = std::getenv("BANJIA_TRACE_TIMING") != nullptr;
    return on;
  }
  static double cpu_ms() {  // user + system time of all threads so far
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    auto ms = [](timeval t) { return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) / 1e3; };
    return ms(u.ru_utime) + ms(u.ru_stime);
  }
  const char* what_;
  std::chrono::steady_clock::time_point start_;
  double cpu_start_;
};

}  // namespace banjia::trace
