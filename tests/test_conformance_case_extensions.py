"""Case fields that make more docs/semantics.md rows show in a step-level case: each field's schema errors (Python
and C# readers), every implementation agreeing on a case that uses it, and the profile diff naming the row.

- ``model.layers[i].kernel_regularizer: {"l2": f}`` (row 2: regularization is not in the tfnet training loss).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from clr_host import load_assembly

from tfnet_train.conformance.case import CaseError, load, parse, save
from tfnet_train.conformance.explain import diff_profiles
from tfnet_train.conformance.runner import run_case
from tfnet_train.conformance.suite_builder import DEFAULT_SUITE
from tfnet_train.tolerances import assert_close

# docs/semantics.md rows shown by the cases here -> the documented difference (explain.DIFFERENCES key).
SHOWN_ROWS = {2: "regularization"}
ALL_IMPLEMENTATIONS = ["numpy", "keras", "engine", "csharp"]
PROFILE_IMPLEMENTATIONS = ("numpy", "engine", "csharp")
REGULARIZED = "keras_tanh_mse_sgd_l2"


def _doc(name: str) -> dict[str, Any]:
    return json.loads((DEFAULT_SUITE / f"{name}.json").read_text(encoding="utf-8"))


def _csharp_parse(dotnet_bin: Path, doc: dict[str, Any]) -> Any:
    load_assembly(dotnet_bin / "TfNetTrain.Reference.dll")
    from TfNetTrain.Reference import ConformanceCase  # type: ignore[import-not-found]

    return ConformanceCase.ParseSpec(json.dumps(doc))


def _csharp_error(dotnet_bin: Path, doc: dict[str, Any]) -> Any:
    load_assembly(dotnet_bin / "TfNetTrain.Reference.dll")
    from TfNetTrain.Reference import CaseFormatException  # type: ignore[import-not-found]

    with pytest.raises(CaseFormatException) as info:
        _csharp_parse(dotnet_bin, doc)
    return info.value


def _assert_all_agree(name: str, implementations: list[str]) -> dict[str, list[float]]:
    """Run a suite case with every implementation; every pair passes. Returns each run's losses."""
    result = run_case(load(DEFAULT_SUITE / f"{name}.json"), implementations)
    statuses = {k: (r.status, r.message) for k, r in result.runs.items()}
    assert all(status == "ok" for status, _ in statuses.values()), statuses
    verdicts = [(p.a, p.b, p.verdict, p.message) for p in result.pairs]
    assert len(verdicts) == len(implementations) - 1 and all(v[2] == "pass" for v in verdicts), verdicts
    return {k: r.losses for k, r in result.runs.items()}


# ------------------------------------------------------------------------------ row 2: kernel_regularizer


def _set_regularizer(value: Any) -> dict[str, Any]:
    doc = _doc(REGULARIZED)
    doc["model"]["layers"][1]["kernel_regularizer"] = value
    return doc


BAD_REGULARIZERS = [
    ({"l1": 0.01}, "model.layers[1].kernel_regularizer"),
    ({"l2": 0.01, "l1": 0.01}, "model.layers[1].kernel_regularizer"),
    ({}, "model.layers[1].kernel_regularizer"),
    (0.01, "model.layers[1].kernel_regularizer"),
    ("l2", "model.layers[1].kernel_regularizer"),
    ({"l2": -0.5}, "model.layers[1].kernel_regularizer.l2"),
    ({"l2": "0.1"}, "model.layers[1].kernel_regularizer.l2"),
    ({"l2": True}, "model.layers[1].kernel_regularizer.l2"),
]


@pytest.mark.parametrize(("value", "field"), BAD_REGULARIZERS, ids=lambda v: json.dumps(v))
def test_bad_kernel_regularizer_is_an_error_naming_the_field(value: Any, field: str, dotnet_bin: Path) -> None:
    doc = _set_regularizer(value)
    with pytest.raises(CaseError, match=rf"field '{re.escape(field)}': expected .*, got "):
        parse(doc)
    error = _csharp_error(dotnet_bin, doc)
    assert error.Field.startswith("model.layers[1].kernel_regularizer")


def test_kernel_regularizer_null_or_absent_means_none(dotnet_bin: Path) -> None:
    doc = _set_regularizer(None)
    case = parse(doc)
    assert [layer.kernel_l2 for layer in case.model.layers] == [0.01, None]
    assert "kernel_regularizer" not in case.to_json()["model"]["layers"][1]  # absent when there is none
    assert parse(case.to_json()).model == case.model
    layers = _csharp_parse(dotnet_bin, doc).Layers
    assert layers[0].KernelL2 == 0.01 and layers[1].KernelL2 is None


def test_kernel_regularizer_round_trips(tmp_path: Path) -> None:
    case = load(DEFAULT_SUITE / f"{REGULARIZED}.json")
    again = load(save(case, None, tmp_path))
    assert again.model == case.model and [layer.kernel_l2 for layer in again.model.layers] == [0.01, 0.05]
    assert again.to_json()["model"]["layers"][0]["kernel_regularizer"] == {"l2": 0.01}


def test_regularized_keras_case_agrees_across_implementations() -> None:
    losses = _assert_all_agree(REGULARIZED, ALL_IMPLEMENTATIONS)
    assert set(losses) == set(ALL_IMPLEMENTATIONS)


def test_regularized_tfnet_case_agrees_across_implementations() -> None:
    _assert_all_agree("tfnet_tanh_mse_sgd_l2", ["numpy", "engine", "csharp"])


def test_keras_loss_exceeds_tfnet_loss_by_the_l2_penalty() -> None:
    """Step 0 (same initial weights): keras loss - tfnet loss = sum over layers of f * sum(kernel**2), computed
    here in float64 from the case's arrays, independently of every trainer."""
    case = load(DEFAULT_SUITE / f"{REGULARIZED}.json")
    kernels = [case.arrays.weights[0], case.arrays.weights[2]]
    penalty = sum(f * float(np.sum(np.square(k.astype(np.float64)))) for f, k in zip((0.01, 0.05), kernels,
                                                                                      strict=True))
    assert penalty > 0.1
    for implementation in PROFILE_IMPLEMENTATIONS:
        result = diff_profiles(case, "keras", "tfnet", implementation)
        keras_loss, tfnet_loss = result.run_a.losses[0], result.run_b.losses[0]
        assert_close(keras_loss - tfnet_loss, penalty, what=f"{implementation}: keras - tfnet loss at step 0")


@pytest.mark.parametrize("implementation", PROFILE_IMPLEMENTATIONS)
def test_diff_names_regularization_at_the_loss_stage(implementation: str) -> None:
    case = load(DEFAULT_SUITE / f"{REGULARIZED}.json")
    result = diff_profiles(case, "keras", "tfnet", implementation)
    parting = result.parting
    assert (parting.step, parting.stage, parting.how) == (0, "loss", "values")
    assert [x.key for x in parting.reasons] == ["regularization"]
    text = result.explain()
    assert "Regularization losses are not part of the training loss under tfnet" in text
    assert "docs/semantics.md row 2]" in text and "Engine/LossesContainer.cs" in text


def test_unregularized_case_has_no_regularization_difference() -> None:
    case = load(DEFAULT_SUITE / "keras_relu_mse_sgd.json")
    result = diff_profiles(case, "keras", "tfnet", "numpy")
    assert "regularization" not in [x.key for x in result.differences]
