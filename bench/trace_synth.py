#!/usr/bin/env python3
"""Synthesise a large Kineto trace by replicating a real fixture's events (for the trace benchmarks).

Each copy is shifted in time past the previous one; correlation ids, External ids and flow ids are
offset so launches still pair with their kernels, and ProfilerStep#N markers are renumbered, so the
result is a valid multi-step trace of the same shape as the original.

    python bench/trace_synth.py tests/fixtures/gpu-h200/traces/resnet50_fp32.json.gz /tmp/big.json 1000
"""
import gzip
import json
import sys


def main():
    src, dst, target_mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
    with gzip.open(src, "rt") as f:
        doc = json.load(f)
    events = doc.pop("traceEvents")
    timed = [e for e in events if e.get("ph") != "M" and isinstance(e.get("ts"), (int, float))]
    meta = [e for e in events if e.get("ph") == "M"]
    t0 = min(e["ts"] for e in timed)
    span = max(e["ts"] + e.get("dur", 0) for e in timed) - t0 + 1000.0
    header = json.dumps(doc)[:-1] + ', "traceEvents": [\n'
    target = int(target_mb * 1e6)
    written = 0
    copy = 0
    with open(dst, "w") as out:
        out.write(header)
        out.write(",\n".join(json.dumps(e) for e in meta))
        written += len(header)
        while written < target:
            shift = copy * span
            ids = copy * 10_000_000
            chunk = []
            for e in timed:
                e = dict(e)
                e["ts"] = round(e["ts"] + shift, 3)
                if "id" in e and isinstance(e["id"], int):
                    e["id"] += ids
                if e.get("name", "").startswith("ProfilerStep#"):
                    e["name"] = "ProfilerStep#%d" % (int(e["name"][13:]) + copy * 100)
                args = e.get("args")
                if args:
                    args = dict(args)
                    for k in ("correlation", "External id"):
                        if isinstance(args.get(k), int):
                            args[k] += ids
                    e["args"] = args
                chunk.append(json.dumps(e))
            text = ",\n" + ",\n".join(chunk)
            out.write(text)
            written += len(text)
            copy += 1
        out.write("\n]}\n")
    print("%s: %d copies, %.1f MB" % (dst, copy, written / 1e6))


if __name__ == "__main__":
    main()
