"""torch_npu's kernels on npu against references written here from torch_npu's documentation.

The attention reference works row by row: for each batch, head and query row it lists the keys the
mask lets through (index comparisons spelled from the doc's sparse_mode descriptions), takes the
softmax of their scaled scores and sums the values; forward and gradients are compared. Literal
mask tables pin the sparse modes independently of any formula. Prints "ok NAME" per check, exits 1
on the first miss.
"""
import math
import warnings

import torch
import torch_npu
from torch.testing import assert_close

from banjia.npu_sim import stats

NPU = torch.device("npu")
generator = torch.Generator().manual_seed(0)
CAUSAL_2048 = torch.triu(torch.ones(2048, 2048, dtype=torch.bool), diagonal=1)


def rand(*shape):
    return torch.randn(*shape, generator=generator)


def counted(call):
    """Runs call and checks that its work reached the simulator as npu ops."""
    before = stats.COUNTS.npu_ops
    result = call()
    assert stats.COUNTS.npu_ops > before, "no npu op counted"
    return result


def expect_error(kind, words, call):
    try:
        call()
    except kind as error:
        assert all(word in str(error) for word in words), (kind, words, str(error))
        return
    raise AssertionError(f"{call} did not raise {kind.__name__}")


# ---------------------------------------------------------------------------------------------
# npu_fusion_attention


def reference_attention(q, k, v, scale, allowed):
    """q [B, N, Sq, D], k/v [B, Nkv, Skv, D]; allowed(b, n, i, j) says whether query row i sees key j.
    Query head n reads key/value head n // (N / Nkv). Returns out [B, N, Sq, Dv], row max, row sum."""
    batch, heads, q_len, _ = q.shape
    kv_heads, kv_len = k.shape[1], k.shape[2]
    outs, maxes, sums = [], [], []
    for b in range(batch):
        for n in range(heads):
            kv = n // (heads // kv_heads)
            for i in range(q_len):
                keys = [j for j in range(kv_len) if allowed(b, n, i, j)]
                if not keys:  # a row without keys: 0 out, max -inf, sum 0
                    outs.append(v.new_zeros(v.shape[-1]))
                    maxes.append(-math.inf)
                    sums.append(0.0)
                    continue
                scores = torch.stack([q[b, n, i] @ k[b, kv, j] for j in keys]) * scale
                top = scores.max()
                weights = torch.exp(scores - top.detach())
                probs = weights / weights.sum()
                outs.append(sum(probs[t] * v[b, kv, j] for t, j in enumerate(keys)))
                maxes.append(top.item())
                sums.append(weights.sum().item())
    shape = (batch, heads, q_len)
    return (torch.stack(outs).reshape(*shape, v.shape[-1]), torch.tensor(maxes, dtype=torch.float64).reshape(shape),
            torch.tensor(sums, dtype=torch.float64).reshape(shape))


def to_layout(t, layout):
    """[B, N, S, D] in the given layout, spelled out per layout."""
    batch, heads, seq, dim = t.shape
    if layout == "BNSD":
        return t.contiguous()
    if layout == "BSND":
        return t.permute(0, 2, 1, 3).contiguous()
    if layout == "BSH":
        return t.permute(0, 2, 1, 3).reshape(batch, seq, heads * dim)
    assert layout == "SBH"
    return t.permute(2, 0, 1, 3).reshape(seq, batch, heads * dim)


def everything(b, n, i, j):
    return True


def tolerance(dtype):
    return {"rtol": 1e-4, "atol": 1e-5} if dtype == torch.float32 else {"rtol": 2e-2, "atol": 2e-2}


def check_attention(name, layout, shape, allowed, dtype=torch.float32, **kwargs):
    batch, heads, kv_heads, q_len, kv_len, dim = shape
    base = [rand(batch, heads, q_len, dim), rand(batch, kv_heads, kv_len, dim), rand(batch, kv_heads, kv_len, dim)]
    leaves = [t.to(dtype).double().requires_grad_() for t in base]
    scale = kwargs.get("scale", 1.0)
    ref_out, ref_max, ref_sum = reference_attention(*leaves, scale, allowed)
    grad_out = rand(batch, heads, q_len, dim).to(dtype).double()
    (ref_out * grad_out).sum().backward()

    inputs = [to_layout(t.detach(), layout).to(dtype).to(NPU).requires_grad_() for t in leaves]
    result = counted(lambda: torch_npu.npu_fusion_attention(*inputs, heads, layout, **kwargs))
    out, softmax_max, softmax_sum, softmax_out, _, _, numels = result
    (out * to_layout(grad_out, layout).to(dtype).to(NPU)).sum().backward()
    assert out.device.type == "npu" and out.dtype == dtype
    assert_close(out.cpu().double(), to_layout(ref_out.detach(), layout), **tolerance(dtype))
    for leaf, given in zip(leaves, inputs):
        assert_close(given.grad.cpu().double(), to_layout(leaf.grad, layout), **tolerance(dtype))
    assert softmax_max.shape == softmax_sum.shape == (batch, heads, q_len, 8)
    assert softmax_max.dtype == softmax_sum.dtype == torch.float32
    assert torch.equal(softmax_max.cpu(), softmax_max.cpu()[..., :1].expand(-1, -1, -1, 8))
    assert_close(softmax_max.cpu()[..., 0].double(), ref_max, **tolerance(dtype))
    assert_close(softmax_sum.cpu()[..., 0].double(), ref_sum, **tolerance(dtype))
    assert softmax_out.numel() == 0 and numels == batch * heads * q_len * kv_len
    print("ok", name)


for layout in ("BSH", "SBH", "BSND", "BNSD"):
    check_attention(f"attention {layout}", layout, (2, 2, 2, 5, 7, 4), everything, scale=0.3)
    check_attention(f"attention GQA {layout}", layout, (2, 4, 2, 3, 6, 4), everything, scale=0.5)
check_attention("attention MQA", "BSH", (1, 4, 1, 4, 4, 4), everything)
check_attention("attention bfloat16", "BNSD", (1, 2, 2, 6, 6, 8), everything, dtype=torch.bfloat16, scale=0.35)
check_attention("attention float16 causal", "BSND", (1, 2, 1, 5, 5, 8), lambda b, n, i, j: j <= i,
                dtype=torch.float16, atten_mask=CAUSAL_2048.to(NPU), sparse_mode=3)

# sparse_mode 0: the given mask, and the band of pre_tockens/next_tockens from the top-left corner.
for mask_shape in [(2, 2), (1, 1), (2, 1), ()]:
    user = torch.rand(*mask_shape, 5, 8, generator=generator) < 0.25
    index = lambda b, n: user[(b if mask_shape[0] == 2 else 0, n if mask_shape[1] == 2 else 0)] if mask_shape else user
    check_attention(f"sparse_mode 0 mask {mask_shape or 'SS'} with band", "BNSD", (2, 2, 2, 5, 8, 4),
                    lambda b, n, i, j: not index(b, n)[i, j] and j - i <= 1 and i - j <= 2,
                    atten_mask=user.to(NPU), pre_tockens=2, next_tockens=1, scale=0.4)
negative = torch.zeros(6, 6, dtype=torch.uint8)
check_attention("sparse_mode 0 uint8 mask, next_tockens < 0", "BSH", (1, 2, 2, 6, 6, 4),
                lambda b, n, i, j: j - i <= -1 and i - j <= 3, atten_mask=negative.to(NPU), pre_tockens=3,
                next_tockens=-1)
user = torch.rand(2, 1, 4, 6, generator=generator) < 0.4
check_attention("sparse_mode 1 (pre/next ignored)", "BSND", (2, 2, 1, 4, 6, 4), lambda b, n, i, j: not user[b, 0, i, j],
                atten_mask=user.to(NPU), sparse_mode=1, pre_tockens=0, next_tockens=0)

# sparse_mode 2 aligns the causal diagonal with the top-left corner, 3 with the bottom-right one:
# with Sq != Skv they differ; with Sq > Skv mode 3 has rows without keys.
for q_len, kv_len in ((4, 7), (7, 4)):
    check_attention(f"sparse_mode 2 Sq={q_len} Skv={kv_len}", "BSH", (1, 2, 2, q_len, kv_len, 4),
                    lambda b, n, i, j: j <= i, atten_mask=CAUSAL_2048.to(NPU), sparse_mode=2, scale=0.5)
    check_attention(f"sparse_mode 3 Sq={q_len} Skv={kv_len}", "BSH", (1, 2, 2, q_len, kv_len, 4),
                    lambda b, n, i, j, shift=kv_len - q_len: j <= i + shift,
                    atten_mask=CAUSAL_2048.to(NPU), sparse_mode=3, scale=0.5)
check_attention("sparse_mode 4 band from the bottom-right", "SBH", (2, 2, 2, 5, 8, 4),
                lambda b, n, i, j: -2 <= j - i - 3 <= 1, atten_mask=CAUSAL_2048.to(NPU), sparse_mode=4,
                pre_tockens=2, next_tockens=1)


def mask_table(q_len, kv_len, **kwargs):
    """Which keys each query row sees, read off the output: zero queries give equal scores, so with
    the identity as values each row is 1/count on its keys and 0 elsewhere."""
    q = torch.zeros(1, 1, q_len, kv_len, device=NPU)
    v = torch.eye(kv_len).reshape(1, 1, kv_len, kv_len).to(NPU)
    out = torch_npu.npu_fusion_attention(q, q.new_zeros(1, 1, kv_len, kv_len), v, 1, "BNSD", **kwargs)[0]
    return (out[0, 0].cpu() > 0).int().tolist()


compressed = dict(atten_mask=CAUSAL_2048.to(NPU))
assert mask_table(3, 5, sparse_mode=2, **compressed) == [[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 1, 1, 0, 0]]
assert mask_table(3, 5, sparse_mode=3, **compressed) == [[1, 1, 1, 0, 0], [1, 1, 1, 1, 0], [1, 1, 1, 1, 1]]
assert mask_table(5, 3, sparse_mode=3, **compressed) == [[0, 0, 0], [0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]]
assert mask_table(3, 5, sparse_mode=4, pre_tockens=1, next_tockens=0, **compressed) == [
    [0, 1, 1, 0, 0], [0, 0, 1, 1, 0], [0, 0, 0, 1, 1]]
assert mask_table(3, 5, atten_mask=torch.zeros(3, 5, dtype=torch.bool, device=NPU), pre_tockens=1,
                  next_tockens=0) == [[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [0, 1, 1, 0, 0]]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    assert mask_table(2, 3, sparse_mode=3) == [[1, 1, 1], [1, 1, 1]]  # no atten_mask: full computation
assert any("ignores sparse_mode" in str(w.message) for w in caught)
print("ok literal sparse masks")


def check_varlen(name, heads, kv_heads, q_lens, kv_lens, allowed_for, trailing=0, **kwargs):
    """TND: q_lens/kv_lens per sequence; allowed_for(q_len, kv_len) gives the sequence's rule."""
    dim, total_q, total_kv = 4, sum(q_lens), sum(kv_lens)
    base = [rand(total_q, heads, dim), rand(total_kv, kv_heads, dim), rand(total_kv, kv_heads, dim)]
    leaves = [t.double().requires_grad_() for t in base]
    outs, maxes, sums, q_at, kv_at = [], [], [], 0, 0
    for q_len, kv_len in zip(q_lens, kv_lens):
        q, k, v = (t[a:a + n].permute(1, 0, 2).unsqueeze(0)
                   for t, a, n in ((leaves[0], q_at, q_len), (leaves[1], kv_at, kv_len), (leaves[2], kv_at, kv_len)))
        out, row_max, row_sum = reference_attention(q, k, v, kwargs.get("scale", 1.0), allowed_for(q_len, kv_len))
        outs.append(out[0].permute(1, 0, 2))
        maxes.append(row_max[0].T)
        sums.append(row_sum[0].T)
        q_at, kv_at = q_at + q_len, kv_at + kv_len
    ref_out = torch.cat(outs)
    grad_out = rand(*ref_out.shape).double()
    (ref_out * grad_out).sum().backward()

    ends = lambda lens: [sum(lens[:i + 1]) for i in range(len(lens))] + [0] * trailing
    inputs = [t.detach().float().to(NPU).requires_grad_() for t in leaves]
    out, softmax_max, softmax_sum, _, _, _, numels = counted(lambda: torch_npu.npu_fusion_attention(
        *inputs, heads, "TND", actual_seq_qlen=ends(q_lens), actual_seq_kvlen=ends(kv_lens), **kwargs))
    (out * grad_out.float().to(NPU)).sum().backward()
    assert_close(out.cpu().double(), ref_out.detach(), rtol=1e-4, atol=1e-5)
    for leaf, given in zip(leaves, inputs):
        assert_close(given.grad.cpu().double(), leaf.grad, rtol=1e-4, atol=1e-5)
    assert softmax_max.shape == (total_q, heads, 8)
    assert_close(softmax_max.cpu()[..., 0].double(), torch.cat(maxes), rtol=1e-4, atol=1e-5)
    assert_close(softmax_sum.cpu()[..., 7].double(), torch.cat(sums), rtol=1e-4, atol=1e-5)
    assert numels == heads * sum(a * b for a, b in zip(q_lens, kv_lens))
    print("ok", name)


def rule(test):
    return lambda q_len, kv_len: lambda b, n, i, j: test(i, j, q_len, kv_len)


lens = ([3, 1, 4], [2, 5, 4])
check_varlen("TND full", 2, 2, *lens, rule(lambda i, j, sq, skv: True), scale=0.5)
check_varlen("TND GQA sparse_mode 2", 4, 2, *lens, rule(lambda i, j, sq, skv: j <= i), atten_mask=CAUSAL_2048.to(NPU),
             sparse_mode=2)
check_varlen("TND sparse_mode 3", 2, 1, *lens, rule(lambda i, j, sq, skv: j <= i + skv - sq),
             atten_mask=CAUSAL_2048.to(NPU), sparse_mode=3, trailing=2)
check_varlen("TND sparse_mode 4", 2, 2, [4, 2], [6, 3], rule(lambda i, j, sq, skv: -1 <= j - i - (skv - sq) <= 0),
             atten_mask=CAUSAL_2048.to(NPU), sparse_mode=4, pre_tockens=1, next_tockens=0)
ss = torch.rand(4, 5, generator=generator) < 0.3  # SS of (max Sq, max Skv)
check_varlen("TND sparse_mode 0 SS mask with band", 2, 2, *lens,
             rule(lambda i, j, sq, skv: not ss[i, j] and j - i <= 2 and i - j <= 1),
             atten_mask=ss.to(NPU), pre_tockens=1, next_tockens=2)

# Dropout: keep_prob=1 is exact (above) and deterministic; keep_prob < 1 keeps that share of the
# probabilities scaled by 1/keep_prob, and backward drops the same ones.
q = torch.randn(1, 2, 4, 4, device=NPU)
first, second = (torch_npu.npu_fusion_attention(q, q, q, 2, "BNSD", keep_prob=1.0)[0] for _ in range(2))
assert torch.equal(first.cpu(), second.cpu())
torch.manual_seed(0)
keep, side = 0.7, 64
v = torch.eye(side).expand(2, 2, side, side).contiguous().to(NPU).requires_grad_()
zeros = torch.zeros(2, 2, side, side, device=NPU)  # equal scores: each probability is 1/side
out = torch_npu.npu_fusion_attention(zeros, zeros, v, 2, "BNSD", keep_prob=keep)[0]
kept = (out.detach().cpu() * side * keep).round()
assert set(kept.unique().tolist()) <= {0.0, 1.0}
assert abs((kept == 0).float().mean().item() - (1 - keep)) < 0.02
assert abs((out.detach().cpu() * side).mean().item() - 1.0) < 0.03
out.sum().backward()
assert_close(v.grad.cpu()[..., 0], out.detach().cpu().sum(2))  # dV[j] = sum_i P_dropped[i, j] with V = I, dO = 1
print("ok dropout")

# What the simulator does not provide, or torch_npu refuses.
q = torch.randn(1, 2, 3, 4, device=NPU)
fa = torch_npu.npu_fusion_attention
expect_error(NotImplementedError, ["pse", "not provided by the simulator"],
             lambda: fa(q, q, q, 2, "BNSD", pse=torch.zeros(1, 2, 3, 3, device=NPU)))
expect_error(NotImplementedError, ["padding_mask"], lambda: fa(q, q, q, 2, "BNSD", padding_mask=q))
expect_error(NotImplementedError, ["prefix"], lambda: fa(q, q, q, 2, "BNSD", prefix=[1]))
for mode in (5, 6):
    expect_error(NotImplementedError, [f"sparse_mode {mode}"], lambda: fa(q, q, q, 2, "BNSD", sparse_mode=mode))
tnd = torch.randn(3, 2, 4, device=NPU)
for mode in (7, 8):
    expect_error(NotImplementedError, [f"sparse_mode {mode}"], lambda: fa(tnd, tnd, tnd, 2, "TND", sparse_mode=mode,
                                                                          actual_seq_qlen=[3], actual_seq_kvlen=[3]))
expect_error(RuntimeError, ["sparse_mode 9"], lambda: fa(q, q, q, 2, "BNSD", sparse_mode=9))
expect_error(RuntimeError, ["sparse_mode 5"], lambda: fa(tnd, tnd, tnd, 2, "TND", sparse_mode=5))
expect_error(RuntimeError, ["input_layout 'BSHN'"], lambda: fa(q, q, q, 2, "BSHN"))
expect_error(RuntimeError, ["actual_seq_qlen"], lambda: fa(tnd, tnd, tnd, 2, "TND"))
small_causal = torch.ones(3, 3, dtype=torch.bool).triu(1).to(NPU)
expect_error(ValueError, ["compressed causal mask"],
             lambda: fa(q, q, q, 2, "BNSD", sparse_mode=3, atten_mask=small_causal))
three_dims = torch.zeros(2, 3, 3, dtype=torch.bool, device=NPU)
expect_error(RuntimeError, ["atten_mask shape"], lambda: fa(q, q, q, 2, "BNSD", atten_mask=three_dims))
expect_error(RuntimeError, ["head_num 3"], lambda: fa(q, q, q, 3, "BNSD"))
expect_error(RuntimeError, ["npu tensors only"], lambda: fa(q.cpu(), q.cpu(), q.cpu(), 2, "BNSD"))
expect_error(RuntimeError, ["torch.float64"], lambda: fa(q.double(), q.double(), q.double(), 2, "BNSD"))
assert fa(q, q, q, 2, "bnsd")[0].shape == (1, 2, 3, 4)  # the layout in any case, as torch_npu
print("ok attention refusals")

# torch_npu's fused kernels have no autocast policy: inside autocast they compute in their inputs' dtype.
x, gamma = torch.randn(4, 8, device=NPU), torch.randn(8, device=NPU)
plain = [fa(q, q, q, 2, "BNSD")[0], torch_npu.npu_rms_norm(x, gamma)[0], torch_npu.npu_swiglu(x),
         torch_npu.npu_rotary_mul(q, q[:, :1], q[:, :1])]
with torch.autocast("npu", dtype=torch.float16):
    autocast = [fa(q, q, q, 2, "BNSD")[0], torch_npu.npu_rms_norm(x, gamma)[0], torch_npu.npu_swiglu(x),
                torch_npu.npu_rotary_mul(q, q[:, :1], q[:, :1])]
for outside, inside in zip(plain, autocast):
    assert inside.dtype == torch.float32 and torch.equal(outside.cpu(), inside.cpu())
print("ok outside autocast")

# ---------------------------------------------------------------------------------------------
# npu_rms_norm: y = x / sqrt(mean(x^2) + eps) * gamma over gamma's dimensions; rstd float32 with
# those dimensions kept as 1.


def check_rms_norm(name, x_shape, gamma_shape, dtype=torch.float32, gamma_dtype=None, eps=1e-6):
    x = rand(*x_shape).to(dtype).double().requires_grad_()
    gamma = (1 + rand(*gamma_shape)).to(gamma_dtype or dtype).double().requires_grad_()
    rows = x.reshape(-1, gamma.numel())
    rstd = torch.stack([1 / torch.sqrt(sum(value * value for value in row) / gamma.numel() + eps) for row in rows])
    ref_y = (rows * rstd[:, None] * gamma.reshape(1, -1)).reshape(x_shape)
    grad_y = rand(*x_shape).double()
    (ref_y * grad_y).sum().backward()
    x_npu = x.detach().to(dtype).to(NPU).requires_grad_()
    gamma_npu = gamma.detach().to(gamma_dtype or dtype).to(NPU).requires_grad_()
    y, rstd_npu = counted(lambda: torch_npu.npu_rms_norm(x_npu, gamma_npu, epsilon=eps))
    (y * grad_y.to(dtype).to(NPU)).sum().backward()
    kept = tuple(x_shape[:len(x_shape) - len(gamma_shape)]) + (1,) * len(gamma_shape)
    assert y.dtype == dtype and rstd_npu.dtype == torch.float32 and rstd_npu.shape == kept
    assert_close(y.cpu().double(), ref_y.detach(), **tolerance(dtype))
    assert_close(rstd_npu.cpu().double(), rstd.detach().reshape(kept), **tolerance(dtype))
    assert_close(x_npu.grad.cpu().double(), x.grad, **tolerance(dtype))
    assert_close(gamma_npu.grad.cpu().double(), gamma.grad, **tolerance(dtype))
    print("ok", name)


check_rms_norm("rms_norm last dimension", (2, 3, 8), (8,))
check_rms_norm("rms_norm two dimensions", (2, 3, 8), (3, 8), eps=1e-3)
check_rms_norm("rms_norm float16 with float32 gamma", (4, 16), (16,), dtype=torch.float16, gamma_dtype=torch.float32)
expect_error(RuntimeError, ["gamma shape"], lambda: torch_npu.npu_rms_norm(torch.ones(2, 3, device=NPU),
                                                                          torch.ones(2, device=NPU)))

# ---------------------------------------------------------------------------------------------
# npu_rotary_mul: x * r1 + rotate(x) * r2; 'half' rotates the two halves of the last dimension
# (cat(-x2, x1)), 'interleave' the pairs (x[2k], x[2k+1]) -> (-x[2k+1], x[2k]).


def rotated(x, mode):
    dim = x.shape[-1]
    columns = []
    for d in range(dim):
        if mode == "half":
            columns.append(-x[..., d + dim // 2] if d < dim // 2 else x[..., d - dim // 2])
        else:
            columns.append(-x[..., d + 1] if d % 2 == 0 else x[..., d - 1])
    return torch.stack(columns, dim=-1)


def check_rotary(name, x_shape, r_shape, mode):
    x = rand(*x_shape).double().requires_grad_()
    angles = rand(*r_shape).double()
    r1, r2 = angles.cos().requires_grad_(), angles.sin().requires_grad_()
    ref = x * r1 + rotated(x, mode) * r2
    grad = rand(*x_shape).double()
    (ref * grad).sum().backward()
    given = [t.detach().float().to(NPU).requires_grad_() for t in (x, r1, r2)]
    out = counted(lambda: torch_npu.npu_rotary_mul(*given, rotary_mode=mode) if mode != "half"
                  else torch_npu.npu_rotary_mul(*given))
    (out * grad.float().to(NPU)).sum().backward()
    assert_close(out.cpu().double(), ref.detach(), rtol=1e-5, atol=1e-6)
    for leaf, npu in zip((x, r1, r2), given):
        assert_close(npu.grad.cpu().double(), leaf.grad, rtol=1e-5, atol=1e-5)
    print("ok", name)


check_rotary("rotary_mul half BNSD", (2, 3, 5, 8), (1, 1, 5, 8), "half")
check_rotary("rotary_mul interleave BSND", (2, 5, 3, 8), (1, 5, 1, 8), "interleave")
check_rotary("rotary_mul half 3-d", (5, 3, 4), (5, 1, 4), "half")
half_matrix = torch.zeros(8, 8)  # the doc's get_half_matrix: x @ M = cat(-x2, x1)
half_matrix[:4, 4:] = torch.eye(4)
half_matrix[4:, :4] = -torch.eye(4)
x, r1, r2 = rand(2, 2, 3, 8), rand(1, 1, 3, 8), rand(1, 1, 3, 8)
with_matrix = torch_npu.npu_rotary_mul(x.to(NPU), r1.to(NPU), r2.to(NPU), "half", half_matrix.to(NPU))
assert_close(with_matrix.cpu(), x * r1 + rotated(x, "half") * r2)
expect_error(RuntimeError, ["backward"], lambda: torch_npu.npu_rotary_mul(
    x.to(NPU).requires_grad_(), r1.to(NPU), r2.to(NPU), "half", half_matrix.to(NPU)))
expect_error(NotImplementedError, ["quarter", "not provided by the simulator"],
             lambda: torch_npu.npu_rotary_mul(x.to(NPU), r1.to(NPU), r2.to(NPU), "quarter"))
print("ok rotary_mul rotate matrix and refusals")

# ---------------------------------------------------------------------------------------------
# npu_swiglu: A * sigmoid(A) * B with A the first half along dim and B the second.


def check_swiglu(name, shape, dim):
    x = rand(*shape).double().requires_grad_()
    half = shape[dim] // 2
    a, b = x.narrow(dim, 0, half), x.narrow(dim, half, half)
    ref = a / (1 + torch.exp(-a)) * b
    grad = rand(*ref.shape).double()
    (ref * grad).sum().backward()
    given = x.detach().float().to(NPU).requires_grad_()
    out = counted(lambda: torch_npu.npu_swiglu(given, dim=dim))
    (out * grad.float().to(NPU)).sum().backward()
    assert_close(out.cpu().double(), ref.detach(), rtol=1e-5, atol=1e-6)
    assert_close(given.grad.cpu().double(), x.grad, rtol=1e-5, atol=1e-6)
    print("ok", name)


check_swiglu("swiglu last dimension", (2, 3, 6), -1)
check_swiglu("swiglu dim 1", (2, 4, 3), 1)
one_two = torch_npu.npu_swiglu(torch.tensor([1.0, 2.0], device=NPU))  # A = 1 is gated: 1 * sigmoid(1) * 2
assert abs(one_two.item() - 2 / (1 + math.exp(-1))) < 1e-6
expect_error(RuntimeError, ["even size"], lambda: torch_npu.npu_swiglu(torch.ones(3, device=NPU)))
print("ok swiglu first half gated")

# ---------------------------------------------------------------------------------------------
# Anything else of torch_npu stays unprovided.
expect_error(AttributeError, ["npu_incre_flash_attention", "not provided by the simulator"],
             lambda: torch_npu.npu_incre_flash_attention)
print("ok unknown attribute")
