"""The compiled loss under the ``tfnet`` profile (LossesContainer.cs); under ``keras`` Keras's CompileLoss alone.

Keras's ``CompileLoss`` matches losses to outputs, weights them and logs them; what TF.NET computes differently is
how a loss is chosen from a string and how sample weights meet per-sample losses.
"""

from __future__ import annotations

from typing import Any

import keras
import tensorflow as tf

from tfnet_train.keras_internals import LossFunctionWrapper

# TF.NET's string compile knows two names (case-sensitive) and falls back to MSE for anything else.
_TFNET_LOSSES: dict[str, type] = {"mse": keras.losses.MeanSquaredError, "mae": keras.losses.MeanAbsoluteError}


@keras.saving.register_keras_serializable(package="tfnet_train")
class TfnetWeightedLoss(keras.losses.Loss):
    """A loss weighted the way TF.NET's compute_weighted_loss does: per-sample losses times sample_weight without
    squeezing, then sum / element count. After Expand1d the weights are (B, 1) and the losses (B,), so they
    broadcast to (B, B) and each batch's loss becomes mean(w) * mean(loss)."""

    def __init__(self, loss: Any, name: str | None = None, **kwargs: Any) -> None:
        self.inner = keras.losses.get(loss) if not isinstance(loss, keras.losses.Loss) else loss
        super().__init__(name=name or getattr(self.inner, "name", "loss"), **kwargs)

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> tf.Tensor:
        values = self.call(y_true, y_pred)
        if sample_weight is not None:
            values = values * tf.cast(sample_weight, values.dtype)
        return tf.math.divide_no_nan(tf.reduce_sum(values), tf.cast(tf.size(values), values.dtype))

    def call(self, y_true: Any, y_pred: Any) -> tf.Tensor:
        if isinstance(self.inner, keras.losses.CategoricalCrossentropy):
            return _tfnet_categorical_crossentropy(self.inner, y_true, y_pred)
        return self.inner.call(y_true, y_pred)

    def get_config(self) -> dict[str, Any]:
        return {"loss": keras.losses.serialize(self.inner), "name": self.name}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> TfnetWeightedLoss:
        return cls(keras.losses.deserialize(config["loss"]), name=config.get("name"))


def _tfnet_categorical_crossentropy(loss: keras.losses.CategoricalCrossentropy, y_true: Any, y_pred: Any) -> tf.Tensor:
    """TF.NET's categorical_crossentropy (BackendImpl.cs): ``-sum(y_true * log(p))`` over the last axis, where ``p`` is
    ``y_pred`` scaled to sum 1 and clipped to [eps, 1 - eps] (or log-softmax of logits). ``y_true`` broadcasts against
    ``y_pred``, so class ids of shape (B, 1) — which Keras refuses — give ``-id * sum(log p)``. Labels of ``y_pred``'s
    shape take Keras's own path (label smoothing included)."""
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.cast(y_true, y_pred.dtype)
    if y_true.shape.rank is None or y_true.shape[-1] != 1 or y_pred.shape[-1] == 1:
        return loss.call(y_true, y_pred)
    config = loss.get_config()
    if config.get("from_logits"):
        return -tf.reduce_sum(y_true * tf.nn.log_softmax(y_pred, axis=-1), axis=-1)
    epsilon = tf.constant(keras.config.epsilon(), y_pred.dtype)
    p = y_pred / tf.reduce_sum(y_pred, axis=-1, keepdims=True)
    return -tf.reduce_sum(y_true * tf.math.log(tf.clip_by_value(p, epsilon, 1.0 - epsilon)), axis=-1)


def tfnet_loss(identifier: Any) -> keras.losses.Loss:
    """TF.NET's loss from what compile receives: exactly "mse"/"mae", any other string or None -> MSE; objects and
    callables as given; every one weighted as TF.NET weights it."""
    if isinstance(identifier, TfnetWeightedLoss):
        return identifier
    if identifier is None or isinstance(identifier, str):
        inner = _TFNET_LOSSES.get(identifier, keras.losses.MeanSquaredError)()
    elif isinstance(identifier, keras.losses.Loss):
        inner = identifier
    elif callable(identifier):
        inner = LossFunctionWrapper(identifier, name=getattr(identifier, "__name__", "loss"))
    else:
        raise TypeError(f"loss must be a name, a keras.losses.Loss or a callable, got {type(identifier).__name__}")
    return TfnetWeightedLoss(inner)
