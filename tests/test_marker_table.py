"""The kinds table in conftest.py names only modules and tests that exist, and every test that starts a process
of its own (by the source: ``subprocess``, ``Popen``, ``sys.executable``, directly or through the module's helpers)
carries a kind, so `make test-fast` stays in-process."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from conftest import FIXTURE_KINDS, KIND_NAMES, KINDS

HERE = Path(__file__).resolve().parent
STARTS_A_PROCESS = re.compile(r"subprocess\.|\bPopen\b|sys\.executable")


def functions(path: Path) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in ast.parse(path.read_text()).body if isinstance(n, ast.FunctionDef)}


def starting_a_process(path: Path) -> set[str]:
    """The module's functions that start a process, directly or by calling one of its own functions that does."""
    source = path.read_text()
    found = functions(path)
    starting = {name for name, node in found.items() if STARTS_A_PROCESS.search(ast.get_source_segment(source, node))}
    grew = True
    while grew:
        grew = False
        for name, node in found.items():
            called = {c.func.id for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
            if name not in starting and called & starting:
                starting.add(name)
                grew = True
    return starting


def test_every_entry_names_an_existing_module_and_test() -> None:
    for key, kinds in KINDS.items():
        module, _, test = key.partition("::")
        path = HERE / module
        assert path.is_file(), f"KINDS names {module}, which does not exist"
        if test:
            assert test in functions(path), f"KINDS names {key}, but {module} has no {test}"
        assert kinds and set(kinds) <= set(KIND_NAMES), f"{key}: unknown kinds {kinds}"


def test_every_test_that_starts_a_process_has_a_kind() -> None:
    unmarked = []
    for path in sorted([*HERE.glob("test_*.py"), *HERE.glob("fuzz/test_*.py")]):
        module = path.relative_to(HERE).as_posix()
        if path.name == Path(__file__).name:  # its sample source names subprocess; it starts none
            continue
        tests = functions(path)
        for name in sorted(starting_a_process(path)):
            if not name.startswith("test_") or module in KINDS or f"{module}::{name}" in KINDS:
                continue
            params = {a.arg for a in tests[name].args.args}
            if not params & set(FIXTURE_KINDS):
                unmarked.append(f"{module}::{name}")
    assert not unmarked, f"these tests start processes but carry no kind in conftest.KINDS: {unmarked}"


def test_the_classifier_sees_a_process_through_a_helper(tmp_path: Path) -> None:
    sample = tmp_path / "test_sample.py"
    sample.write_text("import subprocess\n\ndef helper():\n    subprocess.run(['true'])\n\n"
                      "def test_direct():\n    helper()\n\ndef test_none():\n    pass\n")
    assert starting_a_process(sample) == {"helper", "test_direct"}
