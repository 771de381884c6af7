// Where the bytes of uncompressed ("stored") zip members start inside the archive file, so that they
// can be used in place from the memory mapping. libzip lists members but does not expose their
// data offsets, and it always runs a CRC pass when reading stored members.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace banjia::compare {

struct ZipMemberInfo {
  std::string name;
  uint64_t compressed = 0;  // from the central directory (libzip)
  bool stored = false;
};

// Walks the local file headers from the start of `archive` in order, using the central directory's
// sizes to step over each member. Returns, per member, the offset of its data, or nullopt when the
// walk could not vouch for it (then the caller reads the member through libzip instead).
std::vector<std::optional<uint64_t>> stored_data_offsets(std::string_view archive,
                                                         const std::vector<ZipMemberInfo>& members);

}  // namespace banjia::compare
