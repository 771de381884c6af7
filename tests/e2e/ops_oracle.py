"""An independent join of a Kineto trace's aten op calls with data/ops and data/dispatch, written from
docs/ops.md's rules over the raw JSON (json + tomllib), to check `banjia trace ops` against."""
from __future__ import annotations

import gzip
import json
import pathlib
import tomllib
from collections import defaultdict
from decimal import Decimal

REPO = pathlib.Path(__file__).resolve().parents[2]
HOST_CATS = {"cpu_op", "Operator", "operator"}
STEP_CATS = HOST_CATS | {"user_annotation"}
# Kineto's "Input type" strings (C++ type names) -> the dtype names data/ops uses.
KINETO_DTYPES = {
    "float": "fp32", "double": "fp64", "c10::Half": "fp16", "c10::BFloat16": "bf16",
    "c10::complex<float>": "complex64", "c10::complex<double>": "complex128", "long int": "int64",
    "int": "int32", "short int": "int16", "signed char": "int8", "unsigned char": "uint8", "bool": "bool",
}
OWNING = {"npu_kernel", "dtype_unsupported", "fallback", "no_npu_kernel"}
OFF_NPU = {"dtype_unsupported", "fallback", "no_npu_kernel"}


class Data:
    def __init__(self, version: str = "master"):
        ops = tomllib.loads((REPO / "data" / "ops" / f"torch_npu-{version}.toml").read_text())
        self.kernels = set(ops["native"]["supported"])
        for key in ("op_api", "acl_op", "op_api_and_acl_op"):
            self.kernels |= set(ops["aten"][key])
        self.ai_cpu = set(ops["fallback"]["ai_cpu_marked_ops"])
        self.dense_fallback = ops["fallback"]["unlisted_dense_ops_run_on_cpu"]
        self.limits = {}
        for api, args in ops.get("docs", {}).get("dtype_limits", {}).items():
            for arg in ("input", "self"):
                if args.get(arg):
                    self.limits[api] = set(args[arg])
                    break
        dispatch = sorted((REPO / "data" / "dispatch").glob("torch-*.toml"))[-1]
        comp = tomllib.loads(dispatch.read_text())["composite"]
        self.composite = set()
        for key in ("implicit", "explicit", "explicit_non_functional"):
            for name in comp[key]:
                if "." in name and name.split(".", 1)[1].endswith("out"):
                    continue  # generated out= variants say nothing of the functional op
                self.composite.add(name)

    @staticmethod
    def _of(names, base):
        return sorted(n for n in names if n.split(".", 1)[0] == base)

    def judge(self, base: str, path_may_differ: bool, first_dtype: str | None) -> str:
        if self._of(self.ai_cpu, base):
            return "fallback"
        if not self._of(self.kernels, base):
            if self._of(self.composite, base):
                return "composite"
            if path_may_differ:
                return "unknown"
            return "fallback" if self.dense_fallback else "no_npu_kernel"
        if first_dtype:
            api = base.rstrip("_") or base
            for candidate in (f"torch.{api}", f"torch.nn.functional.{api}"):
                if candidate in self.limits:
                    return "npu_kernel" if first_dtype in self.limits[candidate] else "dtype_unsupported"
        return "npu_kernel"


def load_events(path: pathlib.Path) -> list[dict]:
    raw = gzip.open(path, "rb").read() if str(path).endswith(".gz") else path.read_bytes()
    doc = json.loads(raw, parse_float=Decimal)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    out = []
    for e in events:
        if e.get("ph") != "X" or "ts" not in e or "dur" not in e:
            continue
        e = dict(e)
        e["ts_ns"] = int(Decimal(e["ts"]) * 1000)
        e["dur_ns"] = max(0, int(Decimal(e["dur"]) * 1000))
        e["idx"] = len(out)
        out.append(e)
    return out


def dtypes_of(e) -> list[str]:
    return [KINETO_DTYPES.get(t, "") if isinstance(t, str) else "" for t in e.get("args", {}).get("Input type", [])]


def base_of(name: str) -> str:
    return name[len("aten::"):].split(".", 1)[0] if name.startswith("aten::") else ""


def walk(threads, data: Data, not_run_alone: set[str]):
    calls = []
    for ops in threads.values():
        stack = []  # (event, call index or None, nearest aten call index, owner call index)
        for e in ops:
            end = e["ts_ns"] + e["dur_ns"]
            while stack and stack[-1][0]["ts_ns"] + stack[-1][0]["dur_ns"] <= e["ts_ns"]:
                stack.pop()
            parent = stack[-1] if stack and end <= stack[-1][0]["ts_ns"] + stack[-1][0]["dur_ns"] else (None, None, None, None)
            if parent[1] is not None:
                calls[parent[1]]["self_ns"] -= e["dur_ns"]
            me = [e, None, parent[2], parent[3]]
            base = base_of(e["name"])
            if base:
                call = {"e": e, "self_ns": e["dur_ns"], "owner": parent[3]}
                if parent[3] is not None:
                    owner_status = calls[parent[3]]["status"]
                    call["status"] = owner_status if owner_status in ("fallback", "no_npu_kernel") else "inside_npu_kernel"
                else:
                    caller = calls[parent[2]]["status"] if parent[2] is not None else None
                    forward = base[: -len("_backward")] if base.endswith("_backward") else None
                    differ = caller in ("composite", "unknown") or (forward is not None and forward in not_run_alone)
                    first = next((d for d in dtypes_of(e) if d), None)
                    call["status"] = data.judge(base, differ, first)
                    if call["status"] in OWNING:
                        me[3] = len(calls)
                me[1] = me[2] = len(calls)
                calls.append(call)
            stack.append(tuple(me))
    return calls


def coverage(path: pathlib.Path, data: Data) -> dict:
    events = load_events(path)
    threads = defaultdict(list)
    for e in events:
        if e.get("cat") in HOST_CATS and not e["name"].startswith("ProfilerStep#"):
            threads[(str(e["pid"]), str(e["tid"]))].append(e)
    for ops in threads.values():
        ops.sort(key=lambda e: (e["ts_ns"], -e["dur_ns"], e["idx"]))
    not_run_alone: set[str] = set()
    for _ in range(3):
        calls = walk(threads, data, not_run_alone)
        seen = {base_of(c["e"]["name"]) for c in calls}
        alone = {base_of(c["e"]["name"]) for c in calls if c["owner"] is None and c["status"] != "unknown"}
        if seen - alone == not_run_alone:
            break
        not_run_alone = seen - alone

    steps = {}
    for e in events:
        if e.get("cat") in STEP_CATS and e["name"].startswith("ProfilerStep#"):
            if e["name"] not in steps or e["dur_ns"] > steps[e["name"]]["dur_ns"]:
                steps[e["name"]] = e
    windows = [(s["ts_ns"], s["ts_ns"] + s["dur_ns"]) for s in steps.values()]
    if windows:
        step_ns = sum(b - a for a, b in windows)
    else:
        step_ns = max(e["ts_ns"] + e["dur_ns"] for e in events) - min(e["ts_ns"] for e in events)

    rows = {}
    for c in calls:
        e = c["e"]
        if windows and not any(a <= e["ts_ns"] < b for a, b in windows):
            continue
        r = rows.setdefault((e["name"], c["status"]), {"calls": 0, "own_calls": 0, "self_ns": 0, "dtypes": set()})
        r["calls"] += 1
        r["own_calls"] += c["owner"] is None
        r["self_ns"] += max(0, c["self_ns"])
        r["dtypes"] |= {d for d in dtypes_of(e) if d}
    off_names = {name for (name, status), r in rows.items() if status in OFF_NPU and r["own_calls"]}
    off_ns = sum(r["self_ns"] for (name, status), r in rows.items() if status in OFF_NPU)
    return {"rows": rows, "step_ns": step_ns, "steps": len(windows), "ops_off_npu": len(off_names),
            "share_off_npu": off_ns / step_ns}
