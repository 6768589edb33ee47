"""MetricsContainer: compiled metrics resolved from names or objects (MetricsContainer.cs)."""

from __future__ import annotations

from typing import Any

import keras
import tensorflow as tf

from tfnet_train.semantics import KERAS, TFNET

_ACCURACY_NAMES = ("accuracy", "acc")
# TF.NET resolves these strings (and throws for any other); the value is the name it reports.
_TFNET_NAMES = {
    "accuracy": "accuracy",
    "acc": "accuracy",
    "mae": "mean_absolute_error",
    "mean_absolute_error": "mean_absolute_error",
    "mape": "mean_absolute_percentage_error",
    "mean_absolute_percentage_error": "mean_absolute_percentage_error",
}


def accuracy_kind(y_true_shape: tf.TensorShape, y_pred_shape: tf.TensorShape) -> str:
    """'binary', 'sparse_categorical' or 'categorical', from static shapes (the rule Keras and TF.NET share)."""
    if y_pred_shape[-1] == 1:
        return "binary"
    if y_true_shape.rank < y_pred_shape.rank or y_true_shape[-1] == 1:
        return "sparse_categorical"
    return "categorical"


class Accuracy(keras.metrics.Metric):
    """'accuracy' whose kind is chosen from the first batch's shapes; all kinds are built up front."""

    def __init__(self, name: str = "accuracy") -> None:
        super().__init__(name=name)
        self._kinds = {
            "binary": keras.metrics.BinaryAccuracy(name=name),
            "sparse_categorical": keras.metrics.SparseCategoricalAccuracy(name=name),
            "categorical": keras.metrics.CategoricalAccuracy(name=name),
        }
        self.kind: str | None = None

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        if self.kind is None:
            self.kind = accuracy_kind(tf.TensorShape(y_true.shape), tf.TensorShape(y_pred.shape))
        self._kinds[self.kind].update_state(y_true, y_pred, sample_weight=sample_weight)

    def result(self) -> tf.Tensor:
        return self._kinds[self.kind or "binary"].result()

    def reset_state(self) -> None:
        for metric in self._kinds.values():
            metric.reset_state()


def get_metric(identifier: Any, semantics: str = KERAS) -> keras.metrics.Metric:
    """Resolve one metric from a name, a Keras metric object or a callable ``fn(y_true, y_pred)``."""
    if isinstance(identifier, keras.metrics.Metric):
        return identifier
    if isinstance(identifier, str):
        key = identifier.lower()
        if semantics == TFNET:
            if identifier not in _TFNET_NAMES:  # exact match, as TF.NET compares the strings
                raise ValueError(
                    f"metrics: {identifier!r} is not available under semantics='tfnet' "
                    f"(TensorFlow.NET knows exactly {sorted(_TFNET_NAMES)})"
                )
            reported = _TFNET_NAMES[identifier]
            if reported == "accuracy":
                return Accuracy(name="accuracy")
            return keras.metrics.MeanMetricWrapper(getattr(keras.metrics, reported), name=reported)
        if key in _ACCURACY_NAMES:
            return Accuracy(name=identifier)
        try:
            found = keras.metrics.get(identifier)
        except ValueError:
            raise ValueError(f"metrics: unknown metric name {identifier!r}") from None
        if isinstance(found, keras.metrics.Metric):
            found.name = identifier
            return found
        return keras.metrics.MeanMetricWrapper(found, name=identifier)
    if callable(identifier):
        return keras.metrics.MeanMetricWrapper(identifier, name=getattr(identifier, "__name__", "metric"))
    raise TypeError(f"metrics entries must be names, keras.metrics.Metric objects or callables, "
                    f"got {type(identifier).__name__}")


class MetricsContainer:
    """Holds the compiled metrics; metrics never see sample weights (Keras 3 `metrics=` and TF.NET agree)."""

    def __init__(self, metrics: Any, semantics: str = KERAS) -> None:
        if metrics is None:
            metrics = []
        if not isinstance(metrics, list | tuple):
            metrics = [metrics]
        self.semantics = semantics
        self._metrics = [get_metric(m, semantics) for m in metrics]

    @property
    def metrics(self) -> list[keras.metrics.Metric]:
        return list(self._metrics)

    def update_state(self, y_true: Any, y_pred: Any) -> None:
        """Update every metric with the first output's targets and predictions."""
        yt = y_true[0] if isinstance(y_true, list | tuple) else y_true
        yp = y_pred[0] if isinstance(y_pred, list | tuple) else y_pred
        for metric in self._metrics:
            metric.update_state(yt, yp)

    def reset_state(self) -> None:
        for metric in self._metrics:
            metric.reset_state()
