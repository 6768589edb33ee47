"""The default suite: what it covers, that it is reproducible, that every implementation agrees with the NumPy
reference on every Dense case (Keras 3 on the "keras" cases), and that the engine agrees with Keras 3 on the cases
given as Keras configs (a conv net with BatchNormalization and Dropout, an LSTM), which the references report n/a."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from tfnet_train.conformance import implementations
from tfnet_train.conformance.case import load
from tfnet_train.conformance.compare import compare_traces
from tfnet_train.conformance.errors import NotApplicable
from tfnet_train.conformance.runner import case_paths, run_suite
from tfnet_train.conformance.suite_builder import DEFAULT_SUITE, build_suite
from tfnet_train.tolerances import ATOL, RTOL

ALL_CASES = [p.stem for p in case_paths("default")]
MODEL_CASES = [name for name in ALL_CASES if load(DEFAULT_SUITE / f"{name}.json").has_keras_model]
CASES = [name for name in ALL_CASES if name not in MODEL_CASES]  # the Dense form
KERAS_CASES = [name for name in CASES if load(DEFAULT_SUITE / f"{name}.json").semantics == "keras"]


@cache
def _case(name: str):
    return load(DEFAULT_SUITE / f"{name}.json")


@cache
def _reference(name: str):
    return implementations.run("numpy", _case(name))


def _assert_agrees(implementation: str, name: str) -> None:
    case = _case(name)
    result = compare_traces(implementations.run(implementation, case), _reference(name), case.tolerance,
                            (implementation, "numpy"))
    assert result.first_divergence is None, result.first_divergence.describe(implementation, "numpy")
    assert result.steps_compared == case.steps
    for stage in ("y_pred", "loss", "gradients", "weights", "optimizer_state", "metrics"):
        assert result.stage(stage) is not None and result.stage(stage).compared > 0, stage


def test_suite_covers_the_dense_subset() -> None:
    cases = [_case(n) for n in CASES]
    assert len(cases) >= 24 and all(c.steps == 3 for c in cases)
    activations = {layer.activation for c in cases for layer in c.model.layers}
    assert activations == {"linear", "relu", "tanh", "sigmoid", "softmax"}
    losses = {(c.loss.name, c.loss.from_logits) for c in cases}
    for loss in ("binary_crossentropy", "categorical_crossentropy", "sparse_categorical_crossentropy"):
        assert {(loss, True), (loss, False)} <= losses, loss  # logits and probabilities
    assert {"mse", "mae"} <= {c.loss.name for c in cases}
    optimizers = {(c.optimizer.name, key) for c in cases for key in ("plain", "momentum", "nesterov", "amsgrad",
                                                                       "centered")
                  if key == "plain" or c.optimizer.params.get(key)}
    assert {("sgd", "plain"), ("sgd", "momentum"), ("sgd", "nesterov"), ("adam", "plain"), ("adam", "amsgrad"),
            ("adamw", "plain"), ("rmsprop", "plain"), ("rmsprop", "momentum"), ("rmsprop", "centered")} <= optimizers
    for semantics in ("keras", "tfnet"):
        clipping = {k for c in cases if c.semantics == semantics for k in c.optimizer.clipping}
        assert clipping == {"clipnorm", "clipvalue", "global_clipnorm"}, semantics
        mine = [c for c in cases if c.semantics == semantics]
        assert any(c.arrays.sample_weight is not None for c in mine)
        assert any(c.arrays.y.ndim == 1 for c in mine)


def test_suite_files_are_what_the_builder_writes(tmp_path: Path) -> None:
    build_suite(tmp_path)
    built = sorted(p.name for p in tmp_path.iterdir())
    assert built == sorted(p.name for p in DEFAULT_SUITE.iterdir() if p.suffix in (".json", ".npz"))
    for name in built:
        assert (tmp_path / name).read_bytes() == (DEFAULT_SUITE / name).read_bytes(), name


def test_reference_traces_are_finite() -> None:
    for name in CASES:
        for step in _reference(name):
            for key, value in step.items():
                assert np.all(np.isfinite(value)), (name, key)


@pytest.mark.parametrize("name", KERAS_CASES)
def test_keras_agrees_with_numpy(name: str) -> None:
    _assert_agrees("keras", name)


@pytest.mark.parametrize("name", CASES)
def test_engine_agrees_with_numpy(name: str) -> None:
    _assert_agrees("engine", name)


@pytest.mark.parametrize("name", CASES)
def test_csharp_reference_agrees_with_numpy(name: str, dotnet_bin: Path) -> None:
    _assert_agrees("csharp", name)


# ----------------------------------------------------------------------------------------------- Keras configs

FIRST_LAYER = {"keras_conv_batchnorm_dropout_digits": "Conv2D (conv)", "keras_lstm_digits_rows": "LSTM (lstm)"}


@cache
def _keras_traces(name: str):
    return implementations.run("keras", _case(name))


def test_suite_holds_a_conv_and_an_lstm_case() -> None:
    assert sorted(MODEL_CASES) == sorted(FIRST_LAYER)
    for name in MODEL_CASES:
        case = _case(name)
        layers = [cls for cls, _ in case.model.top_layers()]
        assert case.arrays.x.ndim == {"Conv2D": 4, "LSTM": 3}[layers[1]], name
        assert (case.tolerance.rtol, case.tolerance.atol) == (RTOL, ATOL)
    conv = _case("keras_conv_batchnorm_dropout_digits")
    assert {"BatchNormalization", "Dropout"} <= {cls for cls, _ in conv.model.top_layers()}


@pytest.mark.parametrize("name", MODEL_CASES)
def test_engine_agrees_with_keras_on_keras_configs(name: str) -> None:
    case = _case(name)
    keras_traces = _keras_traces(name)
    result = compare_traces(implementations.run("engine", case), keras_traces, case.tolerance, ("engine", "keras"))
    assert result.first_divergence is None, result.first_divergence.describe("engine", "keras")
    assert result.steps_compared == case.steps
    for stage in ("inputs", "y_pred", "loss", "gradients", "clipped_gradients", "weights", "optimizer_state",
                  "metrics"):
        assert result.stage(stage) is not None and result.stage(stage).compared > 0, stage
    # every weight, non-trainable ones (BatchNormalization's moving statistics) included, at every step
    assert result.stage("weights").compared == sum(w.size for w in case.arrays.weights) * case.steps


def test_batchnorm_moving_statistics_are_compared_and_move() -> None:
    case = _case("keras_conv_batchnorm_dropout_digits")
    paths = [w.path for w in _built("keras_conv_batchnorm_dropout_digits").weights]
    index = next(i for i, path in enumerate(paths) if path.endswith("norm/moving_mean"))
    traces = _keras_traces("keras_conv_batchnorm_dropout_digits")
    means = [case.arrays.weights[index]] + [t[f"weights/{index}"] for t in traces]
    assert all(not np.array_equal(a, b) for a, b in zip(means, means[1:], strict=False))
    engine = implementations.run("engine", case)
    np.testing.assert_allclose(engine[-1][f"weights/{index}"], means[-1], rtol=RTOL, atol=ATOL)


def _built(name: str):
    from tfnet_train.conformance.keras_model import build_keras_model

    return build_keras_model(_case(name).model)


@pytest.mark.parametrize("name", MODEL_CASES)
def test_dropout_seed_decides_the_masks(name: str) -> None:
    """The runs agree because both draw the seeded masks: another seed parts from Keras's trace at y_pred."""
    import copy
    from dataclasses import replace

    from tfnet_train.conformance.case import KerasModelSpec

    case = _case(name)
    config = copy.deepcopy(case.model.to_json())
    for layer in config["config"]["layers"]:
        if "seed" in layer["config"]:
            layer["config"]["seed"] += 1
    reseeded = replace(case, model=KerasModelSpec(config))
    result = compare_traces(implementations.run("engine", reseeded), _keras_traces(name), case.tolerance)
    assert result.first_divergence is not None and result.first_divergence.stage == "y_pred"
    assert result.first_divergence.step == 0


@pytest.mark.parametrize("name", MODEL_CASES)
def test_numpy_reference_reports_the_layer_it_lacks(name: str) -> None:
    with pytest.raises(NotApplicable, match=rf"^layer {re.escape(FIRST_LAYER[name])} is not implemented by the "
                       "NumPy reference$"):
        implementations.run("numpy", _case(name))


@pytest.mark.parametrize("name", MODEL_CASES)
def test_csharp_reference_reports_the_layer_it_lacks(name: str) -> None:
    with pytest.raises(NotApplicable, match=rf"^layer {re.escape(FIRST_LAYER[name])} is not implemented by the "
                       "C# reference$"):
        implementations.run("csharp", _case(name))


def test_suite_run_passes_engine_and_keras_and_names_the_layer_for_the_references(dotnet_bin: Path) -> None:
    result = run_suite("default", ["engine", "keras", "numpy", "csharp"], case="keras_*_digits*")
    assert result.passed and result.baseline == "numpy"
    for case in result.cases:
        assert {n: r.status for n, r in case.runs.items()} == {
            "engine": "ok", "keras": "ok", "numpy": "n/a", "csharp": "n/a"}
        verdicts = {(p.a, p.b): (p.verdict, p.message) for p in case.pairs}
        layer = FIRST_LAYER[case.name]
        assert verdicts == {
            ("engine", "keras"): ("pass", ""),
            ("numpy", "keras"): ("n/a", f"numpy: layer {layer} is not implemented by the NumPy reference"),
            ("csharp", "keras"): ("n/a", f"csharp: layer {layer} is not implemented by the C# reference")}
