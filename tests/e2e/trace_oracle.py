"""Independent reference computations over Kineto JSON for the `banjia trace` tests.

Written directly from the definitions in docs/trace.md (HTA's temporal breakdown; a step owns the
device work its host launched), with plain Python and the json module; shares no code with banjia.
"""
import decimal
import gzip
import json
import statistics

DEVICE_CATS = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}
SYNC_NAMES = {"cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "hipStreamSynchronize",
              "hipDeviceSynchronize", "aten::_local_scalar_dense"}


def load(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f, parse_float=decimal.Decimal)  # exact decimal timestamps, as written
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def ns(v):
    """µs value (number, Decimal or string) -> integer ns, rounded half-up past the 3rd decimal."""
    d = decimal.Decimal(v.strip().strip('"').strip()) if isinstance(v, str) else decimal.Decimal(v)
    return int((d * 1000).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))


def union(intervals):
    total, cur = 0, None
    for s, e in sorted(intervals):
        if cur is None or s > cur[1]:
            if cur:
                total += cur[1] - cur[0]
            cur = [s, e]
        else:
            cur[1] = max(cur[1], e)
    if cur:
        total += cur[1] - cur[0]
    return total


def steps(events):
    st = {}
    for e in events:
        if e.get("ph") == "X" and e.get("name", "").startswith("ProfilerStep#") and e.get("cat") in (
                "user_annotation", "cpu_op", "Operator", None):
            if e["name"] not in st or ns(e["dur"]) > st[e["name"]][1] - st[e["name"]][0]:
                st[e["name"]] = (ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]))
    return sorted(((n, s, e) for n, (s, e) in st.items()), key=lambda x: x[1])


def step_index(step_list, t):
    idx = None
    for i, (_, s, _) in enumerate(step_list):
        if s <= t:
            idx = i
    if idx is not None and idx == len(step_list) - 1 and t > step_list[idx][2]:
        return None
    return idx


def per_step(events):
    """Per step: wall, compute, memory (ns), kernels, median kernel µs, syncs, H2D/D2H counts+bytes."""
    st = steps(events)
    runtime = {e["args"]["correlation"]: ns(e["ts"]) for e in events
               if e.get("cat") in ("cuda_runtime", "Runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    out = [dict(name=n, start=s, end=e, kern=[], mem=[], durs=[], syncs=0, h2d=0, h2d_bytes=0, d2h=0, d2h_bytes=0)
           for n, s, e in st]
    for e in events:
        if e.get("ph") != "X":
            continue
        cat = e.get("cat")
        if cat in DEVICE_CATS:
            corr = e.get("args", {}).get("correlation")
            launch = runtime.get(corr, ns(e["ts"]))
            i = step_index(st, launch)
            if i is None:
                continue
            s, d = ns(e["ts"]), ns(e["dur"])
            o = out[i]
            o["end"] = max(o["end"], s + d)
            if cat in ("kernel", "Kernel"):
                o["kern"].append((s, s + d))
                o["durs"].append(d / 1000)
            else:
                o["mem"].append((s, s + d))
                b = e.get("args", {}).get("bytes", 0)
                if "HtoD" in e["name"]:
                    o["h2d"] += 1
                    o["h2d_bytes"] += b
                if "DtoH" in e["name"]:
                    o["d2h"] += 1
                    o["d2h_bytes"] += b
        elif e.get("name") in SYNC_NAMES and cat in ("cuda_runtime", "cpu_op", "Runtime", "Operator"):
            i = step_index(st, ns(e["ts"]))
            if i is not None:
                out[i]["syncs"] += 1
    for o in out:
        compute = union(o["kern"])
        o["wall_us"] = (o["end"] - o["start"]) / 1000
        o["compute_us"] = compute / 1000
        o["memory_us"] = (union(o["kern"] + o["mem"]) - compute) / 1000
        o["kernels"] = len(o["durs"])
        o["median_us"] = statistics.median(o["durs"]) if o["durs"] else 0
    return out


def kernel_stats(events):
    durs = [ns(e["dur"]) / 1000 for e in events if e.get("ph") == "X" and e.get("cat") in ("kernel", "Kernel")]
    short = sum(1 for d in durs if d < 10) / len(durs) if durs else 0
    return len(durs), (statistics.median(durs) if durs else 0), short


def launch_delays(events):
    runtime = {e["args"]["correlation"]: ns(e["ts"]) for e in events
               if e.get("cat") in ("cuda_runtime", "Runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    out = []
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in ("kernel", "Kernel"):
            c = e.get("args", {}).get("correlation")
            if c in runtime and ns(e["ts"]) >= runtime[c]:
                out.append((ns(e["ts"]) - runtime[c]) / 1000)
    return out


def op_totals(events):
    """name -> (count, total µs) over host ops, excluding ProfilerStep# markers."""
    tot = {}
    for e in events:
        if e.get("ph") != "X" or e.get("cat", "cpu_op") not in ("cpu_op", "Operator", "user_annotation"):
            continue
        if e["name"].startswith("ProfilerStep#"):
            continue
        c, t = tot.get(e["name"], (0, 0))
        tot[e["name"]] = (c + 1, t + ns(e["dur"]))
    return {k: (c, t / 1000) for k, (c, t) in tot.items()}
