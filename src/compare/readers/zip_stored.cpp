#include "compare/readers/zip_stored.h"

#include <unordered_map>

namespace banjia::compare {

namespace {
constexpr uint32_t kLocalHeader = 0x04034b50, kDataDescriptor = 0x08074b50;
constexpr size_t kLocalHeaderSize = 30;

uint32_t le(std::string_view s, size_t at, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(s[at + static_cast<size_t>(i)]);
  return v;
}
}  // namespace

std::vector<std::optional<uint64_t>> stored_data_offsets(std::string_view archive,
                                                         const std::vector<ZipMemberInfo>& members) {
  std::vector<std::optional<uint64_t>> out(members.size());
  std::unordered_map<std::string_view, size_t> by_name;
  for (size_t i = 0; i < members.size(); ++i) by_name.emplace(members[i].name, i);
  uint64_t off = 0;
  for (size_t seen = 0; seen < members.size(); ++seen) {
    if (off > archive.size() || archive.size() - off < kLocalHeaderSize || le(archive, off, 4) != kLocalHeader) break;
    uint32_t flags = le(archive, off + 6, 2), method = le(archive, off + 8, 2);
    uint64_t name_len = le(archive, off + 26, 2), extra_len = le(archive, off + 28, 2);
    uint64_t data = off + kLocalHeaderSize + name_len + extra_len;
    if (data > archive.size()) break;
    auto it = by_name.find(archive.substr(off + kLocalHeaderSize, name_len));
    if (it == by_name.end()) break;
    const ZipMemberInfo& m = members[it->second];
    if (m.compressed > archive.size() - data) break;
    if (m.stored && method == 0) out[it->second] = data;
    off = data + m.compressed;
    if (flags & 0x8) {  // data descriptor follows: optional signature, crc, sizes (zip64: 8-byte sizes)
      if (archive.size() - off >= 4 && le(archive, off, 4) == kDataDescriptor) off += 4;
      off += 12;
      if (archive.size() - off >= 4 && le(archive, off, 4) != kLocalHeader) off += 8;
    }
  }
  return out;
}

}  // namespace banjia::compare
