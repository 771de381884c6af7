from torch import matmul as mul
from torch.nn.functional import (
    linear as lin)
import torch.nn.functional as F
for a in xs:
    c = mul(a, a) @ w
    y = lin(x, w); z = F.conv2d(x, k)
    total += y.item()
n = 0; while n < 3: n = x.cpu()
if a:
    for y in ys: pass
    v = loss.item()
ys = [y.tolist() for y in ys]
@staticmethod
def f(): return a @ b
