#!/usr/bin/env python3
"""Checks x86-64 ELF files (executables or objects) for shared code compiled beyond baseline x86-64.

A function with a global or weak symbol can be shared: an inline function or template instance is
emitted as a weak copy in every object that uses it, and the linker keeps one copy for the whole
program. A copy compiled for AVX2 (a whole file given `-mavx2`, or a target pragma before its
includes) may be the one kept, and a CPU without AVX2 then stops with SIGILL outside the AVX2 paths.
So every global or weak function that uses an instruction beyond baseline x86-64 (SSE2) is reported,
except the ones made for those CPUs on purpose and called only after a CPU check: simdjson's
implementations (namespaces haswell, icelake, westmere) and banjia's parse_*_haswell. Functions local
to one object (static, anonymous namespace) cannot be taken by other code and are not reported.

`tzcnt` is not counted: compilers write `rep bsf` for a count of trailing zeros, which objdump shows
as tzcnt and which every x86-64 CPU runs.

Usage: check_baseline_isa.py FILE...   (objdump, nm and c++filt of GNU binutils)
An argument may be a CMake list (FILE;FILE...), as ctest passes $<TARGET_OBJECTS:...>.
Exits 0 when no such function is found, 1 when one is (each printed with its instructions), 2 on bad
input (a file that is missing or not an x86-64 ELF file).
"""
import os
import re
import subprocess
import sys

# Instructions beyond SSE2: VEX/EVEX (AVX, AVX2, AVX-512, FMA, F16C), BMI1/2, LZCNT, POPCNT, PCLMUL,
# SSE3, SSSE3, SSE4.1 and SSE4.2.
BEYOND_BASELINE = re.compile(
    r"^(v(?!err|erw)[a-z0-9]+|andn|bextr|blsi|blsmsk|blsr|bzhi|mulx|pdep|pext|rorx|sarx|shlx|shrx|lzcnt|popcnt"
    r"|pclmul[a-z]*|addsubp[sd]|hadd[ps][sd]|hsub[ps][sd]|lddqu|movddup|movs[hl]dup|pshufb|palignr|pabs[bwd]"
    r"|phadd(s?w|d)|phsub(s?w|d)|pmaddubsw|pmulhrsw|psign[bwd]|ptest|pblend(vb|w)|blendv?p[sd]|dpp[sd]"
    r"|insertps|extractps|pextr[bdq]|pinsr[bdq]|pm(ax|in)(s[bd]|u[wd])|pmov[sz]x[bwd][wdq]|pmuldq|pmulld"
    r"|packusdw|pcmp(eq|gt)q|round[ps][sd]|mpsadbw|phminposuw|movntdqa|pcmp[ei]str[im]|crc32)$")
# Made for AVX2 (or newer) CPUs on purpose, called only after a CPU check.
ALLOWED = re.compile(r"\b(haswell|icelake|westmere)\b|\bparse_\w*_haswell\b")


def run(tool: str, *args: str) -> str:
    r = subprocess.run([tool, *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise ValueError(r.stderr.strip().splitlines()[0] if r.stderr.strip() else f"{tool} exited {r.returncode}")
    return r.stdout


def shared_functions(path: str) -> set[str]:
    """Names (mangled) of the global and weak function symbols defined in `path`."""
    names: set[str] = set()
    for line in run("nm", "--defined-only", path).splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TWi":
            names.add(parts[2])
    return names


def offenders(path: str) -> dict[str, set[str]]:
    """{function: instructions beyond the baseline} of the shared functions of `path`, allowed ones left out."""
    header = run("objdump", "-f", path)
    if "x86-64" not in header:
        raise ValueError("not an x86-64 ELF file")
    shared = shared_functions(path)
    found: dict[str, set[str]] = {}
    current: str | None = None
    for line in run("objdump", "-d", "--no-show-raw-insn", path).splitlines():
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            current = m.group(1) if m.group(1) in shared else None
            continue
        fields = line.split("\t")
        if current is None or len(fields) < 2 or not fields[1].split():
            continue
        mnemonic = fields[1].split()[0]
        if BEYOND_BASELINE.match(mnemonic):
            found.setdefault(current, set()).add(mnemonic)
    if not found:
        return {}
    demangled = run("c++filt", *found).splitlines()
    return {d: found[m] for m, d in zip(found, demangled) if not ALLOWED.search(d)}


def main(argv: list[str]) -> int:
    paths = [p for arg in argv for p in arg.split(";") if p]
    if not paths:
        print("usage: check_baseline_isa.py FILE...", file=sys.stderr)
        return 2
    bad = 0
    for path in paths:
        if not os.path.isfile(path):
            print(f"check_baseline_isa: {path}: no such file", file=sys.stderr)
            return 2
        try:
            found = offenders(path)
        except ValueError as e:
            print(f"check_baseline_isa: {path}: {e}", file=sys.stderr)
            return 2
        for name, mnemonics in sorted(found.items()):
            print(f"{path}: {name}: {' '.join(sorted(mnemonics))}")
        bad += len(found)
    if bad:
        print(f"check_baseline_isa: {bad} shared function(s) compiled beyond baseline x86-64", file=sys.stderr)
        return 1
    print(f"check_baseline_isa: {len(paths)} file(s): no shared function beyond baseline x86-64")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
