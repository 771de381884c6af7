"""The tuning article's own script: every variable from its sections "1. Environment preparation",
"3.1 Memory allocation" and "4. Debugging" (docs/sources/tuning-article.md) exported in one file.

Which names are invented and which are real is read from the fact sheet's "Names from the tuning article"
table and which of them the article uses in those three sections from the article text (excerpts of both under
tests/fixtures/knowledge and tests/fixtures/seed), not from banjia's output.
"""
import json
import re


def table_verdicts(knowledge):
    md = (knowledge / "env-vars.md").read_text(encoding="utf-8")
    block = md.split("## Names from the tuning article", 1)[1].split("Scope of the", 1)[0]
    verdicts = {}
    for line in block.splitlines():
        m = re.match(r"\|\s*`([^`]+)`\s*\|\s*([^|]+)\|", line)
        if m and re.fullmatch(r"[A-Z][A-Z0-9_]+", m.group(1)):
            verdicts[m.group(1)] = m.group(2).strip()
    return verdicts


def article_sections(seed):
    # The excerpt holds exactly those three sections of the article (tests/fixtures/PROVENANCE).
    text = (seed / "tuning-article.zh.txt").read_text(encoding="utf-8")
    for heading in ("1. 环境准备", "3.1 内存分配", "4. 调试技巧"):
        assert heading in text, heading
    return text


def test_article_script(run, fixtures, tmp_path):
    verdicts = table_verdicts(fixtures / "knowledge")
    sections = article_sections(fixtures / "seed")
    used = [n for n in verdicts if n in sections]
    real = {n for n in used if verdicts[n].startswith("**Yes")}
    flagged = set(used) - real
    assert len(flagged) >= 8 and real, (flagged, real)

    script = tmp_path / "article_env.sh"
    script.write_text("#!/bin/bash\n" + "".join(f"export {n}=1\n" for n in used))
    line_of = {n: i + 2 for i, n in enumerate(used)}
    r = run("env", "check", script, "-f", "json")
    assert r.returncode in (0, 1), r.stderr
    report = json.loads(r.stdout)
    by_line = {}
    for f in report["findings"]:
        by_line.setdefault(f["line"], []).append(f)
    for name in flagged:
        hits = by_line.get(line_of[name], [])
        assert hits, f"{name} ({verdicts[name][:40]}) was not flagged"
        assert all(h["severity"] in ("warning", "error") and h["source"] for h in hits)
    for name in real:
        assert line_of[name] not in by_line, f"{name} is real but was flagged: {by_line[line_of[name]]}"


def test_invented_names_get_the_documented_replacement(run, tmp_path):
    script = tmp_path / "s.sh"
    script.write_text("export NPU_ALLOCATOR_STRATEGY=multi_stream\nexport MM_BMM_ND_ENABLE=1\n")
    report = json.loads(run("env", "check", script, "-f", "json").stdout)
    by_line = {f["line"]: f for f in report["findings"]}
    assert "PYTORCH_NPU_ALLOC_CONF" in by_line[1]["suggestion"]
    assert by_line[2]["rule"] == "env-set-option-key"
    assert "set_mm_bmm_format_nd" in by_line[2]["suggestion"]
