// Exit codes and the error type for "bad input": one clear line naming the file and the problem.
#pragma once
#include <cstring>
#include <stdexcept>
#include <string>

namespace banjia {

enum ExitCode : int {
  kExitOk = 0,
  kExitFindings = 1,   // findings at or above --fail-on (or --check would change files)
  kExitInputError = 2, // usage or input error; one line on stderr
};

// Thrown for bad input. what() is the full one-line message "FILE: problem".
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& file, const std::string& problem)
      : std::runtime_error(file.empty() ? problem : file + ": " + problem), file_(file), problem_(problem) {}
  const std::string& file() const { return file_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string file_;
  std::string problem_;
};

// The C library's text for an errno value ("No such file or directory").
inline std::string errno_text(int err) { return std::strerror(err); }

}  // namespace banjia
