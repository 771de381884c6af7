// libzip, loaded when the first .npz archive is opened instead of when banjia starts. Linked, it
// made every start of every verb map libzip and the OpenSSL, bzip2 and zstd libraries libzip links,
// and resolve their symbols: about 1.1 ms of a 4 ms start on the reference machine, for a library
// only `compare` of an .npz reads with. The headers are libzip's own, so every call keeps its type.
// A static build (-DBANJIA_STATIC_DEPS=ON, the portable wheels) links libzip's archive instead: then
// there is nothing to map or resolve at start, and no libzip.so to depend on.
#pragma once
#include <zip.h>

#include <string>

namespace banjia::compare {

struct LibZip {
  decltype(&::zip_error_init) error_init;
  decltype(&::zip_error_fini) error_fini;
  decltype(&::zip_error_strerror) error_strerror;
  decltype(&::zip_source_buffer_create) source_buffer_create;
  decltype(&::zip_source_free) source_free;
  decltype(&::zip_open_from_source) open_from_source;
  decltype(&::zip_discard) discard;
  decltype(&::zip_get_num_entries) get_num_entries;
  decltype(&::zip_stat_init) stat_init;
  decltype(&::zip_stat_index) stat_index;
  decltype(&::zip_strerror) strerror;
  decltype(&::zip_fopen_index) fopen_index;
  decltype(&::zip_fread) fread;
  decltype(&::zip_file_strerror) file_strerror;
  decltype(&::zip_fclose) fclose;
};

// The library's functions, loaded once (thread-safe). Throws InputError naming `archive` when the
// library cannot be loaded, which only a broken installation does: the install script installs it.
const LibZip& libzip(const std::string& archive);

}  // namespace banjia::compare
