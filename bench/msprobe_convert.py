#!/usr/bin/env python3
"""Converts a banjia capture dump (index.json + tensors.npz) into msprobe's dump layout, so that
msprobe's `compare` and `banjia compare` read the same tensors under the same names.

msprobe's layout (its dump documentation, mstt debug/accuracy_tools/msprobe/docs/zh/dump/
pytorch_data_dump_instruct.md): a `dump.json` with `task`, `level`, `framework`,
`dump_data_dir` and `data`, one entry per call, plus `dump_tensor_data/` with one tensor per file,
named by the leaf's `data_name`. Module-level (L0) names:

    Module.<module path>.<class>.forward.<call count>   {"input_args": [], "input_kwargs": {},
                                                        "output": [leaf]}
    Module.<module path>.<class>.parameters_grad        {"<parameter name>": leaf}

A leaf holds type, dtype (`torch.float16`, ...), shape, Max/Min/Mean/Norm (torch.max/min/mean/norm
in the tensor's own dtype, msprobe's `precision="low"` default), requires_grad and data_name.

Two copies are written, identical but for the tensor file format:
    OUT/pt/dump.json  + dump_tensor_data/*.pt   torch.save of the tensor in its original dtype: what
                                                msprobe's PyTorch compare reads (it reads .pt only)
    OUT/npy/dump.json + dump_tensor_data/*.npy  float32 .npy (the layout of msprobe's MindSpore
                                                dumps): what banjia reads (it refuses .pt)
The original dtype is restored for .pt (the banjia dump stores bfloat16/float16 as float32, which
holds those values exactly), so both tools see the same numbers.

    python bench/msprobe_convert.py DUMP_DIR OUT_DIR        (needs torch and numpy)
"""
import json
import pathlib
import sys
from typing import Any

import numpy as np
import torch

DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
          "float64": torch.float64}


def stats(t: torch.Tensor) -> dict[str, Any]:
    # msprobe casts float64 and non-float tensors to float32 first, other floats keep their dtype.
    s = t if t.dtype in (torch.float16, torch.bfloat16, torch.float32) else t.float()
    if s.numel() == 0:
        return {"Max": None, "Min": None, "Mean": None, "Norm": None}
    return {"Max": s.max().item(), "Min": s.min().item(), "Mean": s.mean().item(), "Norm": s.norm().item()}


def msprobe_calls(index: dict[str, Any]) -> list[tuple[str, str, str, dict[str, Any]]]:
    """(call name, group, leaf name, banjia entry) in the dump's execution order; group is "output"
    for forward outputs and the parameter name for gradients."""
    entries = index["entries"]
    module_type = {e["module"]: e["type"] for e in entries if not e["key"].startswith("grad.")}
    calls: list[tuple[str, str, str, dict[str, Any]]] = []
    counts: dict[str, int] = {}
    for e in entries:
        if e["key"].startswith("grad."):
            owner, _, param = e["module"].rpartition(".")
            owner_type = module_type.get(owner, "Module")
            call = f"Module.{owner or 'model'}.{owner_type}.parameters_grad"
            calls.append((call, param, f"{call}.{param}", e))
        elif e["key"].endswith(".forward.output"):
            module = e["module"] or "model"
            stem = f"Module.{module}.{e['type']}.forward"
            n = counts.get(stem, 0)
            counts[stem] = n + 1
            call = f"{stem}.{n}"
            calls.append((call, "output", f"{call}.output.0", e))
        else:
            raise SystemExit(f"msprobe_convert: {e['key']}: only forward outputs and grad.* entries are converted")
    return calls


def convert(src: pathlib.Path, out: pathlib.Path) -> int:
    index = json.loads((src / "index.json").read_text())
    arrays = np.load(src / "tensors.npz")
    docs = {kind: {"task": "tensor", "level": "L0", "framework": "pytorch", "dump_data_dir": None, "data": {}}
            for kind in ("pt", "npy")}
    for kind in docs:
        (out / kind / "dump_tensor_data").mkdir(parents=True, exist_ok=True)
    for call, group, leaf_name, e in msprobe_calls(index):
        array = np.ascontiguousarray(arrays[e["key"]])
        tensor = torch.from_numpy(array).to(DTYPES.get(e["dtype"], torch.float32))
        torch.save(tensor.clone().contiguous(), out / "pt" / "dump_tensor_data" / f"{leaf_name}.pt")
        np.save(out / "npy" / "dump_tensor_data" / f"{leaf_name}.npy", array.astype(np.float32, copy=False))
        leaf = {"type": "torch.Tensor", "dtype": str(tensor.dtype), "shape": list(array.shape), **stats(tensor),
                "requires_grad": False}
        for kind, doc in docs.items():
            entry = doc["data"].setdefault(call, {} if group != "output" else
                                           {"input_args": [], "input_kwargs": {}, "output": []})
            item = dict(leaf, data_name=f"{leaf_name}.{kind}")
            if group == "output":
                entry["output"].append(item)
            else:
                entry[group] = item
    for kind, doc in docs.items():
        # msprobe writes dump.json with json.dump(indent=1); NaN/Infinity as bare tokens.
        (out / kind / "dump.json").write_text(json.dumps(doc, indent=1))
    return len(index["entries"])


def main() -> None:
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    n = convert(pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]))
    print(f"{sys.argv[2]}: {n} tensors in msprobe's layout (pt/ and npy/)")


if __name__ == "__main__":
    main()
