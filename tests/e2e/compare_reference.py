"""Independent numpy computation of the metrics `banjia compare` reports (msprobe's definitions,
torch.testing tolerances), used by the compare tests as expected values."""
import json

import numpy as np

EPS = np.finfo(float).eps
# torch.testing _DTYPE_PRECISIONS (rtol, atol)
TOL = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}


def tolerance(dtype_a, dtype_b):
    ra, aa = TOL.get(dtype_a, (0.0, 0.0))
    rb, ab = TOL.get(dtype_b, (0.0, 0.0))
    return max(ra, rb), max(aa, ab)


def metrics(a, b, rtol=0.0, atol=0.0):
    n = np.asarray(a, dtype=np.float64).reshape(-1)
    r = np.asarray(b, dtype=np.float64).reshape(-1)
    d = np.abs(n - r)
    zero = r == 0
    ne, be = np.where(zero, n + EPS, n), np.where(zero, EPS, r)
    rel = np.abs(ne - be) / np.abs(be)
    return {
        "cosine": float(n @ r / (np.linalg.norm(n) * np.linalg.norm(r))),
        "max_abs_err": float(d.max()),
        "max_rel_err": float(rel.max()),
        "rmse": float(np.sqrt(np.mean(d * d))),
        "mean_abs_err": float(d.mean()),
        "euc_dist": float(np.linalg.norm(n - r)),
        "rel_l2_err": float(np.linalg.norm(n - r) / np.linalg.norm(r)),
        "one_thousandth_err_ratio": float(np.mean(rel < 1e-3)),
        "five_thousandths_err_ratio": float(np.mean(rel < 5e-3)),
        "allclose_mismatch_fraction": float(np.mean(d > atol + rtol * np.abs(r))),
    }


def load_banjia(path):
    index = json.load(open(f"{path}/index.json"))
    return index, np.load(f"{path}/tensors.npz")
