"""Profile diffs: the documented keras/tfnet differences, which apply to a case, and the explanation of a run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tfnet_train.conformance.case import load
from tfnet_train.conformance.explain import DIFFERENCES, applicable, diff_profiles
from tfnet_train.conformance.suite_builder import DEFAULT_SUITE
from tfnet_train.engine.trace import STAGES


def _case(name: str):
    return load(DEFAULT_SUITE / f"{name}.json")


def test_every_difference_names_a_stage_a_source_and_a_sentence() -> None:
    assert len({d.key for d in DIFFERENCES}) == len(DIFFERENCES)
    for d in DIFFERENCES:
        assert d.stage in STAGES and d.sentence.endswith(".") and d.sources
        assert all(s.startswith("src/TensorFlowNET.Keras/") for s in d.sources)
        assert d.key_stage in (None, *STAGES)


@pytest.mark.parametrize(("name", "expected"), [
    ("keras_relu_mse_sgd", {"metric_names"}),
    ("keras_relu_mse_sgd_clipnorm", {"clipnorm", "metric_names"}),
    ("keras_tanh_mse_adam_clipvalue", {"clipvalue", "adam_kernel"}),
    ("keras_relu_mse_sgd_sample_weight", {"sample_weight_broadcast", "metric_names"}),
    ("keras_sigmoid_mse_sgd_nesterov", {"nesterov", "metric_names"}),
    ("keras_relu_scce_probs_rmsprop_momentum", {"rmsprop_epsilon", "rmsprop_momentum"}),
    ("keras_linear_mse_sgd_1d_targets", {"metric_names", "metric_unsupported"}),
])
def test_applicable_differences(name: str, expected: set[str]) -> None:
    assert {d.key for d in applicable(_case(name))} == expected


@pytest.mark.parametrize("implementation", ["numpy", "engine"])
@pytest.mark.parametrize(("name", "stage", "key"), [
    ("keras_relu_mse_sgd_clipnorm", "clipped_gradients", "clipnorm"),
    ("keras_relu_mse_sgd_sample_weight", "loss", "sample_weight_broadcast"),
    ("keras_sigmoid_mse_sgd_nesterov", "weights", "nesterov"),
])
def test_diff_explains_the_first_divergence(implementation: str, name: str, stage: str, key: str) -> None:
    result = diff_profiles(_case(name), "keras", "tfnet", implementation)
    assert result.comparison.first_divergence.stage == stage
    assert [d.key for d in result.explaining] == [key]
    text = result.explain()
    assert f"stage {stage}" in text and next(d.sentence for d in DIFFERENCES if d.key == key) in text


@pytest.mark.parametrize("implementation", ["numpy", "engine"])
def test_diff_reports_a_profile_that_cannot_run_the_case(implementation: str) -> None:
    result = diff_profiles(_case("keras_sigmoid_scce_logits_rmsprop_centered"), implementation=implementation)
    assert result.comparison is None and result.run_b.status == "error"
    text = result.explain()
    assert "under 'tfnet' the run did not complete: NotImplementedError: " in text
    assert "NotImplementedError: NotImplementedError" not in text and "in user code" not in text
    assert "RMSprop(centered=True) throws NotImplementedException at the first update" in text
    assert result.parting.how == "error" and [x.key for x in result.parting.reasons] == ["rmsprop_centered"]


def test_same_profile_gives_no_divergence() -> None:
    result = diff_profiles(_case("keras_relu_mse_sgd_clipnorm"), "keras", "keras", "numpy")
    assert result.comparison.passed and "no divergence" in result.explain()


# ------------------------------------------------------------------ agreement with docs/semantics.md

SEMANTICS_DOC = Path(__file__).resolve().parents[1] / "docs" / "semantics.md"


def _section(heading: str) -> str:
    """The text under ``heading`` up to the next heading."""
    text = SEMANTICS_DOC.read_text(encoding="utf-8").split(f"\n{heading}\n", 1)[1]
    return re.split(r"\n#{2,3} ", text, maxsplit=1)[0]


def _numbered_rows(section: str) -> dict[int, list[str]]:
    """Table rows whose first cell is a number: number -> the other cells."""
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0].isdigit():
            rows[int(cells[0])] = cells[1:]
    return rows


#: The numbered rows of docs/semantics.md's "Reproduced differences".
DOC_ROWS = 27


def test_differences_cite_the_tfnet_files_of_their_row() -> None:
    table = _numbered_rows(_section("## Reproduced differences"))
    assert sorted(table) == list(range(1, DOC_ROWS + 1))
    for d in DIFFERENCES:
        if d.row is not None:
            source_cell = table[d.row][3]
            for source in d.sources:
                assert f"`{source.removeprefix('src/TensorFlowNET.Keras/')}`" in source_cell, (d.key, source)


def test_every_row_is_placed_in_the_conformance_section() -> None:
    from test_conformance_case_extensions import SHOWN_ROWS
    from test_conformance_profile_rows import ROWS

    shown = _numbered_rows(_section("### Rows a case shows"))
    without = _numbered_rows(_section("### Rows without a step-level case"))
    assert not set(shown) & set(without) and sorted({*shown, *without}) == list(range(1, DOC_ROWS + 1))
    assert set(shown) == {r.row for r in ROWS} | set(SHOWN_ROWS)
    for d in DIFFERENCES:
        if d.row in shown:
            difference, stage = shown[d.row]
            assert f"`{d.key}`" in difference and f"`{d.stage}`" in stage, d.key
            assert d.key_stage is None or f"`{d.key_stage}`" in stage, d.key
        elif d.row in without:
            assert f"`{d.key}`" in without[d.row][0], d.key
        else:
            assert f"`{d.key}`" in _section("### Rows a case shows"), d.key


def test_semantics_doc_cites_tests_that_exist() -> None:
    tests = Path(__file__).resolve().parent
    references = set(re.findall(r"`(test_\w+\.py)::(test_\w+)", SEMANTICS_DOC.read_text(encoding="utf-8")))
    assert len(references) > 20
    for file, name in references:
        assert f"def {name}(" in (tests / file).read_text(encoding="utf-8"), f"{file}::{name}"
