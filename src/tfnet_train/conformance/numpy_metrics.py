"""Compiled metrics in float32 NumPy: running means since the last reset, unweighted (as compile metrics are).

Under ``keras`` semantics a metric is reported under the name it was given; under ``tfnet`` TensorFlow.NET's
MetricsContainer renames 'acc' to 'accuracy', 'mae' to 'mean_absolute_error', 'mape' to
'mean_absolute_percentage_error', and throws for any other string (so 'mse' is not available there).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tfnet_train.conformance import f32 as F
from tfnet_train.semantics import get_profile

TFNET_NAMES = {"accuracy": "accuracy", "acc": "accuracy", "mae": "mean_absolute_error",
               "mape": "mean_absolute_percentage_error"}
MetricFn = Callable[[np.ndarray, np.ndarray], np.ndarray]


class RunningMean:
    """A Mean metric: float32 total and count, result total / count."""

    def __init__(self) -> None:
        self.total = np.float32(0)
        self.count = np.float32(0)

    def update(self, values: np.ndarray, weight: float | None = None) -> None:
        """Add per-sample ``values``; with ``weight`` (a scalar value), add value*weight and count weight."""
        if weight is None:
            self.total = F.add(self.total, F.sum_(values))
            self.count = F.add(self.count, np.size(values))
        else:
            self.total = F.add(self.total, F.mul(values, weight))
            self.count = F.add(self.count, weight)

    def result(self) -> float:
        return float(F.div_no_nan(self.total, self.count))


def _accuracy_for(y_true: np.ndarray, y_pred: np.ndarray) -> MetricFn:
    """Binary, sparse categorical or categorical accuracy, chosen from the shapes as Keras does."""
    k = y_pred.shape[-1]
    if k == 1:
        return lambda t, p: F.mean(F.f32(F.f32(t).reshape(p.shape) == F.f32(p > 0.5)), axis=-1)
    if y_true.ndim < y_pred.ndim or y_true.shape[-1] == 1:
        return lambda t, p: F.f32(t.reshape(-1).astype(np.float64) == np.argmax(p, axis=-1))
    return lambda t, p: F.f32(np.argmax(t, axis=-1) == np.argmax(p, axis=-1))


def _mae(t: np.ndarray, p: np.ndarray) -> np.ndarray:
    return F.mean(F.abs_(F.sub(F.f32(t).reshape(p.shape), p)), axis=-1)


def _mse(t: np.ndarray, p: np.ndarray) -> np.ndarray:
    return F.mean(F.square(F.sub(F.f32(t).reshape(p.shape), p)), axis=-1)


def _mape(t: np.ndarray, p: np.ndarray) -> np.ndarray:
    t = F.f32(t).reshape(p.shape)
    ratio = F.div(F.sub(t, p), F.maximum(F.abs_(t), F.c32(1e-7)))
    return F.mul(100.0, F.mean(F.abs_(ratio), axis=-1))


def metric_name(identifier: str, semantics: str) -> str:
    """The name a metric is reported under."""
    if not get_profile(semantics).tfnet_metrics:
        return identifier
    if identifier not in TFNET_NAMES:
        raise NotImplementedError(
            f"metric {identifier!r} is not available under semantics 'tfnet' "
            "(TensorFlow.NET's MetricsContainer throws NotImplementedException for it)")
    return TFNET_NAMES[identifier]


class CompiledMetrics:
    """The step logs: 'loss' (batch-size weighted mean of step losses), then each metric's running mean."""

    def __init__(self, identifiers: tuple[str, ...], semantics: str) -> None:
        self.identifiers = identifiers
        self.semantics = semantics
        self.names = [metric_name(m, semantics) for m in identifiers]
        self.loss = RunningMean()
        self.trackers = [RunningMean() for _ in identifiers]
        self._fns: list[MetricFn] | None = None

    def update(self, loss: np.float32, batch_size: int, y_true: np.ndarray, y_pred: np.ndarray) -> None:
        self.loss.update(loss, weight=batch_size)
        if self._fns is None:
            table: dict[str, MetricFn] = {"mae": _mae, "mse": _mse, "mape": _mape}
            self._fns = [_accuracy_for(y_true, y_pred) if m in ("accuracy", "acc") else table[m]
                         for m in self.identifiers]
        for fn, tracker in zip(self._fns, self.trackers, strict=True):
            tracker.update(fn(y_true, y_pred))

    def results(self) -> dict[str, float]:
        out = {"loss": self.loss.result()}
        for name, tracker in zip(self.names, self.trackers, strict=True):
            out[name] = tracker.result()
        return out
