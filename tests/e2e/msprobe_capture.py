"""One training step of a small network (Linear, LayerNorm, GELU, Linear, cross-entropy) on CPU,
dumped by the real msprobe (mindstudio-probe's PrecisionDebugger, level L1):

    python msprobe_capture.py OUT VARIANT TASK

VARIANT: fp32 (the reference), bf16 (bfloat16 autocast: noise only), bug_ln_eps (bfloat16 with the
LayerNorm's epsilon at 0.5: the planted bug). TASK: msprobe's tensor or statistics. Used by
tests/e2e/test_compare_msprobe_real.py and bench/msprobe_verdicts.py.
"""
import sys, torch, torch.nn as nn
from msprobe.pytorch import PrecisionDebugger
out, variant, task = sys.argv[1], sys.argv[2], sys.argv[3]
class Net(nn.Module):
    def __init__(self, eps):
        super().__init__()
        self.fc1, self.ln, self.act, self.fc2 = nn.Linear(16, 32), nn.LayerNorm(32, eps=eps), nn.GELU(), nn.Linear(32, 4)
    def forward(self, x):
        return self.fc2(self.act(self.ln(self.fc1(x))))
torch.manual_seed(0)
model = Net(0.5 if variant == "bug_ln_eps" else 1e-5)
x, y = torch.randn(8, 16), torch.randint(0, 4, (8,))
debugger = PrecisionDebugger(task=task, dump_path=out, level="L1")
debugger.start(model)
with torch.autocast("cpu", dtype=torch.bfloat16, enabled=variant != "fp32"):
    loss = nn.functional.cross_entropy(model(x), y)
loss.backward()
debugger.stop()
debugger.step()
