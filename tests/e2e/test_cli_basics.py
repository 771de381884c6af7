"""The CLI contract shared by every verb: help, version, usage errors."""
import os

DUMPS = "gpu-h200/dumps"


def test_help_lists_only_registered_verbs(run):
    r = run("--help")
    assert r.returncode == 0
    assert "Usage:" in r.stdout


def test_unknown_verb_is_a_usage_error(run):
    r = run("no-such-verb")
    assert r.returncode == 2
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and lines[0].startswith("banjia:")


def test_version(run):
    r = run("--version")
    assert r.returncode == 0
    assert r.stdout.strip().count(".") == 2


VERBS = ("scan", "migrate", "env", "trace", "compare", "bench")


def test_help_lists_every_verb(run):
    # `banjia VERB` registers only VERB (src/cli/verbs.cpp); anything else must still see all of them.
    r = run("--help")
    for verb in VERBS:
        assert f"\n  {verb} " in r.stdout, verb


def test_each_verb_has_its_own_help(run):
    for verb in VERBS:
        r = run(verb, "--help")
        assert r.returncode == 0, verb
        usage = r.stdout.splitlines()[1]
        assert usage.startswith("Usage: ") and f"banjia {verb} [OPTIONS]" in usage, (verb, usage)


def test_binary_does_not_link_libzip(banjia_bin):
    # libzip and the OpenSSL it links cost every start about a millisecond: compare/readers/libzip.cpp loads it
    # when an .npz is first read (the npz tests in test_compare_inputs.py cover that path).
    import shutil
    import subprocess

    import pytest

    if not shutil.which("readelf"):
        pytest.skip("readelf (binutils) not installed")
    dyn = subprocess.run(["readelf", "-d", banjia_bin], capture_output=True, text=True, check=True).stdout
    needed = [l for l in dyn.splitlines() if "(NEEDED)" in l]
    assert needed, dyn
    assert not [l for l in needed if "libzip" in l or "libcrypto" in l], needed


# Every verb that writes a report takes the same output flags (src/cli/output_flags.cpp).
REPORTING = [("scan",), ("env", "check"), ("env", "doctor"), ("trace", "summary"), ("trace", "compare"),
             ("trace", "ops"), ("compare",), ("bench", "compare")]


def test_reporting_verbs_share_the_output_flags(run):
    for path in REPORTING:
        text = run(*path, "--help").stdout
        for flag in ("-f,--format", "-o,--output FILE", "--fail-on TEXT:{error,warning,info,none}"):
            assert flag in text, (path, flag)
        assert "docs/cli/banjia.md" in text, path


def run_on_tty(banjia_bin, *args, env):
    """stdout of banjia run with its stdout on a pseudo-terminal."""
    import pty
    import subprocess

    leader, follower = pty.openpty()
    p = subprocess.Popen([banjia_bin, *map(str, args)], stdout=follower, stderr=subprocess.DEVNULL, env=env)
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    p.wait(timeout=60)
    return out.decode()


def test_auto_colour_is_for_a_terminal_without_no_color(banjia_bin, fixtures, tmp_path):
    script = tmp_path / "w.sh"
    script.write_text("export NPU_MEMCHECK=1\n")
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    dumps = fixtures / DUMPS
    for path in (("env", "check", script), ("compare", dumps / "resnet18_cuda_bf16amp", dumps / "resnet18_cuda_fp32")):
        assert "\x1b[" in run_on_tty(banjia_bin, *path, env=env), path
        assert "\x1b[" not in run_on_tty(banjia_bin, *path, env=dict(env, NO_COLOR="1")), path
        # no-color.org: an empty NO_COLOR is as if unset
        assert "\x1b[" in run_on_tty(banjia_bin, *path, env=dict(env, NO_COLOR="")), path
        assert "\x1b[" in run_on_tty(banjia_bin, *path, "--color", "always", env=dict(env, NO_COLOR="1")), path
        report = tmp_path / "report.txt"
        run_on_tty(banjia_bin, *path, "-o", report, env=env)
        assert report.read_text() and "\x1b[" not in report.read_text(), path


def test_trace_summary_csv_goes_to_the_output_file(run, fixtures, tmp_path):
    trace = fixtures / "gpu-h200/traces/antipattern_conv_in_loop_slow.json.gz"
    to_stdout = run("trace", "summary", trace, "-f", "csv")
    out = tmp_path / "steps.csv"
    to_file = run("trace", "summary", trace, "-f", "csv", "-o", out)
    assert to_stdout.returncode == to_file.returncode == 0
    assert to_file.stdout == "" and out.read_text() == to_stdout.stdout
    assert to_stdout.stdout.startswith("file,step,wall_us,")
