"""Profile is the one owner of the keras/tfnet differences: each flag names the docs/semantics.md rows it
reproduces, every row is owned by a flag, and no module outside semantics.py compares profile names."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from test_conformance_explain import _numbered_rows, _section

from tfnet_train.semantics import KERAS_PROFILE, TFNET_PROFILE, Profile, get_profile

SRC = Path(__file__).resolve().parents[1] / "src" / "tfnet_train"
#: Rows of the table whose two profiles compute the same (listed for completeness, no flag).
SAME_UNDER_BOTH = {12, 13}
#: Comparisons that are not a profile difference: Keras 3 itself is the keras profile and runs no other case;
#: a legacy .h5 file's "keras" kind is a file format.
NOT_DIFFERENCES = {"conformance/keras_runner.py": 'if case.semantics != "keras":',
                   "engine/legacy.py": 'if kind == "keras":'}


def _flags() -> list[dataclasses.Field]:
    return [f for f in dataclasses.fields(Profile) if f.name != "name"]


def test_every_flag_names_rows_that_exist_and_every_row_has_a_flag() -> None:
    table = _numbered_rows(_section("## Reproduced differences"))
    errors = [line for line in _section("## Errors raised instead of crashes").splitlines()
              if line.startswith("| ") and not line.startswith(("| Situation", "|---"))]
    owned_rows: dict[int, str] = {}
    owned_errors: dict[str, str] = {}
    for flag in _flags():
        rows, phrases = flag.metadata["rows"], flag.metadata["errors"]
        assert rows or phrases, f"{flag.name}: names no docs/semantics.md row"
        for row in rows:
            assert row in table and row not in SAME_UNDER_BOTH, (flag.name, row)
            assert row not in owned_rows, f"row {row}: owned by {owned_rows.get(row)} and {flag.name}"
            owned_rows[row] = flag.name
        for phrase in phrases:
            matching = [line for line in errors if line.startswith(f"| {phrase}")]
            assert len(matching) == 1, f"{flag.name}: {phrase!r} starts {len(matching)} rows of the errors table"
            owned_errors[matching[0]] = flag.name
    assert set(owned_rows) == set(table) - SAME_UNDER_BOTH
    assert set(owned_errors) == set(errors)


def test_the_two_profiles_differ_in_every_flag() -> None:
    for flag in _flags():
        assert getattr(KERAS_PROFILE, flag.name) != getattr(TFNET_PROFILE, flag.name), flag.name
    assert get_profile("tfnet") is TFNET_PROFILE and get_profile(KERAS_PROFILE) is KERAS_PROFILE


def test_no_module_compares_profile_names() -> None:
    name = r"""(["'](keras|tfnet)["']|\bTFNET\b|\bKERAS\b)"""
    comparison = re.compile(rf"(==|!=)\s*{name}|{name}\s*(==|!=)")
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "semantics.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if comparison.search(line) and NOT_DIFFERENCES.get(str(path.relative_to(SRC))) != line.strip():
                found.append(f"{path.relative_to(SRC)}:{number}: {line.strip()}")
    assert found == []
