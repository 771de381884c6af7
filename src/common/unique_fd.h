#pragma once
// A POSIX file descriptor owned by a scope: closed when the scope ends, however it ends.
#include <unistd.h>

namespace banjia {

struct UniqueFd {
  int fd = -1;
  explicit UniqueFd(int f = -1) : fd(f) {}
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace banjia
