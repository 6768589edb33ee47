"""Trace comparison: the tolerance rule, shapes, missing steps, ordering, and planted divergences caught at the
right (step, stage, variable, index) by every implementation."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tfnet_train.conformance import implementations
from tfnet_train.conformance.case import DenseSpec, load
from tfnet_train.conformance.compare import compare_traces, ordered_keys
from tfnet_train.conformance.numpy_reference import run_numpy
from tfnet_train.conformance.suite_builder import DEFAULT_SUITE
from tfnet_train.tolerances import ATOL, RTOL

ALL_IMPLEMENTATIONS = ("numpy", "keras", "engine", "csharp")
PROFILE_IMPLEMENTATIONS = ("numpy", "engine", "csharp")  # run both profiles


def _trace(**values: object) -> dict[str, np.ndarray]:
    return {k.replace("__", "/"): np.asarray(v, dtype=np.float32) for k, v in values.items()}


# ----------------------------------------------------------------------------------------------- the rule


def test_tolerance_rule_is_atol_plus_rtol_times_reference() -> None:
    b = np.array([1.0, 100.0, 0.0])
    allowed = ATOL + RTOL * np.abs(b)
    inside = compare_traces([_trace(loss=0, y_pred__0=b + 0.5 * allowed)], [_trace(loss=0, y_pred__0=b)])
    assert inside.passed
    outside = compare_traces([_trace(loss=0, y_pred__0=b + np.array([0, 2, 0]) * allowed)],
                             [_trace(loss=0, y_pred__0=b)], names=("x", "y"))
    d = outside.first_divergence
    assert not outside.passed and (d.step, d.stage, d.key, d.index, d.position) == (0, "y_pred", "y_pred/0", 1, (1,))
    assert d.b == pytest.approx(100.0) and d.allowed == pytest.approx(allowed[1])
    assert "x=" in d.describe("x", "y") and "y=" in d.describe("x", "y")


def test_relative_error_ignores_zero_references_and_nan_matches_nan() -> None:
    result = compare_traces([_trace(loss=np.nan, weights__0=[0.0, 2.0])], [_trace(loss=np.nan, weights__0=[0.0, 1.0])])
    assert result.stage("loss").passed and result.stage("loss").max_abs == 0
    assert result.stage("weights").max_rel == pytest.approx(1.0)
    one_nan = compare_traces([_trace(loss=np.nan)], [_trace(loss=1.0)])
    assert one_nan.first_divergence.stage == "loss" and np.isinf(one_nan.first_divergence.abs_error)


def test_shapes_missing_steps_and_missing_keys() -> None:
    shape = compare_traces([_trace(loss=1, y_pred__0=np.zeros((2, 1)))], [_trace(loss=1, y_pred__0=np.zeros(2))])
    assert shape.first_divergence.reason == "shape" and "(2, 1)" in shape.first_divergence.detail
    short = compare_traces([_trace(loss=1)], [_trace(loss=1), _trace(loss=1)])
    assert short.first_divergence.reason == "missing_step" and short.first_divergence.step == 1
    only = compare_traces([_trace(loss=1, metrics__mae=3)], [_trace(loss=1, metrics__mean_absolute_error=4)])
    assert only.passed and only.only_in_a == ["metrics/mae"] and only.only_in_b == ["metrics/mean_absolute_error"]
    nothing = compare_traces([_trace(a=1)], [_trace(b=1)])
    assert not nothing.passed and nothing.first_divergence is None


def test_first_divergence_is_earliest_step_then_stage_then_natural_key_order() -> None:
    base = _trace(loss=1, gradients__2=[0, 0], gradients__10=[0, 0], weights__0=[0])
    bad = [dict(base), dict(base)]
    bad[0] = {**base, "weights/0": np.ones(1), "gradients/10": np.ones(2)}
    bad[1] = {**base, "loss": np.asarray(5.0)}
    result = compare_traces(bad, [base, base])
    assert (result.first_divergence.step, result.first_divergence.key) == (0, "gradients/10")
    assert ordered_keys(["weights/0", "gradients/10", "loss", "gradients/2", "y_pred/0"]) == [
        "y_pred/0", "loss", "gradients/2", "gradients/10", "weights/0"]


# ----------------------------------------------------------------------------------------------- planted


@pytest.fixture(scope="module")
def sgd_case():
    return load(DEFAULT_SUITE / "keras_relu_mse_sgd.json")


@pytest.fixture(scope="module")
def sgd_reference(sgd_case):
    return run_numpy(sgd_case)


@pytest.mark.parametrize("implementation", ALL_IMPLEMENTATIONS)
def test_other_learning_rate_fails_at_weights_of_the_first_step(implementation, sgd_case, sgd_reference) -> None:
    planted = sgd_case.with_optimizer(learning_rate=0.08)
    result = compare_traces(implementations.run(implementation, planted), sgd_reference, sgd_case.tolerance,
                            (implementation, "numpy"))
    d = result.first_divergence
    # Independently: the first weight element where lr * gradient moves by more than the tolerance allows.
    step0 = sgd_reference[0]
    expected = None
    for i in range(len(sgd_case.arrays.weights)):
        g, w = step0[f"gradients/{i}"].astype(np.float64), step0[f"weights/{i}"].astype(np.float64)
        moved = np.flatnonzero(np.abs((0.08 - 0.05) * g).ravel() > ATOL + RTOL * np.abs(w).ravel())
        if moved.size:
            expected = (f"weights/{i}", int(moved[0]))
            break
    assert (d.step, d.stage, (d.key, d.index)) == (0, "weights", expected)
    assert d.a == pytest.approx(float(sgd_case.arrays.weights[int(d.key[-1])].ravel()[d.index])
                                - 0.08 * float(step0[d.key.replace("weights", "gradients")].ravel()[d.index]),
                                abs=ATOL)


@pytest.mark.parametrize("implementation", PROFILE_IMPLEMENTATIONS)
def test_clipnorm_case_across_profiles_fails_at_clipped_gradients(implementation) -> None:
    case = load(DEFAULT_SUITE / "keras_relu_mse_sgd_clipnorm.json")
    keras_side = implementations.run(implementation, case)
    tfnet_side = implementations.run(implementation, case.with_semantics("tfnet"))
    result = compare_traces(keras_side, tfnet_side, case.tolerance, ("keras", "tfnet"))
    d = result.first_divergence
    assert (d.step, d.stage) == (0, "clipped_gradients")  # every earlier stage of step 0 agreed
    # tfnet applies the raw gradient; keras its clipped copy (norm 0.2)
    assert tfnet_side[0][d.key].ravel()[d.index] == keras_side[0][d.key.replace("clipped_", "")].ravel()[d.index]


@pytest.mark.parametrize("implementation", ALL_IMPLEMENTATIONS)
def test_wrong_activation_fails_at_y_pred(implementation, sgd_case, sgd_reference) -> None:
    layers = (DenseSpec(6, "tanh"), *sgd_case.model.layers[1:])
    planted = replace(sgd_case, model=replace(sgd_case.model, layers=layers))
    result = compare_traces(implementations.run(implementation, planted), sgd_reference, sgd_case.tolerance,
                            (implementation, "numpy"))
    d = result.first_divergence
    assert (d.step, d.stage, d.key) == (0, "y_pred", "y_pred/0")
