"""LossesContainer: the compiled loss and the batch-size weighted 'loss' metric (LossesContainer.cs)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import keras
import tensorflow as tf
from keras.src.losses.losses import LossFunctionWrapper  # not exported by keras.losses

from tfnet_train.semantics import KERAS, TFNET

_LOSS_CLASSES: dict[str, type] = {
    "mse": keras.losses.MeanSquaredError,
    "mean_squared_error": keras.losses.MeanSquaredError,
    "mae": keras.losses.MeanAbsoluteError,
    "mean_absolute_error": keras.losses.MeanAbsoluteError,
    "mape": keras.losses.MeanAbsolutePercentageError,
    "mean_absolute_percentage_error": keras.losses.MeanAbsolutePercentageError,
    "msle": keras.losses.MeanSquaredLogarithmicError,
    "mean_squared_logarithmic_error": keras.losses.MeanSquaredLogarithmicError,
    "binary_crossentropy": keras.losses.BinaryCrossentropy,
    "categorical_crossentropy": keras.losses.CategoricalCrossentropy,
    "sparse_categorical_crossentropy": keras.losses.SparseCategoricalCrossentropy,
    "hinge": keras.losses.Hinge,
    "huber": keras.losses.Huber,
    "kld": keras.losses.KLDivergence,
    "kl_divergence": keras.losses.KLDivergence,
    "poisson": keras.losses.Poisson,
    "log_cosh": keras.losses.LogCosh,
}
# TF.NET's string compile knows two names (case-sensitive) and falls back to MSE for anything else.
_TFNET_LOSSES: dict[str, type] = {"mse": keras.losses.MeanSquaredError, "mae": keras.losses.MeanAbsoluteError}


def get_loss(identifier: Any, semantics: str = KERAS) -> keras.losses.Loss:
    """Resolve a loss given by name, Keras loss object or callable ``fn(y_true, y_pred)``."""
    if isinstance(identifier, keras.losses.Loss):
        return identifier
    if isinstance(identifier, str):
        if semantics == TFNET:  # TF.NET matches the exact string: "MAE" is not "mae"
            return _TFNET_LOSSES.get(identifier, keras.losses.MeanSquaredError)()
        if identifier in _LOSS_CLASSES:  # names are case-sensitive, as in Keras 3
            return _LOSS_CLASSES[identifier]()
        try:
            found = keras.losses.get(identifier)  # any other name Keras 3 knows ("huber", "MeanSquaredError")
        except ValueError:
            raise ValueError(
                f"loss: unknown name {identifier!r}; expected a Keras 3 loss name such as {sorted(_LOSS_CLASSES)}"
            ) from None
        if isinstance(found, keras.losses.Loss):
            return found
        return LossFunctionWrapper(found, name=identifier)
    if identifier is None:
        if semantics == TFNET:
            return keras.losses.MeanSquaredError()
        raise ValueError("loss: None given; compile(loss=...) needs a loss name, object or callable")
    if callable(identifier):
        name = getattr(identifier, "__name__", "loss")
        return LossFunctionWrapper(identifier, name=name)
    raise TypeError(f"loss must be a name, a keras.losses.Loss or a callable, got {type(identifier).__name__}")


class LossesContainer:
    """Computes the training loss: compiled loss per output, plus regularization losses under ``keras``."""

    def __init__(self, losses: Any, semantics: str = KERAS) -> None:
        self.semantics = semantics
        if losses is None and semantics == KERAS:
            self._losses = []  # only add_loss / regularization terms, as Keras 3 allows
        elif isinstance(losses, list | tuple):
            self._losses = [get_loss(loss, semantics) for loss in losses]
        else:
            self._losses = [get_loss(losses, semantics)]
        self.loss_metric = keras.metrics.Mean(name="loss")

    @property
    def losses(self) -> list[keras.losses.Loss]:
        return list(self._losses)

    def __call__(
        self,
        y_true: Any,
        y_pred: Any,
        sample_weight: Any = None,
        regularization_losses: Sequence[tf.Tensor] | None = None,
        batch_size: tf.Tensor | None = None,
    ) -> tf.Tensor:
        """The total loss of one batch; also feeds the 'loss' metric (weighted by batch size)."""
        y_true_list, y_pred_list = _as_list(y_true), _as_list(y_pred)
        if self._losses and len(y_true_list) != len(y_pred_list):
            raise ValueError(
                f"y must hold one target per model output: the model has {len(y_pred_list)} outputs, "
                f"y has {len(y_true_list)}"
            )
        losses = self._losses * len(y_pred_list) if len(self._losses) == 1 else self._losses
        if losses and len(losses) != len(y_pred_list):
            raise ValueError(f"loss: got {len(losses)} losses for a model with {len(y_pred_list)} outputs")
        total = None
        for loss_fn, yt, yp in zip(losses, y_true_list, y_pred_list) if losses else ():
            value = self._one_loss(loss_fn, yt, yp, sample_weight)
            total = value if total is None else total + value
        if self.semantics == KERAS and regularization_losses:
            extra = tf.add_n([tf.reduce_sum(tf.cast(r, tf.float32)) for r in regularization_losses])
            replicas = tf.distribute.get_replica_context()
            if replicas is not None and replicas.num_replicas_in_sync > 1:
                extra = extra / replicas.num_replicas_in_sync
            total = extra if total is None else total + extra
        if total is None:
            raise ValueError("loss: no loss to compute; give compile(loss=...) or add losses to the model")
        if batch_size is None:
            batch_size = tf.shape(tf.nest.flatten(y_pred_list[0])[0])[0]
        replicas = tf.distribute.get_replica_context()
        unscaled = total
        if replicas is not None and replicas.num_replicas_in_sync > 1:
            unscaled = total * replicas.num_replicas_in_sync
        self.loss_metric.update_state(unscaled, sample_weight=batch_size)
        return total

    def _one_loss(self, loss_fn: keras.losses.Loss, y_true: Any, y_pred: Any, sample_weight: Any) -> tf.Tensor:
        if self.semantics == TFNET:
            return _tfnet_weighted_loss(loss_fn, y_true, y_pred, sample_weight)
        return loss_fn(y_true, y_pred, sample_weight=sample_weight)

    def reset_state(self) -> None:
        self.loss_metric.reset_state()


def _tfnet_weighted_loss(loss_fn: Callable, y_true: Any, y_pred: Any, sample_weight: Any) -> tf.Tensor:
    """TF.NET's compute_weighted_loss: losses * sample_weight without squeezing, then sum / element count.

    After Expand1d the weights are (B, 1) and per-sample losses (B,), so they broadcast to (B, B).
    """
    values = loss_fn.call(y_true, y_pred)
    if sample_weight is not None:
        values = values * tf.cast(sample_weight, values.dtype)
    return tf.math.divide_no_nan(tf.reduce_sum(values), tf.cast(tf.size(values), values.dtype))


def _as_list(value: Any) -> list[Any]:
    if isinstance(value, list | tuple):
        return list(value)
    if isinstance(value, dict):
        return [value[k] for k in sorted(value)]
    return [value]
