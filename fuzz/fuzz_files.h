// Scratch files for harnesses whose reader takes a path (they map, inflate or look beside the file):
// one private temporary directory per harness process, files rewritten in place for every input.
#pragma once
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

class FuzzDir {
 public:
  explicit FuzzDir(const char* tag) {
    // tmpfs when there is one: on a disk file system the per-input writes cost a third of the rate.
    std::error_code ec;
    std::filesystem::path base = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : std::filesystem::temp_directory_path(ec);
    std::string tmpl = (base / (std::string("banjia-fuzz-") + tag + "-XXXXXX")).string();
    if (!::mkdtemp(tmpl.data())) std::abort();
    root_ = tmpl;
  }
  ~FuzzDir() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  const std::filesystem::path& root() const { return root_; }

  // Writes `bytes` to root/rel (creating its directory) and returns the path.
  std::filesystem::path write(const std::string& rel, std::string_view bytes) const {
    std::filesystem::path p = root_ / rel;
    std::filesystem::create_directories(p.parent_path());
    int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) std::abort();
    for (size_t done = 0; done < bytes.size();) {
      ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (n <= 0) std::abort();
      done += static_cast<size_t>(n);
    }
    ::close(fd);
    return p;
  }
  void remove(const std::string& rel) const {
    std::error_code ec;
    std::filesystem::remove(root_ / rel, ec);
  }

 private:
  std::filesystem::path root_;
};
