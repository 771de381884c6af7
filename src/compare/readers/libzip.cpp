#include "compare/readers/libzip.h"

#include <dlfcn.h>

#include <string>

#include "common/errors.h"

#if !defined(BANJIA_LIBZIP_SONAME) && !defined(BANJIA_LIBZIP_LINKED)
#error "BANJIA_LIBZIP_SONAME: the build reads it from the libzip it compiles against (src/CMakeLists.txt)"
#endif

namespace banjia::compare {

namespace {
struct Loaded {
  LibZip api{};
  std::string problem;  // empty when every symbol was found
};

#ifdef BANJIA_LIBZIP_LINKED
// A static build (BANJIA_STATIC_DEPS) links libzip's archive: its functions are there, nothing loads.
Loaded load() {
  Loaded l;
  l.api = LibZip{.error_init = &::zip_error_init,
                 .error_fini = &::zip_error_fini,
                 .error_strerror = &::zip_error_strerror,
                 .source_buffer_create = &::zip_source_buffer_create,
                 .source_free = &::zip_source_free,
                 .open_from_source = &::zip_open_from_source,
                 .discard = &::zip_discard,
                 .get_num_entries = &::zip_get_num_entries,
                 .stat_init = &::zip_stat_init,
                 .stat_index = &::zip_stat_index,
                 .strerror = &::zip_strerror,
                 .fopen_index = &::zip_fopen_index,
                 .fread = &::zip_fread,
                 .file_strerror = &::zip_file_strerror,
                 .fclose = &::zip_fclose};
  return l;
}
#else
// Sets fn to the library's `name`; the first one missing becomes the problem.
template <class Fn>
void bind(void* handle, const char* name, Fn& fn, std::string& problem) {
  fn = reinterpret_cast<Fn>(::dlsym(handle, name));
  if (!fn && problem.empty()) problem = std::string("libzip has no ") + name;
}

Loaded load() {
  Loaded l;
  // Never closed: the functions are used until exit.
  void* h = ::dlopen(BANJIA_LIBZIP_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* why = ::dlerror();
    l.problem = why ? why : "cannot load " BANJIA_LIBZIP_SONAME;
    return l;
  }
  LibZip& z = l.api;
  std::string& p = l.problem;
  bind(h, "zip_error_init", z.error_init, p);
  bind(h, "zip_error_fini", z.error_fini, p);
  bind(h, "zip_error_strerror", z.error_strerror, p);
  bind(h, "zip_source_buffer_create", z.source_buffer_create, p);
  bind(h, "zip_source_free", z.source_free, p);
  bind(h, "zip_open_from_source", z.open_from_source, p);
  bind(h, "zip_discard", z.discard, p);
  bind(h, "zip_get_num_entries", z.get_num_entries, p);
  bind(h, "zip_stat_init", z.stat_init, p);
  bind(h, "zip_stat_index", z.stat_index, p);
  bind(h, "zip_strerror", z.strerror, p);
  bind(h, "zip_fopen_index", z.fopen_index, p);
  bind(h, "zip_fread", z.fread, p);
  bind(h, "zip_file_strerror", z.file_strerror, p);
  bind(h, "zip_fclose", z.fclose, p);
  return l;
}
#endif
}  // namespace

const LibZip& libzip(const std::string& archive) {
  static const Loaded loaded = load();  // C++ guarantees one thread initialises it
  if (!loaded.problem.empty())
    throw InputError(archive, "cannot read npz archives: " + loaded.problem + " (install libzip)");
  return loaded.api;
}

}  // namespace banjia::compare
