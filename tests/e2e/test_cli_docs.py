"""docs/cli/*.md must be what tools/gen_cli_docs.py writes for this binary: one page per verb holding
the exact --help text of every command and subcommand."""
import pathlib
import re
import shutil
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
CLI_DOCS = REPO / "docs" / "cli"
GENERATOR = REPO / "tools" / "gen_cli_docs.py"


def generate(banjia_bin, out):
    r = subprocess.run([sys.executable, str(GENERATOR), "--banjia", banjia_bin, "--out", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return out


def differences(expected_dir, actual_dir):
    """Page names that are missing, extra or different in actual_dir compared with expected_dir."""
    expected = {p.name: p.read_text() for p in expected_dir.glob("*.md")}
    actual = {p.name: p.read_text() for p in actual_dir.glob("*.md")}
    return sorted(n for n in expected.keys() | actual.keys() if expected.get(n) != actual.get(n))


def test_docs_cli_is_current(banjia_bin, tmp_path):
    fresh = generate(banjia_bin, tmp_path / "cli")
    stale = differences(fresh, CLI_DOCS)
    assert not stale, (f"docs/cli is stale ({', '.join(stale)}): run "
                       f"`python tools/gen_cli_docs.py --banjia {banjia_bin}`")


def test_a_hand_edited_or_missing_page_is_caught(banjia_bin, tmp_path):
    fresh = generate(banjia_bin, tmp_path / "fresh")
    edited = tmp_path / "edited"
    shutil.copytree(fresh, edited)
    page = edited / "trace.md"
    page.write_text(page.read_text().replace("--top UINT=10", "--top UINT=20", 1))
    (edited / "bench.md").unlink()
    assert differences(fresh, edited) == ["bench.md", "trace.md"]


def help_of(banjia_bin, *path):
    r = subprocess.run(["banjia", *path, "--help"], executable=banjia_bin, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, (path, r.stderr)
    return r.stdout


def test_every_subcommand_help_is_on_its_verb_page(banjia_bin):
    # Walks the command tree from the binary itself, apart from the generator's own walk.
    verbs = re.findall(r"^  (\w+) ", help_of(banjia_bin).split("Subcommands:")[1], re.M)
    assert sorted(verbs) == sorted(p.stem for p in CLI_DOCS.glob("*.md") if p.stem != "banjia")
    for verb in verbs:
        page = (CLI_DOCS / f"{verb}.md").read_text()
        todo = [(verb,)]
        while todo:
            path = todo.pop()
            text = help_of(banjia_bin, *path)
            assert f"```text\n{text}```" in page, f"banjia {' '.join(path)} --help is not on {verb}.md"
            if "\nSubcommands:\n" in text:
                block = text.split("\nSubcommands:\n")[1].split("\n\n")[0]
                todo += [(*path, name) for name in re.findall(r"^  (\S+)", block, re.M)]


def test_links_to_topic_pages_resolve():
    for page in CLI_DOCS.glob("*.md"):
        for target, fragment in re.findall(r"\]\(\.\./([\w.-]+\.md)(?:#([\w-]+))?\)", page.read_text()):
            doc = REPO / "docs" / target
            assert doc.is_file(), (page.name, target)
            if fragment:
                headings = [l.lstrip("#").strip() for l in doc.read_text().splitlines() if l.startswith("#")]
                slugs = {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}
                assert fragment in slugs, (page.name, target, fragment)
