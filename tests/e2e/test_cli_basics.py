"""The CLI contract shared by every verb: help, version, usage errors."""


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
    # `banjia VERB` registers only VERB (src/main.cpp); anything else must still see all of them.
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
    # libzip and the OpenSSL it links cost every start about a millisecond: compare/libzip.cpp loads it
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
