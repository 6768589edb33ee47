"""Case fields that make more docs/semantics.md rows show in a step-level case: each field's schema errors (Python
and C# readers), every implementation agreeing on a case that uses it, and the profile diff naming the row.

- ``model.layers[i].kernel_regularizer: {"l2": f}`` (row 2: regularization is not in the tfnet training loss).
- ``loss: {"name": ..., "as_string": true}`` (rows 9 and 10: a loss string other than exactly "mse"/"mae", or
  None, is MSE under tfnet).
- ``optimizer: {"name": ..., "as_string": true}`` (row 8: any optimizer string is RMSprop(0.001, 0.9, 1e-7) under
  tfnet).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from clr_host import load_assembly

from tfnet_train.conformance.case import CaseError, load, optimizer_spec, parse, save
from tfnet_train.conformance.compare import compare_traces
from tfnet_train.conformance.explain import diff_profiles
from tfnet_train.conformance.runner import run_case
from tfnet_train.conformance.suite_builder import DEFAULT_SUITE
from tfnet_train.tolerances import assert_close

# docs/semantics.md rows shown by the cases here -> the documented difference (explain.DIFFERENCES key).
SHOWN_ROWS = {2: ("regularization",), 8: ("optimizer_string", "optimizer_string_unknown"),
              9: ("loss_string", "loss_string_unknown"), 10: ("loss_none",)}
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


# ------------------------------------------------------------------------------ rows 9, 10: loss as a string

PLAIN_MSE = "keras_relu_mse_sgd"  # one output, MSE, plain SGD, no sample weights


def _string_loss_doc(name: str | None, case_name: str = "string_loss") -> dict[str, Any]:
    doc = _doc(PLAIN_MSE)
    doc["name"] = case_name
    doc["metrics"] = []
    doc["loss"] = {"name": name, "as_string": True}
    return doc


def _string_loss_case(tmp_path: Path, name: str | None, semantics: str = "keras") -> Any:
    """The plain MSE suite case with its loss compiled from a string, saved under tmp_path and loaded back."""
    source = load(DEFAULT_SUITE / f"{PLAIN_MSE}.json")
    case = parse(_string_loss_doc(name)).with_semantics(semantics)
    case.arrays = source.arrays
    return load(save(case, None, tmp_path))


BAD_LOSS_STRINGS = [
    ({"name": "mse", "as_string": True, "from_logits": True}, "loss.from_logits"),
    ({"name": "huber", "as_string": True}, "loss.name"),
    ({"name": "HUBER", "as_string": True}, "loss.name"),
    ({"name": "Mae", "as_string": True}, "loss.name"),
    ({"name": "binary_crossentropy", "as_string": True}, "loss.name"),
    ({"name": "", "as_string": True}, "loss.name"),
    ({"name": 3, "as_string": True}, "loss.name"),
    ({"name": "mse", "as_string": "yes"}, "loss.as_string"),
    ({"name": "MAE"}, "loss.name"),
    ({"name": None}, "loss.name"),
]


@pytest.mark.parametrize(("loss", "field"), BAD_LOSS_STRINGS, ids=lambda v: json.dumps(v))
def test_bad_string_loss_is_an_error_naming_the_field(loss: dict[str, Any], field: str, dotnet_bin: Path) -> None:
    doc = _doc(PLAIN_MSE)
    doc["loss"] = loss
    with pytest.raises(CaseError, match=rf"field '{re.escape(field)}': expected .*, got "):
        parse(doc)
    assert _csharp_error(dotnet_bin, doc).Field == field


@pytest.mark.parametrize("name", ["MAE", "mean_absolute_error", "mse", "foo", None])
def test_string_loss_round_trips(tmp_path: Path, name: str | None, dotnet_bin: Path) -> None:
    case = _string_loss_case(tmp_path, name)
    assert case.loss.as_string and case.loss.name == name and not case.loss.from_logits
    written = json.loads(case.path.read_text(encoding="utf-8"))["loss"]
    assert written == {"name": name, "from_logits": False, "as_string": True}
    loss = _csharp_parse(dotnet_bin, case.to_json()).Loss
    assert loss.AsString and loss.Name == name


def test_object_losses_write_no_as_string() -> None:
    assert "as_string" not in load(DEFAULT_SUITE / f"{PLAIN_MSE}.json").to_json()["loss"]


@pytest.mark.parametrize("name", ["MAE", "mean_absolute_error", "mae", "MSE", "mean_squared_error"])
def test_keras_string_loss_agrees_across_implementations(tmp_path: Path, name: str) -> None:
    case = _string_loss_case(tmp_path, name)
    result = run_case(case, ALL_IMPLEMENTATIONS)
    assert {k: r.status for k, r in result.runs.items()} == dict.fromkeys(ALL_IMPLEMENTATIONS, "ok")
    assert [p.verdict for p in result.pairs] == ["pass"] * 3, [(p.a, p.b, p.message) for p in result.pairs]


@pytest.mark.parametrize("name", ["MAE", "mean_absolute_error", "foo", None, "mse"])
def test_tfnet_string_loss_is_mse_in_every_implementation(tmp_path: Path, name: str | None) -> None:
    """Under tfnet each of these strings (and None) trains MSE: every implementation's losses equal Keras 3's on
    the same case compiled with MSE as an object."""
    keras_mse = run_case(load(DEFAULT_SUITE / f"{PLAIN_MSE}.json"), ["keras"]).runs["keras"]
    assert keras_mse.status == "ok"
    result = run_case(_string_loss_case(tmp_path, name, "tfnet"), list(PROFILE_IMPLEMENTATIONS))
    for implementation, run in result.runs.items():
        assert run.status == "ok", run.message
        assert_close(run.losses, keras_mse.losses, what=f"{implementation}: loss {name!r} under tfnet")
    assert all(p.verdict == "pass" for p in result.pairs)


def test_tfnet_exact_mae_string_is_mae(tmp_path: Path) -> None:
    keras_mae = run_case(_string_loss_case(tmp_path / "k", "mae"), ["keras"]).runs["keras"]
    result = run_case(_string_loss_case(tmp_path / "t", "mae", "tfnet"), list(PROFILE_IMPLEMENTATIONS))
    for implementation, run in result.runs.items():
        assert_close(run.losses, keras_mae.losses, what=f"{implementation}: loss 'mae' under tfnet")


@pytest.mark.parametrize("name", ["foo", None])
def test_keras_runs_raise_for_an_unknown_string_or_none(tmp_path: Path, name: str | None) -> None:
    result = run_case(_string_loss_case(tmp_path, name), ALL_IMPLEMENTATIONS)
    assert {k: r.status for k, r in result.runs.items()} == dict.fromkeys(ALL_IMPLEMENTATIONS, "error")


STRING_LOSS_PARTINGS = [
    ("MAE", "values", "loss_string", "any other loss string is MSE under tfnet", 9),
    ("mean_absolute_error", "values", "loss_string", "any other loss string is MSE under tfnet", 9),
    ("foo", "error", "loss_string_unknown", "falls back to MSE for a loss string it does not know", 9),
    (None, "error", "loss_none", "loss=None compiles MSE under tfnet", 10),
]


@pytest.mark.parametrize("implementation", PROFILE_IMPLEMENTATIONS)
@pytest.mark.parametrize(("name", "how", "key", "phrase", "row"), STRING_LOSS_PARTINGS, ids=lambda v: str(v))
def test_diff_names_the_loss_string_row(tmp_path: Path, implementation: str, name: str | None, how: str, key: str,
                                        phrase: str, row: int) -> None:
    result = diff_profiles(_string_loss_case(tmp_path, name), "keras", "tfnet", implementation)
    parting = result.parting
    assert (parting.step, parting.stage, parting.how) == (0, "loss", how)
    assert [x.key for x in parting.reasons] == [key]
    text = result.explain()
    assert phrase in text and f"docs/semantics.md row {row}]" in text and "Engine/Model.Compile.cs" in text
    if how == "error":
        assert result.run_a.status == "error" and result.run_b.status == "ok"
        assert "under 'keras' the run did not complete" in text and "under which the keras run raises" in text


@pytest.mark.parametrize("name", ["mse", "MSE", "mae"])
def test_string_losses_both_profiles_read_alike_do_not_part(tmp_path: Path, name: str) -> None:
    result = diff_profiles(_string_loss_case(tmp_path, name), "keras", "tfnet", "numpy")
    assert result.parting is None and result.comparison.passed
    assert not {"loss_string", "loss_string_unknown", "loss_none"} & {x.key for x in result.differences}


# ------------------------------------------------------------------------------ row 8: optimizer as a string


def _string_optimizer_case(tmp_path: Path, name: str, semantics: str = "keras") -> Any:
    """The plain MSE suite case with its optimizer compiled from a string, saved and loaded back."""
    source = load(DEFAULT_SUITE / f"{PLAIN_MSE}.json")
    doc = _doc(PLAIN_MSE)
    doc["name"] = "string_optimizer"
    doc["metrics"] = []
    doc["optimizer"] = {"name": name, "as_string": True}
    case = parse(doc).with_semantics(semantics)
    case.arrays = source.arrays
    return load(save(case, None, tmp_path))


BAD_OPTIMIZER_STRINGS = [
    ({"name": "sgd", "as_string": True, "learning_rate": 0.1}, "optimizer.learning_rate"),
    ({"name": "adam", "as_string": True, "clipnorm": None}, "optimizer.clipnorm"),
    ({"name": "nadam", "as_string": True}, "optimizer.name"),
    ({"name": "Adagrad", "as_string": True}, "optimizer.name"),
    ({"name": "", "as_string": True}, "optimizer.name"),
    ({"name": 1, "as_string": True}, "optimizer.name"),
    ({"name": "sgd", "as_string": 1}, "optimizer.as_string"),
    ({"name": "SGD"}, "optimizer.name"),
]


@pytest.mark.parametrize(("optimizer", "field"), BAD_OPTIMIZER_STRINGS, ids=lambda v: json.dumps(v))
def test_bad_string_optimizer_is_an_error_naming_the_field(optimizer: dict[str, Any], field: str,
                                                           dotnet_bin: Path) -> None:
    doc = _doc(PLAIN_MSE)
    doc["optimizer"] = optimizer
    with pytest.raises(CaseError, match=rf"field '{re.escape(field)}': expected .*, got "):
        parse(doc)
    assert _csharp_error(dotnet_bin, doc).Field == field


@pytest.mark.parametrize("name", ["sgd", "AdamW", "foo"])
def test_string_optimizer_round_trips(tmp_path: Path, name: str, dotnet_bin: Path) -> None:
    case = _string_optimizer_case(tmp_path, name)
    assert case.optimizer.as_string and case.optimizer.name == name and dict(case.optimizer.params) == {}
    written = json.loads(case.path.read_text(encoding="utf-8"))["optimizer"]
    assert written == {"name": name, "as_string": True}
    spec = _csharp_parse(dotnet_bin, case.to_json()).Optimizer
    assert spec.AsString and spec.Name == name


def test_object_optimizers_accept_as_string_false_and_write_none() -> None:
    doc = _doc(PLAIN_MSE)
    doc["optimizer"]["as_string"] = False
    case = parse(doc)
    assert not case.optimizer.as_string and "as_string" not in case.to_json()["optimizer"]


@pytest.mark.parametrize("name", ["sgd", "SGD", "adam", "AdamW", "rmsprop"])
def test_keras_string_optimizer_agrees_across_implementations(tmp_path: Path, name: str) -> None:
    result = run_case(_string_optimizer_case(tmp_path, name), ALL_IMPLEMENTATIONS)
    assert {k: r.status for k, r in result.runs.items()} == dict.fromkeys(ALL_IMPLEMENTATIONS, "ok")
    assert [p.verdict for p in result.pairs] == ["pass"] * 3, [(p.a, p.b, p.message) for p in result.pairs]
    lr = float(result.runs["keras"].traces[0]["optimizer_state/learning_rate"])
    assert_close(lr, 0.01 if name.lower() == "sgd" else 0.001, what=f"Keras 3's default learning rate for {name}")


@pytest.mark.parametrize("name", ["sgd", "Adam", "adamw", "foo"])
def test_tfnet_string_optimizer_is_rmsprop_in_every_implementation(tmp_path: Path, name: str) -> None:
    """Under tfnet every string trains as the object RMSprop(0.001, rho=0.9, epsilon=1e-7) does, and every
    implementation's string run matches every implementation's object run."""
    string_case = _string_optimizer_case(tmp_path / "s", name, "tfnet")
    object_case = load(save(string_case.with_optimizer(**{"name": "rmsprop", "learning_rate": 0.001, "rho": 0.9,
                                                          "epsilon": 1e-7}), None, tmp_path / "o"))
    assert object_case.optimizer == optimizer_spec({"name": "rmsprop"})
    strings = run_case(string_case, list(PROFILE_IMPLEMENTATIONS)).runs
    objects = run_case(object_case, list(PROFILE_IMPLEMENTATIONS)).runs
    for a in PROFILE_IMPLEMENTATIONS:
        for b in PROFILE_IMPLEMENTATIONS:
            assert strings[a].status == objects[b].status == "ok"
            comparison = compare_traces(strings[a].traces, objects[b].traces, string_case.tolerance, (a, b))
            assert comparison.passed and not comparison.only_in_a and not comparison.only_in_b, (a, b)


def test_keras_runs_raise_for_an_unknown_optimizer_string(tmp_path: Path) -> None:
    result = run_case(_string_optimizer_case(tmp_path, "foo"), ALL_IMPLEMENTATIONS)
    assert {k: r.status for k, r in result.runs.items()} == dict.fromkeys(ALL_IMPLEMENTATIONS, "error")


STRING_OPTIMIZER_PARTINGS = [
    ("sgd", "values", "optimizer_string", "Any optimizer string gives TF.NET's RMSprop(learning_rate=0.001"),
    ("Adam", "values", "optimizer_string", "Any optimizer string gives TF.NET's RMSprop(learning_rate=0.001"),
    ("foo", "error", "optimizer_string_unknown", "gives RMSprop for any optimizer string, even one it does not know"),
]


@pytest.mark.parametrize("implementation", PROFILE_IMPLEMENTATIONS)
@pytest.mark.parametrize(("name", "how", "key", "phrase"), STRING_OPTIMIZER_PARTINGS, ids=lambda v: str(v))
def test_diff_names_the_optimizer_string_row(tmp_path: Path, implementation: str, name: str, how: str, key: str,
                                             phrase: str) -> None:
    result = diff_profiles(_string_optimizer_case(tmp_path, name), "keras", "tfnet", implementation)
    parting = result.parting
    assert (parting.step, parting.stage, parting.how) == (0, "weights", how)
    assert [x.key for x in parting.reasons] == [key]
    text = result.explain()
    assert phrase in text and "docs/semantics.md row 8]" in text and "Engine/Model.Compile.cs" in text
    if how == "error":
        assert result.run_a.status == "error" and result.run_b.status == "ok"
        assert "under which the keras run raises" in text
    else:
        assert result.key_stage == "optimizer_state"  # keras's slots (none for SGD; m, v for Adam) vs rms
        assert [x.key for x in result.explaining_keys] == ["optimizer_string"]
        assert "optimizer_state/rms/0" in result.comparison.only_in_b
