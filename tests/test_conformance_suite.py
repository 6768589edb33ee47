"""The default suite: what it covers, that it is reproducible, and that every implementation agrees with the NumPy
reference on every case (Keras 3 on the "keras" cases)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest

from tfnet_train.conformance import implementations
from tfnet_train.conformance.case import load
from tfnet_train.conformance.compare import compare_traces
from tfnet_train.conformance.runner import case_paths
from tfnet_train.conformance.suite_builder import DEFAULT_SUITE, build_suite

CASES = [p.stem for p in case_paths("default")]
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
