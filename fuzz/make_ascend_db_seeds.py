#!/usr/bin/env python3
"""Seeds for fuzz_ascend_db: small excerpts of the real torch_npu SQLite export in tests/fixtures
(the tables read_ascend_db reads, a few rows each, 512-byte pages, rollback journal), small enough for
the harness's max_len. Run from the repository root with any Python 3:

    .venv/bin/python fuzz/make_ascend_db_seeds.py
"""
import pathlib
import sqlite3

ROOT = pathlib.Path(__file__).resolve().parent.parent
SRC = ROOT / "tests/fixtures/ascend/msinsight/db/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db"
OUT = ROOT / "fuzz/corpus/ascend_db"
TABLES = ["STRING_IDS", "TASK", "COMPUTE_TASK_INFO", "COMMUNICATION_TASK_INFO", "COMMUNICATION_OP", "CANN_API",
          "PYTORCH_API", "STEP_TIME", "OVERLAP_ANALYSIS"]


def excerpt(dest, tables, rows):
    dest.unlink(missing_ok=True)
    src = sqlite3.connect(f"file:{SRC}?immutable=1", uri=True)
    out = sqlite3.connect(dest)
    out.execute("PRAGMA page_size=512")
    for t in tables:
        (sql,) = src.execute("SELECT sql FROM sqlite_master WHERE type='table' AND name=?", (t,)).fetchone()
        out.execute(sql)
        picked = src.execute(f'SELECT * FROM "{t}" LIMIT ?', (rows,)).fetchall()
        if t == "STRING_IDS":  # every name the other excerpts refer to, not just the first rows
            picked = src.execute('SELECT * FROM STRING_IDS').fetchall()[: rows * 4]
        if picked:
            out.executemany(f'INSERT INTO "{t}" VALUES ({",".join("?" * len(picked[0]))})', picked)
    out.commit()
    out.execute("VACUUM")
    out.close()
    print(dest, dest.stat().st_size, "bytes")


OUT.mkdir(parents=True, exist_ok=True)
excerpt(OUT / "all_tables.db", TABLES, 6)
excerpt(OUT / "task_only.db", ["STRING_IDS", "TASK", "COMPUTE_TASK_INFO"], 10)
