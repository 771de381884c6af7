"""tools/check_include_floors.py: the floors of src/rules, env, trace and compare and the absence of unit
cycles in src/, checked on small trees made here (each violation it must report) and on the repository's
own src/."""
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
TOOL = REPO / "tools" / "check_include_floors.py"


def run(src: pathlib.Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(TOOL), str(src)], capture_output=True, text=True)


def write(root: pathlib.Path, rel: str, *includes: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f'#include "{i}"\n' for i in includes))


def test_the_repository_keeps_its_floors() -> None:
    r = run(REPO / "src")
    assert r.returncode == 0, r.stdout + r.stderr


def test_an_include_up_a_floor_is_reported(tmp_path: pathlib.Path) -> None:
    write(tmp_path, "rules/core/catalog.h", "rules/kinds/qualified.h")
    write(tmp_path, "rules/kinds/qualified.h", "rules/core/kind.h")
    write(tmp_path, "rules/core/kind.h")
    r = run(tmp_path)
    assert r.returncode == 1
    assert "rules/core/catalog.h: includes rules/kinds/qualified.h, a floor above (kinds over core)" in r.stdout


def test_a_cycle_of_units_is_reported_even_within_a_floor(tmp_path: pathlib.Path) -> None:
    # tree_flow.cpp (a part of tree_flow) includes device_flow.h, whose unit includes tree_flow.h.
    write(tmp_path, "rules/analyses/tree_flow.h")
    write(tmp_path, "rules/analyses/tree_flow.cpp", "rules/analyses/tree_flow.h", "rules/analyses/device_flow.h")
    write(tmp_path, "rules/analyses/device_flow.h", "rules/analyses/tree_flow.h")
    r = run(tmp_path)
    assert r.returncode == 1
    assert "a cycle of units: rules/analyses/device_flow -> rules/analyses/tree_flow" in r.stdout


def test_a_part_file_belongs_to_its_unit_and_a_file_outside_the_floors_is_named(tmp_path: pathlib.Path) -> None:
    write(tmp_path, "rules/kinds/env_name.h")
    write(tmp_path, "rules/kinds/env_name_table.cpp", "rules/kinds/env_name.h")  # a part: no cycle
    write(tmp_path, "rules/loose.h")
    r = run(tmp_path)
    assert r.returncode == 1
    assert r.stdout.splitlines() == ["rules/loose.h: a file of src/rules outside its floors (core, analyses, rewrites, kinds, safety, sources)"]


def test_an_env_include_up_the_pipeline_is_reported(tmp_path: pathlib.Path) -> None:
    write(tmp_path, "env/model/knowledge_base.h", "env/readers/env_file.h")  # down: allowed
    write(tmp_path, "env/readers/env_file.h", "env/analysis/checker.h")
    write(tmp_path, "env/analysis/checker.h")
    write(tmp_path, "env/command.cpp", "env/analysis/checker.h")  # the top includes any floor
    write(tmp_path, "env/report/explain.h", "env/command.h")
    write(tmp_path, "env/command.h")
    r = run(tmp_path)
    assert r.returncode == 1
    assert r.stdout.splitlines() == [
        "env/readers/env_file.h: includes env/analysis/checker.h, a floor above (analysis over readers)",
        "env/report/explain.h: includes env/command.h, a floor above (top over report)"]


def test_a_cycle_outside_the_floors_is_reported(tmp_path: pathlib.Path) -> None:
    # compare's result types and its noise model, as they stood before their types were split out.
    write(tmp_path, "compare/analysis/comparison.h", "compare/analysis/noise_model.h")
    write(tmp_path, "compare/analysis/noise_model.h")
    write(tmp_path, "compare/analysis/noise_model.cpp", "compare/analysis/noise_model.h", "compare/analysis/comparison.h")
    r = run(tmp_path)
    assert r.returncode == 1
    assert r.stdout.splitlines() == ["a cycle of units: compare/analysis/comparison -> compare/analysis/noise_model"]


def test_a_pipeline_module_keeps_its_order_and_its_command_stands_on_top(tmp_path: pathlib.Path) -> None:
    # trace's readers build its model; the command at the module's top level may include any folder.
    write(tmp_path, "trace/model/trace_model.h")
    write(tmp_path, "trace/readers/load.h", "trace/model/trace_model.h")
    write(tmp_path, "trace/command.h", "trace/readers/load.h")
    assert run(tmp_path).returncode == 0
    write(tmp_path, "trace/model/rank.h", "trace/readers/load.h")
    r = run(tmp_path)
    assert r.returncode == 1
    assert r.stdout.splitlines() == ["trace/model/rank.h: includes trace/readers/load.h, a floor above (readers over model)"]
