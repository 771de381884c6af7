#!/usr/bin/env python3
"""`banjia compare` vs msprobe's `compare` (PyPI mindstudio-probe) on the same dumps.

Every dump is first converted to msprobe's layout by bench/msprobe_convert.py (run in the peers'
venv: it needs torch): msprobe reads the copy whose tensors are `.pt` files, banjia the copy whose
tensors are `.npy` files; names, statistics and values are the same. Inputs: pairs of the H200
fixture dumps (tests/fixtures/gpu-h200/dumps), and a large synthetic pair (the fixture tensors
tiled to --numel elements, B = A with bf16-like noise) for speed; banjia is also timed on the
synthetic pair in its own layout (tensors.npz). Medians of several runs, interleaved.

Agreement, per pair:
- per-entry Cosine and MaxAbsErr, matched by row name (msprobe rounds Cosine above 0.9999 to 6
  decimals, so Cosine agrees within 5e-7);
- the first failing row under msprobe 26's two data rules, applied by each tool to its own numbers:
  an NPU (A) max or min that is nan/inf while the bench (B) is finite, or an output row whose
  One Thousandth Err Ratio is below 0.1 (msprobe's OneThousandthErrChecker with no input rows, as
  in module-level dumps). msprobe's own first `error` row (all its rules, dtype and shape checks
  included) is shown next to it.

    python bench/compare_bench.py --banjia build-release/src/banjia [--pairs 32] [--numel 4194304]
                                  [--runs 3] [--peer-runs 3] [--quick]
"""
import csv
import json
import math
import os
import pathlib
import tempfile

import numpy as np

import peerlib
from peerlib import median, run, table

DUMPS = peerlib.FIXTURES / "gpu-h200" / "dumps"
FIXTURE_PAIRS = [  # (A: the run under test, B: the reference)
    ("tinygpt_cuda_fp32_bug_ln_eps", "tinygpt_cuda_fp32"),
    ("tinygpt_cuda_fp16_overflow", "tinygpt_cuda_fp32_scaled_reference"),
    ("tinygpt_cuda_bf16amp", "tinygpt_cuda_fp32"),
    ("resnet18_cuda_fp16", "resnet18_cuda_fp32"),
    ("resnet18_cuda_bf16amp", "resnet18_cuda_fp32"),
    ("resnet18_cuda_fp16_overflow", "resnet18_cuda_fp32_scaled_reference"),
]
QUICK_PAIRS = FIXTURE_PAIRS[:2]
COSINE_TOLERANCE = 5e-7 + 1e-12


def synthesise(root: pathlib.Path, pairs: int, numel: int) -> int:
    """Two banjia dumps (index.json + uncompressed tensors.npz); returns bytes of A + B."""
    rng = np.random.default_rng(0)
    src = np.load(DUMPS / "tinygpt_cuda_fp32" / "tensors.npz")
    seeds = [src[k].astype(np.float32).ravel() for k in src.files[:8]]
    a, b = {}, {}
    for i in range(pairs):
        key = f"{i:04d}.layer{i}.forward.output"
        b[key] = np.resize(seeds[i % len(seeds)], numel)
        a[key] = (b[key] * (1 + rng.standard_normal(numel, dtype=np.float32) * 4e-3)).astype(np.float32)
    for name, arrays in (("syn_a", a), ("syn_b", b)):
        d = root / name
        d.mkdir()
        np.savez(d / "tensors.npz", **arrays)
        entries = [{"key": k, "module": k.split(".")[1], "type": "Synthetic", "dtype": "float32", "shape": [numel]}
                   for k in arrays]
        (d / "index.json").write_text(json.dumps({"run": name, "entries": entries}))
    return sum(v.nbytes for v in a.values()) + sum(v.nbytes for v in b.values())


def msprobe_rows(out_dir: pathlib.Path) -> list[dict]:
    results = sorted(out_dir.glob("compare_result_*.csv"))
    if not results:
        raise ValueError(f"no compare_result_*.csv in {out_dir}")
    with open(results[-1], newline="") as f:
        return list(csv.DictReader(f))


def number(text) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return math.nan


def nonfinite(text) -> bool:
    return str(text).strip().lower() in ("nan", "inf", "-inf", "infinity", "-infinity")


def first_message(text: str) -> str:
    """msprobe writes Err_message as a JSON list of messages."""
    try:
        messages = json.loads(text)
    except ValueError:
        return text
    return messages[0] if isinstance(messages, list) and messages else text


def first_failing(rows: list[tuple[str, bool, bool, float]]) -> str:
    """rows: (name, A max/min non-finite, B max/min non-finite, One Thousandth Err Ratio)."""
    for name, a_bad, b_bad, ratio in rows:
        if (a_bad and not b_bad) or (".output." in name and ratio < 0.1):
            return name
    return "none"


def agreement(ms: list[dict], bj: dict) -> dict:
    entries = {e["key"]: e for e in bj["entries"]}
    d_cos, d_abs, compared = 0.0, 0.0, 0
    for r in ms:
        e = entries.get(r["NPU Name"])
        if e is None:
            continue
        c, a = number(r["Cosine"]), number(r["MaxAbsErr"])
        if not math.isnan(c) and e["cosine"] is not None:
            d_cos = max(d_cos, abs(c - e["cosine"]))
            compared += 1
        if not math.isnan(a) and e["max_abs_err"] is not None:
            d_abs = max(d_abs, abs(a - e["max_abs_err"]) / max(abs(e["max_abs_err"]), 1e-30))
    ms_rule = first_failing([(r["NPU Name"], nonfinite(r["NPU max"]) or nonfinite(r["NPU min"]),
                              nonfinite(r["Bench max"]) or nonfinite(r["Bench min"]),
                              number(r["One Thousandth Err Ratio"])) for r in ms])
    bj_rule = first_failing([(e["key"], (e["nan_a"] or 0) + (e["inf_a"] or 0) > 0,
                              (e["nan_b"] or 0) + (e["inf_b"] or 0) > 0,
                              e["one_thousandth_err_ratio"] if e["one_thousandth_err_ratio"] is not None else math.nan)
                             for e in bj["entries"]])
    ms_error = next((r for r in ms if r["Result"] == "error"), None)
    return {"rows": len(ms), "compared": compared, "d_cos": d_cos, "d_abs": d_abs, "ms_rule": ms_rule,
            "bj_rule": bj_rule, "ms_error": ms_error}


def measure(a: pathlib.Path, b: pathlib.Path, banjia: str, runs: int, peer_runs: int, tmp: pathlib.Path,
            ms_ok: bool, rss_limit: float, timeout: float, native: tuple = ()):
    """Interleaved rounds: banjia on the npy copies, msprobe on the pt copies (and banjia on the
    native dumps when given). Returns runs per tool, banjia's JSON, msprobe's rows, msprobe failure."""
    out = tmp / "banjia.json"
    tools: dict[str, list] = {"banjia": [], "banjia_native": [], "msprobe": []}
    failure = ""
    ms_rows: list[dict] = []
    for i in range(max(runs, peer_runs)):
        if i < runs:
            r = run([banjia, "compare", a / "npy" / "dump.json", b / "npy" / "dump.json", "--format", "json", "-o", out])
            if r.rc not in (0, 1):
                raise SystemExit(f"banjia compare {a} {b}: {r.failure()}")
            tools["banjia"].append(r)
            if native:
                r = run([banjia, "compare", *native, "--format", "json", "-o", tmp / "native.json"])
                if r.rc not in (0, 1):
                    raise SystemExit(f"banjia compare {native}: {r.failure()}")
                tools["banjia_native"].append(r)
        if ms_ok and i < peer_runs and not failure:
            ms_out = tmp / f"msprobe_{a.name}_{i}"
            r = run([peerlib.PEER_PY.parent / "msprobe", "compare", "-tp", a / "pt" / "dump.json",
                     "-gp", b / "pt" / "dump.json", "-o", ms_out], cwd=tmp, rss_limit_mb=rss_limit, timeout=timeout)
            try:
                if not r.ok:
                    raise ValueError(r.failure())
                ms_rows = msprobe_rows(ms_out)
                tools["msprobe"].append(r)
            except ValueError as e:
                failure = str(e)
    return tools, json.loads(out.read_text()), ms_rows, failure


def convert(src: pathlib.Path, dst: pathlib.Path) -> str:
    if (dst / "pt" / "dump.json").exists():
        return ""
    r = run([peerlib.PEER_PY, peerlib.REPO / "bench" / "msprobe_convert.py", src, dst])
    return "" if r.ok else r.failure()


def main() -> None:
    ap = peerlib.argument_parser(__doc__, runs=3, peer_runs=3, quick_help="two fixture pairs", peer="msprobe")
    ap.add_argument("--pairs", type=int, default=32)
    ap.add_argument("--numel", type=int, default=4 << 20)
    args = ap.parse_args()
    ms_status = peerlib.peer_status("msprobe")
    rss_limit = float(os.environ.get("PEER_RSS_LIMIT_MB") or 0.75 * peerlib.mem_available_mb())
    print(f"msprobe (mindstudio-probe): {'installed' if ms_status == 'ok' else ms_status}; memory guard "
          f"{rss_limit:,.0f} MB; load average before {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"{os.cpu_count()} cores.")
    print()
    print("Measured commands: `banjia compare A/npy/dump.json B/npy/dump.json --format json -o FILE`; "
          "`msprobe compare -tp A/pt/dump.json -gp B/pt/dump.json -o DIR` (a CSV result); A and B written by "
          "`python bench/msprobe_convert.py DUMP OUT` from a banjia dump.")
    print()
    with tempfile.TemporaryDirectory(prefix="banjia_compare_bench_") as tmp_name:
        tmp = pathlib.Path(tmp_name)
        total = synthesise(tmp, args.pairs, args.numel)
        conv_err = convert(tmp / "syn_a", tmp / "ms_syn_a") or convert(tmp / "syn_b", tmp / "ms_syn_b")
        ms_ok = ms_status == "ok" and not conv_err
        if conv_err:
            print(f"msprobe_convert.py failed ({conv_err}): only banjia on its own layout is measured.")
            native = (tmp / "syn_a", tmp / "syn_b")
            r = [run([args.banjia, "compare", *native, "--format", "json", "-o", os.devnull]) for _ in range(args.runs)]
            print(f"banjia compare (tensors.npz): median {median([x.wall for x in r]):.3f} s")
            peerlib.glance("`compare`", "msprobe compare", f"synthetic dumps, {total / 1e9:.2f} GB of tensors",
                           f"{median([x.wall for x in r]):.2f} s", f"not measured: {conv_err}", "", "", "")
            return
        tools, bj, ms, failure = measure(tmp / "ms_syn_a", tmp / "ms_syn_b", args.banjia, args.runs, args.peer_runs,
                                         tmp, ms_ok, rss_limit, args.timeout, native=(tmp / "syn_a", tmp / "syn_b"))
        print(f"### Speed: {args.pairs} pairs x {args.numel:,} float32 elements, {total / 1e9:.2f} GB of tensor "
              "data (A + B), files in the page cache")
        print()
        names = {"banjia": "`banjia compare`, msprobe layout with `.npy` data",
                 "banjia_native": "`banjia compare`, banjia layout (`tensors.npz`, uncompressed)",
                 "msprobe": "`msprobe compare`, msprobe layout with `.pt` data"}
        print(table(["tool", "runs (s)", "median (s)", "tensor data", "CPU user+sys (median, s)", "peak RSS"],
                    [(names[k], peerlib.runs_text(rs), f"{median([r.wall for r in rs]):.2f}",
                      f"{total / median([r.wall for r in rs]) / 1e9:.2f} GB/s", f"{median([r.cpu for r in rs]):.2f}",
                      f"{max(r.rss_mb for r in rs):,.0f} MB") for k, rs in tools.items() if rs]))
        print()
        if tools["msprobe"]:
            ag = agreement(ms, bj)
            print(f"**msprobe / banjia (ratio of medians): "
                  f"{median([r.wall for r in tools['msprobe']]) / median([r.wall for r in tools['banjia']]):.1f}x** "
                  f"wall time; peak RSS {max(r.rss_mb for r in tools['msprobe']) / max(r.rss_mb for r in tools['banjia']):.1f}x. "
                  f"Per-entry Cosine: max difference {ag['d_cos']:.1e} over {ag['compared']} entries; MaxAbsErr: "
                  f"max relative difference {ag['d_abs']:.1e}.")
            b_med, m_med = median([r.wall for r in tools["banjia"]]), median([r.wall for r in tools["msprobe"]])
            glance = ["`compare`", "msprobe compare", f"synthetic dumps, {total / 1e9:.2f} GB of tensors",
                      f"{b_med:.2f} s", f"{m_med:.1f} s", f"{m_med / b_med:.0f}x",
                      f"{max(r.rss_mb for r in tools['banjia']):,.0f} / {max(r.rss_mb for r in tools['msprobe']):,.0f} MB",
                      f"per-entry Cosine: {'yes' if ag['d_cos'] <= COSINE_TOLERANCE else '**no**'}"]
        else:
            print(f"msprobe: no result ({failure or ms_status}).")
            glance = ["`compare`", "msprobe compare", f"synthetic dumps, {total / 1e9:.2f} GB of tensors",
                      f"{median([r.wall for r in tools['banjia']]):.2f} s", f"failed: {failure or ms_status}", "", "", ""]
        print()
        pairs = QUICK_PAIRS if args.quick else FIXTURE_PAIRS
        print(f"### Fixture pairs (`tests/fixtures/gpu-h200/dumps`; A = run under test, B = reference; "
              f"runs: banjia {args.runs}, msprobe {args.peer_runs} each)")
        print()
        rows = []
        for a_name, b_name in pairs:
            a, b = tmp / f"ms_{a_name}", tmp / f"ms_{b_name}"
            err = convert(DUMPS / a_name, a) or convert(DUMPS / b_name, b)
            if err:
                rows.append((f"`{a_name}` vs `{b_name}`", f"conversion failed: {err}") + ("",) * 7)
                continue
            tools, bj, ms, failure = measure(a, b, args.banjia, args.runs, args.peer_runs, tmp, ms_ok, rss_limit,
                                             args.timeout)
            bm = median([r.wall for r in tools["banjia"]])
            if not tools["msprobe"]:
                rows.append((f"`{a_name}` vs `{b_name}`", len(bj["entries"]), f"{bm * 1e3:.0f}", "—", "—", "—",
                             "—", f"msprobe failed: {failure or ms_status}", ""))
                continue
            ag = agreement(ms, bj)
            mm = median([r.wall for r in tools["msprobe"]])
            same = ag["ms_rule"] == ag["bj_rule"] and ag["d_cos"] <= COSINE_TOLERANCE
            err_row = ag["ms_error"]
            err_text = "none" if err_row is None else f"`{err_row['NPU Name']}`: {first_message(err_row['Err_message'])}"
            rows.append((f"`{a_name}` vs `{b_name}`", ag["rows"], f"{bm * 1e3:.0f}", f"{mm:.1f}", f"{mm / bm:.0f}x",
                         f"{ag['d_cos']:.1e} / {ag['d_abs']:.1e}",
                         f"`{ag['ms_rule']}`" + ("" if ag["ms_rule"] == ag["bj_rule"] else f" / banjia: `{ag['bj_rule']}`"),
                         "yes" if same else "**NO**", err_text))
        agreed = sum(row[7] == "yes" for row in rows)
        if glance[-1]:
            glance[-1] += f"; fixture pairs, Cosine and first failing row: {agreed} of {len(rows)}"
        peerlib.glance(*glance)
        print(table(["pair (A vs B)", "rows", "banjia median (ms)", "msprobe median (s)", "msprobe / banjia",
                     "max Δ Cosine / max rel. Δ MaxAbsErr", "first failing row (msprobe's data rules; same for both "
                     "unless noted)", "agree", "msprobe's first `error` row (all its rules)"], rows))


if __name__ == "__main__":
    main()
