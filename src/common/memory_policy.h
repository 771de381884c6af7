// How a verb that allocates and frees large blocks again and again asks malloc to keep them.
#pragma once

namespace banjia {

// Serve blocks up to 32 MB from the heap and keep freed memory there for reuse, instead of mapping
// fresh zeroed pages for each large block and handing them back on free: page faults were a fifth
// of `trace`'s CPU time on a 1 GB trace and a tenth of `scan`'s on Debian's torch package (whose
// per-file buffers grow and are regrown file after file). Process-wide; banjia runs one verb.
void keep_freed_memory_for_reuse();

}  // namespace banjia
