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

#include "common/safe_paths.h"

namespace banjia {

// Reads a whole file. Throws InputError naming the file on any failure, and when the file holds more
// than `max_bytes` ("file larger than 16 MiB, not read"). A regular file over the limit is refused
// before any read. A FIFO, device or socket is refused at once ("a FIFO, not a regular file: not
// read"): /dev/zero never ends, a FIFO without a writer never starts. Standard input is read, named
// "-" or by a path that opens it (/dev/stdin). Every regular file read is noted as an input of the
// run (note_input_file).
std::string read_file(const std::filesystem::path& path, size_t max_bytes = SIZE_MAX);
// Same, and sets `identity` to the version of the file the bytes were read from (fstat of the open
// file), for a writer that must later check the file is still that version.
std::string read_file(const std::filesystem::path& path, size_t max_bytes, FileIdentity& identity);
// Same, into `buffer` (which only grows; reuse one per thread across many files): the file's bytes,
// valid until the buffer is next used or changed.
std::string_view read_file_into(const std::filesystem::path& path, std::string& buffer, size_t max_bytes = SIZE_MAX);

// Reads a text input (a script, a CSV): at most `max_bytes`, and no NUL byte, checked as the bytes
// arrive so that /dev/zero fails on its first read. A NUL throws InputError with the problem
// "binary file (contains NUL bytes), not <what>", e.g. what = "a script".
std::string read_text_file(const std::filesystem::path& path, size_t max_bytes, std::string_view what);

// The kind of a file that is not a regular one, for messages: "FIFO", "character device", ...
const char* special_file_kind(mode_t mode);

// Outputs never replace inputs: every file a verb reads is noted (by device and inode; the readers
// of common/ do it themselves, other readers call this), and refuse_if_input throws InputError
// naming `output` when it is one of them, reached by any name or link.
void note_input_file(const struct stat& st);
void note_input_file(const std::filesystem::path& path);
void refuse_if_input(const std::filesystem::path& output);

// Writes `data` to `path` atomically (temp + fsync + rename), refusing a path that is an input of
// this run (refuse_if_input). `mode` sets the permission bits of the
// result; by default an existing file's mode is kept, else 0644. Throws InputError naming the file.
// A symbolic link stays a link (the file it points to is replaced); a device, FIFO or socket
// (`/dev/null`) is written into, not replaced; a directory is an error.
// `durable` flushes the file to disk (fsync) before the rename: always when replacing a user's file;
// a new tree written in bulk may skip it per file and call sync_filesystem() once at the end.
void write_file_atomic(const std::filesystem::path& path, std::string_view data,
                       std::optional<mode_t> mode = std::nullopt, bool durable = true);
// The same without the input check: for a verb whose job is to rewrite its input (env translate -i).
void replace_file_atomic(const std::filesystem::path& path, std::string_view data,
                         std::optional<mode_t> mode = std::nullopt, bool durable = true);

// Writes all of `data` to an open descriptor, as write_file_atomic does (the failure hook below
// applies). Returns false with errno set.
bool write_all_to_fd(int fd, std::string_view data);

// Flushes the filesystem holding `path` (syncfs): one flush for a whole tree of new files.
void sync_filesystem(const std::filesystem::path& path);

// Test hook: when set, write_file_atomic fails after writing this many bytes of the temp file
// (simulates a full disk). The temp file is removed and the original is untouched.
void set_write_failure_after_bytes_for_testing(std::optional<size_t> bytes);

// Writes to stdout when path is "-" or empty, else atomically to the file.
void write_output(const std::string& path, std::string_view data);

}  // namespace banjia
