#!/usr/bin/env python3
"""Overhead of banjia.capture(mode="stats") against a plain forward+backward step, on CPU.

Models shaped like the fixture dumps' (tests/fixtures/gpu-h200/dumps): a 2-layer GPT with d=128
on 2x32 tokens, and a ResNet-18-style CNN (torchvision is not installed here, so the basic blocks are
written out) on 2x3x32x32. The captured step includes everything capture does: hooks, device-side
statistics, the single host transfer and writing index.json. Medians over --steps steps after warm-up.
"no sketch" is stats mode with sketch=False: the count sketches (banjia._sketch) cost a cast, a
multiplication and an index_add_ per tensor, which on a CPU's small tensors is mostly per-op overhead.

No peer is measured here: msprobe's dump (PrecisionDebugger) targets NPU runs.

    .venv/bin/python bench/compare_capture_overhead.py [--steps 30]
"""
import argparse
import pathlib
import statistics
import sys
import tempfile
import time

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
import banjia  # noqa: E402


class Block(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.qkv, self.proj = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
        self.fc1, self.fc2 = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)

    def forward(self, x):
        q, k, v = self.qkv(self.ln1(x)).chunk(3, dim=-1)
        att = torch.softmax(q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5, dim=-1)
        x = x + self.proj(att @ v)
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.ln2(x))))


class TinyGPT(torch.nn.Module):
    def __init__(self, vocab=1024, d=128, t=32, layers=2):
        super().__init__()
        self.tok, self.pos = torch.nn.Embedding(vocab, d), torch.nn.Embedding(t, d)
        self.blocks = torch.nn.Sequential(*[Block(d) for _ in range(layers)])
        self.ln_f, self.head = torch.nn.LayerNorm(d), torch.nn.Linear(d, vocab)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1]))
        return self.head(self.ln_f(self.blocks(x)))


class Basic(torch.nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(cout)
        self.relu = torch.nn.ReLU(inplace=True)
        self.conv2 = torch.nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = torch.nn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = torch.nn.Sequential(torch.nn.Conv2d(cin, cout, 1, stride, bias=False),
                                                  torch.nn.BatchNorm2d(cout))

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + (self.downsample(x) if self.downsample is not None else x))


class ResNet18(torch.nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1, self.relu = torch.nn.BatchNorm2d(64), torch.nn.ReLU(inplace=True)
        self.maxpool = torch.nn.MaxPool2d(3, 2, 1)
        widths, layers, cin = [64, 128, 256, 512], [], 64
        for i, w in enumerate(widths):
            layers.append(torch.nn.Sequential(Basic(cin, w, 1 if i == 0 else 2), Basic(w, w, 1)))
            cin = w
        self.layer1, self.layer2, self.layer3, self.layer4 = layers
        self.avgpool, self.fc = torch.nn.AdaptiveAvgPool2d(1), torch.nn.Linear(512, classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def step(model, x, y):
    model.zero_grad(set_to_none=True)
    out = model(x)
    loss = torch.nn.functional.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))
    loss.backward()


def median_time(fn, steps, warmup=3):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=30)
    args = ap.parse_args()
    torch.manual_seed(0)
    cases = [("tinygpt", TinyGPT(), torch.randint(0, 1024, (2, 32)), torch.randint(0, 1024, (2, 32))),
             ("resnet18", ResNet18(), torch.randn(2, 3, 32, 32), torch.randint(0, 10, (2,)))]
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, CPU")
    print(f"{'model':<10} {'plain ms':>9} {'stats ms':>9} {'no sketch':>10} {'tensors ms':>11} {'stats/plain':>12} "
          f"{'tensors/plain':>14}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, model, x, y in cases:
            plain = median_time(lambda: step(model, x, y), args.steps)

            def captured(mode, sketch=True):
                with banjia.capture(model, pathlib.Path(tmp) / f"{name}_{mode}", mode=mode, sketch=sketch):
                    step(model, x, y)

            stats = median_time(lambda: captured("stats"), args.steps)
            unsketched = median_time(lambda: captured("stats", sketch=False), args.steps)
            tensors = median_time(lambda: captured("tensors"), args.steps)
            print(f"{name:<10} {plain * 1e3:>9.2f} {stats * 1e3:>9.2f} {unsketched * 1e3:>10.2f} {tensors * 1e3:>11.2f} "
                  f"{stats / plain:>11.2f}x {tensors / plain:>13.2f}x")


if __name__ == "__main__":
    main()
