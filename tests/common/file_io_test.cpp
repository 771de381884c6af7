#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <csignal>
#include <thread>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/file_io.h"

namespace fs = std::filesystem;

namespace {
fs::path temp_dir() {
  auto d = fs::temp_directory_path() / ("banjia-io-" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}
}  // namespace

TEST(FileIo, AtomicWriteReplacesAndKeepsMode) {
  auto d = temp_dir();
  auto p = d / "a.sh";
  { std::ofstream(p) << "old"; }
  ::chmod(p.c_str(), 0755);
  banjia::write_file_atomic(p, "new contents");
  EXPECT_EQ(banjia::read_file(p), "new contents");
  struct stat st{};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);
  fs::remove_all(d);
}

TEST(FileIo, FailedWriteLeavesOriginalAndNoTemp) {
  auto d = temp_dir();
  auto p = d / "b.py";
  { std::ofstream(p) << "original"; }
  banjia::set_write_failure_after_bytes_for_testing(3);
  EXPECT_THROW(banjia::write_file_atomic(p, "replacement text"), banjia::InputError);
  banjia::set_write_failure_after_bytes_for_testing(std::nullopt);
  EXPECT_EQ(banjia::read_file(p), "original");
  size_t n = 0;
  for ([[maybe_unused]] auto& e : fs::directory_iterator(d)) ++n;
  EXPECT_EQ(n, 1u) << "temporary file left behind";
  fs::remove_all(d);
}

// `-o /dev/null` must write into the device, not rename a temp file over it (which would leave a
// regular file in its place). A FIFO takes the same path (not a regular file: written into) without risking the machine's /dev/null.
TEST(FileIo, WritingToAFifoWritesIntoIt) {
  auto fifo = temp_dir() / "out.fifo";
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The read end is opened first (non-blocking), so the write cannot block and a FIFO replaced by a
  // file makes the test fail rather than hang.
  int rd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(rd, 0);
  banjia::write_file_atomic(fifo, "through the pipe");
  char buf[64] = {};
  ssize_t n = ::read(rd, buf, sizeof buf);
  ::close(rd);
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0), "through the pipe");
  EXPECT_TRUE(fs::is_fifo(fifo));
  fs::remove(fifo);
}

TEST(FileIo, ASymlinkStaysALinkAndItsTargetIsReplaced) {
  auto d = temp_dir() / "link";
  fs::remove_all(d);
  fs::create_directories(d / "real");
  { std::ofstream(d / "real" / "f.py") << "old"; }
  fs::create_symlink("real/f.py", d / "f.py");
  banjia::write_file_atomic(d / "f.py", "new");
  EXPECT_TRUE(fs::is_symlink(d / "f.py"));
  EXPECT_EQ(fs::read_symlink(d / "f.py"), fs::path("real/f.py"));
  EXPECT_EQ(banjia::read_file(d / "real" / "f.py"), "new");
  fs::remove_all(d);
}

TEST(FileIo, WritingOverADirectoryIsAnError) {
  auto d = temp_dir() / "adir";
  fs::create_directories(d);
  EXPECT_THROW(banjia::write_file_atomic(d, "x"), banjia::InputError);
  EXPECT_TRUE(fs::is_directory(d));
}

TEST(FileIo, ReadMissingFileNamesIt) {
  try {
    banjia::read_file("/nonexistent/banjia/x.py");
    FAIL();
  } catch (const banjia::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/banjia/x.py"), std::string::npos);
  }
}

// Whole contents whatever stat says: empty, exactly one probe size, large, and procfs files whose
// stat size (0) is not their length. Expected bytes come from std::ifstream.
TEST(FileIo, ReadsWholeFilesOfEverySize) {
  auto slurp = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  fs::path d = fs::temp_directory_path() / ("banjia_read_" + std::to_string(::getpid()));
  fs::create_directories(d);
  for (size_t size : {size_t{0}, size_t{1}, size_t{4096}, size_t{65536}, size_t{65537}, size_t{1} << 20}) {
    std::string content(size, '\0');
    for (size_t i = 0; i < size; ++i) content[i] = static_cast<char>('a' + i * 7 % 26);
    fs::path p = d / ("f" + std::to_string(size));
    { std::ofstream(p, std::ios::binary) << content; }
    EXPECT_EQ(banjia::read_file(p), content) << size;
  }
  fs::remove_all(d);
  const std::string status = banjia::read_file("/proc/self/status");
  EXPECT_NE(status.find("Name:"), std::string::npos);
  EXPECT_EQ(banjia::read_file("/proc/self/cmdline"), slurp("/proc/self/cmdline"));
}

// One buffer reused for a large then a small then a large file: each read gives exactly that file.
TEST(FileIo, ReadIntoAReusedBufferGivesEachFileExactly) {
  fs::path d = temp_dir();
  const std::string big(200000, 'x'), small = "tiny\n", other(150000, 'y');
  for (auto [name, content] : {std::pair{"big", &big}, std::pair{"small", &small}, std::pair{"other", &other}})
    std::ofstream(d / name, std::ios::binary) << *content;
  std::string buffer;
  EXPECT_EQ(banjia::read_file_into(d / "big", buffer), big);
  EXPECT_EQ(banjia::read_file_into(d / "small", buffer), small);
  EXPECT_EQ(banjia::read_file_into(d / "other", buffer), other);
  EXPECT_EQ(banjia::read_file_into("/proc/self/cmdline", buffer), banjia::read_file("/proc/self/cmdline"));
  fs::remove_all(d);
}

namespace {
std::string problem_of(const std::function<void()>& read) {
  try {
    read();
  } catch (const banjia::InputError& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

// /dev/zero never ends: a device is refused before any read, whatever the limit.
TEST(FileIo, AnEndlessDeviceIsRefusedAtOnce) {
  const std::string refused = "/dev/zero: a character device, not a regular file: not read";
  EXPECT_EQ(problem_of([] { banjia::read_text_file("/dev/zero", 1 << 20, "a script"); }), refused);
  EXPECT_EQ(problem_of([] { banjia::read_file("/dev/zero", 3 << 20); }), refused);
  std::string buffer;
  EXPECT_EQ(problem_of([&] { banjia::read_file_into("/dev/zero", buffer, 100000); }), refused);
  EXPECT_EQ(buffer.size(), 0u);
}

TEST(FileIo, TextReadLimitsAreExactAndFindANulAnywhere) {
  fs::path d = temp_dir();
  const std::string text(4096 * 3 + 7, 'a');
  std::ofstream(d / "t.sh", std::ios::binary) << text;
  EXPECT_EQ(banjia::read_text_file(d / "t.sh", text.size(), "a script"), text);  // exactly at the cap
  EXPECT_EQ(problem_of([&] { banjia::read_text_file(d / "t.sh", text.size() - 1, "a script"); }),
            (d / "t.sh").string() + ": file larger than " + std::to_string(text.size() - 1) + " bytes, not read");
  std::string nul_at_end = text;
  nul_at_end.back() = '\0';
  std::ofstream(d / "n.sh", std::ios::binary) << nul_at_end;
  EXPECT_EQ(problem_of([&] { banjia::read_text_file(d / "n.sh", 1 << 20, "a CSV file"); }),
            (d / "n.sh").string() + ": binary file (contains NUL bytes), not a CSV file");
  fs::remove_all(d);
}

// A FIFO nobody writes would block a read forever: it is refused at once.
TEST(FileIo, AFifoIsRefusedWithoutWaitingForAWriter) {
  auto fifo = temp_dir() / "in.fifo";
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(problem_of([&] { banjia::read_text_file(fifo, 1 << 20, "a script"); }),
            fifo.string() + ": a FIFO, not a regular file: not read");
  fs::remove(fifo);
}

// Standard input is the exception ("-", or a name that opens it): an endless writer meets the cap.
TEST(FileIo, StandardInputIsReadUpToTheCap) {
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  int saved_stdin = ::dup(STDIN_FILENO);
  ASSERT_EQ(::dup2(pipe_fds[0], STDIN_FILENO), STDIN_FILENO);
  ::close(pipe_fds[0]);
  std::signal(SIGPIPE, SIG_IGN);  // the writer's write after the reader closes fails with EPIPE instead
  std::thread writer([wr = pipe_fds[1]] {
    const std::string line(4096, 'y');
    while (::write(wr, line.data(), line.size()) > 0) {
    }
    ::close(wr);
  });
  std::string via_dash = problem_of([&] { banjia::read_text_file("-", 1 << 20, "a script"); });
  std::string via_name = problem_of([&] { banjia::read_text_file("/dev/stdin", 1 << 20, "a script"); });
  ::dup2(saved_stdin, STDIN_FILENO);  // the reader's end closes: the writer's next write fails
  ::close(saved_stdin);
  writer.join();
  EXPECT_EQ(via_dash, "-: file larger than 1 MiB, not read");
  EXPECT_EQ(via_name, "/dev/stdin: file larger than 1 MiB, not read");
}
