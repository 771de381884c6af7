"""docs/rules: one page per scan rule, `banjia scan --explain RULE`, and SARIF's links to the pages.

The rules are read independently with tomllib from data/rules/*.toml; the committed pages are
compared with what tools/gen_rule_docs.py writes from the binary under test.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tomllib
import urllib.parse
import urllib.request

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
RULE_DOCS = REPO / "docs" / "rules"
GENERATOR = REPO / "tools" / "gen_rule_docs.py"


def toml_rules():
    rules = []
    for f in sorted((REPO / "data" / "rules").glob("*.toml")):
        rules += tomllib.loads(f.read_text(encoding="utf-8"))["rule"]
    return rules


RULES = toml_rules()
IDS = [r["id"] for r in RULES]


def generate(banjia_bin, out_dir):
    r = subprocess.run([sys.executable, str(GENERATOR), "--banjia", banjia_bin, str(out_dir)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return pages_under(out_dir)


def pages_under(directory):
    """{path relative to directory: content} of every page, the families' subdirectories included."""
    return {p.relative_to(directory).as_posix(): p.read_text(encoding="utf-8") for p in directory.rglob("*.md")}


def differences(committed_dir, generated):
    committed = pages_under(committed_dir)
    return {
        "missing": sorted(set(generated) - set(committed)),
        "extra": sorted(set(committed) - set(generated)),
        "stale": sorted(n for n in set(generated) & set(committed) if generated[n] != committed[n]),
    }


def test_committed_pages_are_what_the_generator_writes(banjia_bin, tmp_path):
    generated = generate(banjia_bin, tmp_path / "rules")
    diff = differences(RULE_DOCS, generated)
    assert diff == {"missing": [], "extra": [], "stale": []}, \
        f"docs/rules is out of date: run tools/gen_rule_docs.py --banjia {banjia_bin}"


def test_a_hand_edited_missing_or_extra_page_is_reported(banjia_bin, tmp_path):
    generated = generate(banjia_bin, tmp_path / "generated")
    edited = tmp_path / "edited"
    shutil.copytree(tmp_path / "generated", edited)
    page = edited / f"{IDS[0]}.md"
    page.write_text(page.read_text(encoding="utf-8") + "hand edit\n", encoding="utf-8")
    (edited / f"{IDS[1]}.md").unlink()
    (edited / "no-such-rule.md").write_text("# no-such-rule\n", encoding="utf-8")
    assert differences(edited, generated) == {
        "missing": [f"{IDS[1]}.md"], "extra": ["no-such-rule.md"], "stale": [f"{IDS[0]}.md"]}


def test_every_rule_has_a_page_and_an_index_row():
    assert {p.stem for p in RULE_DOCS.glob("*.md")} == set(IDS) | {"README"}
    index = (RULE_DOCS / "README.md").read_text(encoding="utf-8")
    for r in RULES:
        assert f"| [{r['id']}]({r['id']}.md) | `{r['category']}` | `{r['fix']}` |" in index


# The other families (data file, table key, the command that explains a rule) and their pages.
FAMILIES = {"trace": ("data/trace/advisors.toml", "rule", ("trace", "summary", "--explain")),
            "env": ("data/env/cross_rules.toml", "cross_rule", ("env", "check", "--explain"))}


@pytest.mark.parametrize("family", FAMILIES)
def test_every_rule_of_a_family_has_a_page_with_its_facts(run, family):
    data, key, explain = FAMILIES[family]
    rules = tomllib.loads((REPO / data).read_text(encoding="utf-8"))[key]
    assert {p.stem for p in (RULE_DOCS / family).glob("*.md")} == {r["id"] for r in rules} | {"README"}
    index = (RULE_DOCS / family / "README.md").read_text(encoding="utf-8")
    assert f"({family}/README.md)" in (RULE_DOCS / "README.md").read_text(encoding="utf-8")
    for r in rules:
        assert f"| [{r['id']}]({r['id']}.md) | `{r['severity']}` |" in index
        page = run(*explain, r["id"]).stdout
        assert page.splitlines()[0] == f"# {r['id']}"
        assert f"| Severity | `{r['severity']}` |" in page
        assert r["source"] in page
        assert r.get("message", r.get("summary")) in page
        example = r["example"]
        assert example.get("evidence", example.get("script")) in page


@pytest.mark.parametrize("family", FAMILIES)
def test_explain_of_an_unknown_rule_of_a_family_fails(run, family):
    r = run(*FAMILIES[family][2], "no-such-rule")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("banjia: no-such-rule: no such ")


# The fence language of an example's file (example.py unless the example names another).
FENCE_LANGUAGES = {".py": "python", ".txt": "text", ".toml": "toml", ".cu": "cpp", ".cpp": "cpp", ".json": "json",
                   ".yaml": "yaml", ".yml": "yaml"}


def fenced(text, file="example.py"):
    language = FENCE_LANGUAGES[os.path.splitext(file)[1]]
    return language + "\n" + text + ("" if text.endswith("\n") else "\n") + "```"


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_explain_shows_the_rule_as_written_in_the_toml(run, rule):
    r = run("scan", "--explain", rule["id"])
    assert r.returncode == 0, r.stderr
    page = r.stdout
    assert page.splitlines()[0] == f"# {rule['id']}"
    assert f"| Category | `{rule['category']}` |" in page
    assert f"| Fix | `{rule['fix']}` |" in page
    assert f"| Severity | `{rule['severity']}` |" in page
    assert rule["message"] in page
    assert (rule.get("summary") or rule["message"]) in page
    forms = [rule] + list(rule.get("target", {}).values())
    for name in rule.get("target", {}):
        assert f"## Target `{name}`" in page
    for form in forms:
        if "replacement" in form:
            assert form["replacement"] in page
        for example in form.get("example", []):
            file = example.get("file", "example.py")
            assert fenced(example["before"], file) in page
            if "after" in example:
                assert fenced(example["after"], file) in page


def edit_distance(a, b):
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def test_explain_of_an_unknown_rule_suggests_the_nearest(run):
    typo = "tensor-cuda-cal"
    nearest = min(IDS, key=lambda i: edit_distance(typo, i))
    r = run("scan", "--explain", typo)
    assert r.returncode == 2
    assert r.stdout == ""
    assert r.stderr == f"banjia: {typo}: no such rule (did you mean {nearest}?)\n"
    r = run("scan", "--explain", "zzzzzzzz")
    assert (r.returncode, r.stderr) == (2, "banjia: zzzzzzzz: no such rule\n")


def sarif_rules(banjia_bin, tmp_path):
    src = tmp_path / "train.py"
    src.write_text("import torch\ntorch.cuda.synchronize()\nx = torch.zeros(1).cuda()\n", encoding="utf-8")
    r = subprocess.run([banjia_bin, "scan", str(src), "--format", "sarif", "--fail-on", "none"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["runs"][0]["tool"]["driver"]["rules"]


def page_of(uri):
    parsed = urllib.parse.urlparse(uri)
    assert parsed.scheme == "file" and parsed.netloc == ""
    path = pathlib.Path(urllib.request.url2pathname(parsed.path))
    assert path.is_absolute()
    return path


def test_sarif_rules_link_their_pages(banjia_bin, tmp_path):
    # The pages installed with the binary (a wheel or `cmake --install`: bin/../share/doc/banjia),
    # else, for a binary run from its build tree, this source tree's.
    installed = pathlib.Path(banjia_bin).resolve().parent.parent / "share" / "doc" / "banjia" / "docs" / "rules"
    docs = installed if installed.is_dir() else RULE_DOCS
    rules = sarif_rules(banjia_bin, tmp_path)
    assert {r["id"] for r in rules} == set(IDS)
    for rule in rules:
        path = page_of(rule["helpUri"])
        assert path == (docs / f"{rule['id']}.md").resolve()
        page = path.read_text(encoding="utf-8")
        assert page == (RULE_DOCS / f"{rule['id']}.md").read_text(encoding="utf-8")
        assert page.splitlines()[0] == f"# {rule['id']}"
        assert rule["help"]["markdown"] == page
        assert rule["help"]["text"].strip()


def test_sarif_of_an_installed_binary_links_the_installed_pages(banjia_bin, tmp_path):
    # The layout `cmake --install` writes: bin/banjia and share/doc/banjia/docs/rules/<id>.md.
    prefix = tmp_path / "prefix"
    (prefix / "bin").mkdir(parents=True)
    installed = prefix / "bin" / "banjia"
    shutil.copy2(banjia_bin, installed)
    # Away from its build tree and without installed pages, a rule has no helpUri at all.
    rules = sarif_rules(str(installed), tmp_path)
    assert rules and all("helpUri" not in r for r in rules)
    docs = prefix / "share" / "doc" / "banjia" / "docs" / "rules"
    shutil.copytree(RULE_DOCS, docs)
    for rule in sarif_rules(str(installed), tmp_path):
        assert page_of(rule["helpUri"]) == (docs / f"{rule['id']}.md").resolve()
