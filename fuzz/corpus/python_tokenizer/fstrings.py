# -*- coding: utf-8 -*-
import torch as th, torch.cuda as tc
from torch.cuda.amp import autocast as ac
from . import x
x = f"{th.cuda.device_count()!r:>{w}} {'a' 'b'} {x=}" rf'\d{y}' b'\x00' '''tri
ple''' 0x_1 1_000.5e-3j
def f(a, *b, device="cuda", **kw):
    if a: import y; th.cuda.synchronize()
    return [i async for i in g] \
        + (lambda: ac(enabled=True))()
class C: pass
