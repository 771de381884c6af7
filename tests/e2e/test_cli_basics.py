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
