"""semantics="tfnet" vs "keras": compiled metrics (TF.NET Engine/MetricsContainer.cs, Model.Train.cs,
Metrics/MetricsApi.cs).

tfnet numbers are checked against NumPy (TF.NET's metric functions over the predictions each step made before its
update), keras numbers against Keras 3.
"""

from __future__ import annotations

from collections.abc import Callable

import keras
import numpy as np
import pytest
from test_semantics_reference import (
    N_IN,
    LinearNet,
    SGDRef,
    Trio,
    assert_history_matches,
    assert_weights_match,
    data,
    tfnet_fit,
    trio,
    weights,
)

from tfnet_train import optimizers

LR, EPOCHS, BATCH = 0.05, 2, 4
FIT = dict(batch_size=BATCH, epochs=EPOCHS, verbose=0, shuffle=False)


def binary_accuracy(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    return np.mean(y == (p > 0.5).astype(np.float64), axis=-1)


def mean_absolute_error(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    return np.mean(np.abs(p - y), axis=-1)


def mean_absolute_percentage_error(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    return 100.0 * np.mean(np.abs((y - p) / np.maximum(np.abs(y), 1e-7)), axis=-1)


METRICS: dict[str, tuple[str, Callable[[np.ndarray, np.ndarray], np.ndarray]]] = {
    "acc": ("accuracy", binary_accuracy),
    "accuracy": ("accuracy", binary_accuracy),
    "mae": ("mean_absolute_error", mean_absolute_error),
    "mean_absolute_error": ("mean_absolute_error", mean_absolute_error),
    "mape": ("mean_absolute_percentage_error", mean_absolute_percentage_error),
    "mean_absolute_percentage_error": ("mean_absolute_percentage_error", mean_absolute_percentage_error),
}


def one_output_data(binary: bool, seed: int) -> tuple[np.ndarray, np.ndarray]:
    x, y = data(n=6, n_out=1, seed=seed)
    return x, ((y > 0).astype("float32") if binary else y)


def one_output_trio() -> Trio:
    return trio(lambda: [keras.Input((N_IN,)), keras.layers.Dense(1)])


def keras_side(t: Trio, metrics: list, x: np.ndarray, y: np.ndarray, **fit: object) -> dict[str, list[float]]:
    t.reference.compile(optimizer=keras.optimizers.SGD(LR), loss="mse", metrics=metrics, run_eagerly=True)
    t.keras_profile.compile(optimizer=optimizers.SGD(LR), loss="mse", metrics=metrics, semantics="keras",
                            run_eagerly=True)
    expected = t.reference.fit(x, y, **FIT, **fit).history
    got = t.keras_profile.fit(x, y, **FIT, **fit).history
    assert_history_matches(got, expected)
    assert_weights_match(t.keras_profile.get_weights(), t.reference.get_weights())
    return got


@pytest.mark.parametrize("name", sorted(METRICS))
def test_metric_strings_are_reported_under_tfnet_names(name: str) -> None:
    """'acc' is logged as "accuracy", 'mae' as "mean_absolute_error", 'mape' as "mean_absolute_percentage_error";
    Keras 3 logs the string as given."""
    reported, function = METRICS[name]
    x, y = one_output_data(binary=reported == "accuracy", seed=20)
    t = one_output_trio()
    model = t.tfnet_profile
    model.compile(optimizer=optimizers.SGD(LR), loss="mse", metrics=[name], semantics="tfnet", run_eagerly=True)
    history = model.fit(x, y, **FIT).history
    records = tfnet_fit(LinearNet.of(t.initial), SGDRef(LR), x, y, BATCH, EPOCHS)
    expected = [float(np.mean(np.concatenate([function(yb, pb) for yb, pb in zip(r.targets, r.predictions,
                                                                                   strict=True)])))
                for r in records]
    assert_history_matches(history, {"loss": [r.loss for r in records], reported: expected})
    assert set(keras_side(t, [name], x, y)) == {"loss", name}


@pytest.mark.parametrize("name", ["mse", "binary_accuracy", "ACC", "Mae"])
def test_other_metric_strings_are_errors(name: str) -> None:
    """TF.NET throws NotImplementedException for any other metric string (at the first step, case-sensitive);
    tfnet raises ValueError at compile. Under keras the names Keras 3 knows work as there."""
    t = one_output_trio()
    with pytest.raises(ValueError, match=f"{name!r} is not available under semantics='tfnet'"):
        t.tfnet_profile.compile(optimizer=optimizers.SGD(LR), loss="mse", metrics=[name], semantics="tfnet")
    if name in ("mse", "binary_accuracy"):
        x, y = one_output_data(binary=True, seed=21)
        assert set(keras_side(t, [name], x, y)) == {"loss", name}


def test_metrics_ignore_sample_weights() -> None:
    """update_state(y, y_pred) gets no sample weights: the metric is the plain mean over samples. Keras 3's
    `metrics=` are unweighted too (only its `weighted_metrics`, which TF.NET lacks, use them)."""
    x, y = data(n=6, seed=22)
    sw = weights(6)
    t = trio()
    model = t.tfnet_profile
    model.compile(optimizer=optimizers.SGD(LR), loss="mse", metrics=["mae"], semantics="tfnet", run_eagerly=True)
    history = model.fit(x, y, sample_weight=sw, **FIT).history
    records = tfnet_fit(LinearNet.of(t.initial), SGDRef(LR), x, y, BATCH, EPOCHS, sample_weight=sw)
    per_sample = [np.concatenate([mean_absolute_error(yb, pb) for yb, pb in zip(r.targets, r.predictions,
                                                                                strict=True)]) for r in records]
    assert_history_matches(history, {"loss": [r.loss for r in records],
                                     "mean_absolute_error": [float(np.mean(v)) for v in per_sample]})
    assert not np.isclose(history["mean_absolute_error"][0], np.average(per_sample[0], weights=sw))
    keras_side(t, ["mae"], x, y, sample_weight=sw)


def _fbeta_reference(y_true: np.ndarray, y_pred: np.ndarray, beta: float, threshold: float) -> np.ndarray:
    """TF.NET's FBetaScore (Metrics/FBetaScore.cs) in float32 NumPy: counts per class, then divide_no_nan."""
    f32 = np.float32
    hits = (y_pred > threshold).astype(f32)
    truth = y_true.astype(f32)
    tp, fp, fn = ((hits * truth).sum(0), (hits * (f32(1) - truth)).sum(0), ((f32(1) - hits) * truth).sum(0))

    def divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.where(b == 0, f32(0), a / np.where(b == 0, f32(1), b)).astype(f32)

    precision, recall = divide(tp, tp + fp), divide(tp, tp + fn)
    b2 = f32(beta) * f32(beta)
    return (divide(precision * recall, b2 * precision + recall) * (f32(1) + b2)).astype(f32)


@pytest.mark.parametrize(("name", "beta", "tfnet_expected"), [
    ("F1Score", 1.0, [0.5, 0.8, 0.6666667]),            # TF.NET's MetricsTest.F1Score
    ("FBetaScore", 2.0, [0.3846154, 0.90909094, 0.8333334]),  # TF.NET's MetricsTest.FBetaScore
])
def test_f_scores_divide_as_tfnet_divides(name: str, beta: float, tfnet_expected: list[float]) -> None:
    """Row 27: TF.NET's FBetaScore.result divides with divide_no_nan; Keras 3 adds epsilon to each denominator, so
    TF.NET's 0.5 reads 0.49999997. The face builds the metric for its semantics."""
    from tfnet_train.bridge.tensors import build_metric

    y_true = np.array([[1, 1, 1], [1, 0, 0], [1, 1, 0]])
    y_pred = np.array([[0.2, 0.6, 0.7], [0.2, 0.6, 0.6], [0.6, 0.8, 0.0]], np.float32)
    kwargs = {"threshold": 0.5} if name == "F1Score" else {"threshold": 0.5, "beta": beta}
    results = {}
    for semantics in ("keras", "tfnet"):
        metric = build_metric(name, {**kwargs, "semantics": semantics})
        metric.update_state(y_true, y_pred)
        results[semantics] = np.asarray(metric.result())
    np.testing.assert_array_equal(results["tfnet"], np.array(tfnet_expected, np.float32))
    np.testing.assert_array_equal(results["tfnet"], _fbeta_reference(y_true, y_pred, beta, 0.5))
    keras_metric = getattr(keras.metrics, name)(**kwargs)
    keras_metric.update_state(y_true, y_pred)
    np.testing.assert_array_equal(results["keras"], np.asarray(keras_metric.result()))
    assert not np.array_equal(results["keras"], results["tfnet"])  # the last digits part
