"""End-to-end test: environment variables set from Python end as `banjia env translate` translates the
same settings in a shell script (one table, data/env); the shell translation is the oracle.
"""
import re

SETTINGS = [
    ("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True,backend:cudaMallocAsync"),
    ("NCCL_DETERMINISTIC", "1"),
    ("CUDA_VISIBLE_DEVICES", "0,1"),
    ("TORCH_NCCL_BLOCKING_WAIT", "1"),
]


def test_python_environment_matches_env_translate(run, tmp_path):
    shell = tmp_path / "run.sh"
    shell.write_text("".join(f"export {n}={v}\n" for n, v in SETTINGS))
    translated = run("env", "translate", shell)
    assert translated.returncode == 0, translated.stderr
    want = dict(re.findall(r"^export (\w+)=(\S*)$", translated.stdout, re.M))
    py = tmp_path / "src" / "launch.py"
    py.parent.mkdir()
    py.write_text("import os, subprocess\n"
                  + "".join(f'os.environ["{n}"] = "{v}"\n' for n, v in SETTINGS[:2])
                  + "env = os.environ.copy()\n"
                  + "".join(f'env["{n}"] = "{v}"\n' for n, v in SETTINGS[2:])
                  + "subprocess.run(['python', 'train.py'], env=env)\n")
    out = tmp_path / "out"
    r = run("migrate", py.parent, "-o", out)
    assert r.returncode == 0, r.stderr
    got = dict(re.findall(r'^(?:os\.environ|env)\["(\w+)"\] = "([^"]*)"$', (out / "launch.py").read_text(), re.M))
    assert got == want
