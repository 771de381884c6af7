// Reading whole files and writing them atomically. Writing never leaves a half-written file in place
// of an original: data goes to a temp file in the same directory, is flushed, then renamed over.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace banjia {

// Reads a whole file. Throws InputError naming the file on any failure, and when the file holds more
// than `max_bytes` ("file larger than 16 MiB, not read"): a device such as /dev/zero, a FIFO or a huge
// file would otherwise grow memory without end. A regular file over the limit is refused before any read.
std::string read_file(const std::filesystem::path& path, size_t max_bytes = SIZE_MAX);
// Same, into `buffer` (which only grows; reuse one per thread across many files): the file's bytes,
// valid until the buffer is next used or changed.
std::string_view read_file_into(const std::filesystem::path& path, std::string& buffer, size_t max_bytes = SIZE_MAX);

// Reads a text input (a script, a CSV): at most `max_bytes`, and no NUL byte, checked as the bytes
// arrive so that /dev/zero fails on its first read. A NUL throws InputError with the problem
// "binary file (contains NUL bytes), not <what>", e.g. what = "a script".
std::string read_text_file(const std::filesystem::path& path, size_t max_bytes, std::string_view what);

// Writes `data` to `path` atomically (temp + fsync + rename). `mode` sets the permission bits of the
// result; by default an existing file's mode is kept, else 0644. Throws InputError naming the file.
// A symbolic link stays a link (the file it points to is replaced); a device, FIFO or socket
// (`/dev/null`) is written into, not replaced; a directory is an error.
// `durable` flushes the file to disk (fsync) before the rename: always when replacing a user's file;
// a new tree written in bulk may skip it per file and call sync_filesystem() once at the end.
void write_file_atomic(const std::filesystem::path& path, std::string_view data,
                       std::optional<mode_t> mode = std::nullopt, bool durable = true);

// Flushes the filesystem holding `path` (syncfs): one flush for a whole tree of new files.
void sync_filesystem(const std::filesystem::path& path);

// Test hook: when set, write_file_atomic fails after writing this many bytes of the temp file
// (simulates a full disk). The temp file is removed and the original is untouched.
void set_write_failure_after_bytes_for_testing(std::optional<size_t> bytes);

// Writes to stdout when path is "-" or empty, else atomically to the file.
void write_output(const std::string& path, std::string_view data);

}  // namespace banjia
