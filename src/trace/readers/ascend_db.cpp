#include "trace/readers/ascend_db.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <memory>
#include <sys/stat.h>
#include <unordered_map>

#include "common/errors.h"
#include "common/file_io.h"
#include "trace/readers/decimal_time.h"

namespace banjia::trace {

namespace {
// torch_npu writes its .db in WAL mode. Even a read-only connection to a WAL database creates the
// -wal and -shm files beside it, and leaves them there (only a writer removes them), and it fails
// where the directory is read-only: reading a profile must not change the user's directory. So the
// file is opened `immutable` (no locks, no side files) unless a non-empty -wal file is there, that is
// commits a writer never folded into the database (a profiler that did not close it): only a
// normal read-only open sees those, at the price of the side files.
std::string open_uri(const std::filesystem::path& p) {
  std::error_code ec;
  const auto wal_size = std::filesystem::file_size(p.string() + "-wal", ec);
  const bool pending_wal = !ec && wal_size > 0;
  std::string uri = "file:";
  // Absolute, so that a path starting with "//" cannot read as a URI authority; '%', '?' and '#'
  // would end or escape the path part of the URI.
  for (char c : std::filesystem::absolute(p).lexically_normal().string()) {
    if (c == '%' || c == '?' || c == '#') uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    else uri += c;
  }
  return pending_wal ? uri : uri + "?immutable=1";
}

class Db {
 public:
  explicit Db(const std::filesystem::path& p) : file_(p.string()) {
    sqlite3* db = nullptr;
    const int rc = sqlite3_open_v2(open_uri(p).c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
    db_.reset(db);  // closed however construction ends (SQLite returns a handle even when opening fails)
    if (rc != SQLITE_OK) throw InputError(file_, "cannot open SQLite database");
    // Without it, a corrupt b-tree page can be read past its cells into bytes another page left in
    // SQLite's page cache, so the same damaged file loads on one read and fails on the next
    // (docs/fuzzing.md, corrupt-page-read-twice). With the check, SQLite verifies every cell's extent as a page
    // is loaded ("database corruption is detected earlier and is less likely to spread",
    // https://www.sqlite.org/pragma.html#pragma_cell_size_check) at a small cost per page.
    exec("PRAGMA cell_size_check = ON");
  }

  void exec(const char* sql) {
    if (sqlite3_exec(db_.get(), sql, nullptr, nullptr, nullptr) != SQLITE_OK)
      throw InputError(file_, std::string("SQLite error: ") + sqlite3_errmsg(db_.get()));
  }

  bool has_table(const char* name) {
    bool found = false;
    query("SELECT 1 FROM sqlite_master WHERE type='table' AND name='" + std::string(name) + "'",
          [&](sqlite3_stmt*) { found = true; });
    return found;
  }

  template <class Fn>
  void query(const std::string& sql, Fn&& fn) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_.get(), sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
      throw InputError(file_, std::string("not a readable torch_npu profiler database (") + sqlite3_errmsg(db_.get()) + ")");
    // Finalized however the loop ends: a statement left open would keep sqlite3_close from closing
    // the connection.
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> owned(st, sqlite3_finalize);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) fn(st);
    if (rc != SQLITE_DONE) throw InputError(file_, std::string("SQLite error: ") + sqlite3_errmsg(db_.get()));
  }

 private:
  std::string file_;
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> db_{nullptr, sqlite3_close};
};

// Columns may be INTEGER or TEXT (PYTORCH_API.startNs is text in real exports).
int64_t col_i64(sqlite3_stmt* st, int c) {
  if (sqlite3_column_type(st, c) == SQLITE_TEXT) {
    auto* s = reinterpret_cast<const char*>(sqlite3_column_text(st, c));
    auto v = parse_u64(s ? s : "");
    return v ? static_cast<int64_t>(*v) : kNone;
  }
  if (sqlite3_column_type(st, c) == SQLITE_NULL) return kNone;
  return sqlite3_column_int64(st, c);
}

constexpr int64_t kPython = 1, kCann = 2, kHardware = 3, kHccl = 4, kOverlap = 5;
}  // namespace

TraceData read_ascend_db(const std::filesystem::path& path) {
  const std::string file = path.string();
  {
    struct stat st{};
    if (::stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) throw InputError(file, "not a regular file");
    note_input_file(st);
    FILE* f = std::fopen(file.c_str(), "rb");
    char magic[16] = {};
    size_t got = f ? std::fread(magic, 1, 16, f) : 0;
    if (f) std::fclose(f);
    if (got < 16 || std::string_view(magic, 15) != "SQLite format 3") throw InputError(file, "not an SQLite database");
  }
  Db db(path);
  for (const char* t : {"STRING_IDS", "TASK"})
    if (!db.has_table(t)) throw InputError(file, std::string("not a torch_npu profiler database (no ") + t + " table)");
  TraceData t;
  t.file = file;
  t.format = TraceFormat::torch_npu;
  t.process_names = {{kPython, "Python"}, {kCann, "CANN"}, {kHardware, "Ascend Hardware"}, {kHccl, "HCCL"}, {kOverlap, "Overlap Analysis"}};
  t.process_labels = {{kPython, "CPU"}, {kCann, "CPU"}, {kHardware, "NPU"}, {kHccl, "NPU"}, {kOverlap, "NPU"}};
  std::unordered_map<int64_t, uint32_t> sid;  // STRING_IDS id -> interned
  db.query("SELECT id, value FROM STRING_IDS", [&](sqlite3_stmt* st) {
    auto* v = reinterpret_cast<const char*>(sqlite3_column_text(st, 1));
    sid[sqlite3_column_int64(st, 0)] = t.strings.intern(v ? v : "");
  });
  auto str = [&](sqlite3_stmt* st, int c) -> uint32_t {
    if (sqlite3_column_type(st, c) == SQLITE_NULL) return 0;
    auto it = sid.find(sqlite3_column_int64(st, c));
    return it == sid.end() ? 0 : it->second;
  };
  auto push = [&](uint32_t name, uint32_t cat, int64_t s, int64_t e, int64_t pid, int64_t tid, uint32_t task, int64_t corr) {
    // Times beyond +-kMaxTimeNs (or a span longer than it) are not real: dropping them keeps every
    // later ts + dur and difference of ends inside int64, as the other readers do.
    auto in_range = [](int64_t v) { return v != kNone && v >= -kMaxTimeNs && v <= kMaxTimeNs; };
    if (!in_range(s) || !in_range(e) || e - s > kMaxTimeNs) {
      ++t.missing_fields;
      return;
    }
    if (e < s) {
      ++t.negative_durations;
      e = s;
    }
    t.name.push_back(name);
    t.cat.push_back(cat);
    t.shape.push_back(0);
    t.task_type.push_back(task);
    t.ts.push_back(s);
    t.dur.push_back(e - s);
    t.pid.push_back(pid);
    t.tid.push_back(tid);
    t.corr.push_back(corr);
    t.ext_id.push_back(kNone);
    t.bytes.push_back(kNone);
  };
  uint32_t cpu_op = t.strings.intern("cpu_op"), python = t.strings.intern("python_function"),
           queue = t.strings.intern("enqueue");
  // PYTORCH_API.type (ENUM_API_TYPE): 50001 op, 50002 queue, 50003 trace (Python functions).
  if (db.has_table("PYTORCH_API"))
    db.query("SELECT startNs, endNs, globalTid, name, type FROM PYTORCH_API", [&](sqlite3_stmt* st) {
      int64_t ty = sqlite3_column_int64(st, 4);
      uint32_t cat = ty == 50001 ? cpu_op : ty == 50003 ? python : queue;
      push(str(st, 3), cat, col_i64(st, 0), col_i64(st, 1), kPython, col_i64(st, 2), 0, kNone);
    });
  if (db.has_table("CANN_API"))
    db.query("SELECT startNs, endNs, globalTid, name, connectionId FROM CANN_API", [&](sqlite3_stmt* st) {
      push(str(st, 3), 0, col_i64(st, 0), col_i64(st, 1), kCann, col_i64(st, 2), 0, col_i64(st, 4));
    });
  // Device tasks; communication tasks are represented by COMMUNICATION_OP instead.
  std::string comm_filter = db.has_table("COMMUNICATION_TASK_INFO")
                                ? " WHERE t.globalTaskId NOT IN (SELECT globalTaskId FROM COMMUNICATION_TASK_INFO)" : "";
  bool has_info = db.has_table("COMPUTE_TASK_INFO");
  std::string sql = has_info ? "SELECT t.startNs, t.endNs, t.streamId, t.taskType, t.connectionId, c.name, c.taskType "
                               "FROM TASK t LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId"
                             : "SELECT t.startNs, t.endNs, t.streamId, t.taskType, t.connectionId, NULL, NULL FROM TASK t";
  db.query(sql + comm_filter, [&](sqlite3_stmt* st) {
    uint32_t task = str(st, 3), name = str(st, 5), info_type = str(st, 6);
    // Tasks without COMPUTE_TASK_INFO are copies (kept) or stream bookkeeping / comm (dropped).
    std::string_view tt = t.strings.view(task);
    if (!name && tt != "MEMCPY_ASYNC" && tt != "SDMA" && tt != "SDMA_SQE" && tt != "PCIE_DMA_SQE") return;
    push(name ? name : task, 0, col_i64(st, 0), col_i64(st, 1), kHardware, col_i64(st, 2), info_type ? info_type : task,
         col_i64(st, 4));
  });
  if (db.has_table("COMMUNICATION_OP"))
    db.query("SELECT startNs, endNs, opName, groupName FROM COMMUNICATION_OP", [&](sqlite3_stmt* st) {
      push(str(st, 2), 0, col_i64(st, 0), col_i64(st, 1), kHccl, 0, 0, kNone);
    });
  if (db.has_table("STEP_TIME"))
    db.query("SELECT id, startNs, endNs FROM STEP_TIME", [&](sqlite3_stmt* st) {
      push(t.strings.intern("ProfilerStep#" + std::to_string(sqlite3_column_int64(st, 0))), cpu_op, col_i64(st, 1),
           col_i64(st, 2), kPython, 0, 0, kNone);
    });
  // OVERLAP_ANALYSIS.type: 0 Computing, 1 Communication, 2 Communication(Not Overlapped), 3 Free
  // (the sums per type equal analysis.db StepTraceTime's computing / communication / ... columns).
  if (db.has_table("OVERLAP_ANALYSIS")) {
    const uint32_t names[4] = {t.strings.intern("Computing"), t.strings.intern("Communication"),
                               t.strings.intern("Communication(Not Overlapped)"), t.strings.intern("Free")};
    db.query("SELECT startNs, endNs, type FROM OVERLAP_ANALYSIS", [&](sqlite3_stmt* st) {
      int64_t ty = sqlite3_column_int64(st, 2);
      if (ty >= 0 && ty < 4) push(names[ty], 0, col_i64(st, 0), col_i64(st, 1), kOverlap, ty, 0, kNone);
    });
  }
  if (t.size() == 0) throw InputError(file, "profiler database holds no events");
  t.classify();
  return t;
}

}  // namespace banjia::trace
