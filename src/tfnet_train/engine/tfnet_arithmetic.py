"""A loss and two metrics whose float32 arithmetic TensorFlow.NET orders differently from Keras 3 (docs/semantics.md
row 27): what the TF.NET-shaped face builds for ``keras.losses.SigmoidFocalCrossEntropy`` and
``keras.metrics.F1Score`` / ``FBetaScore`` under the ``tfnet`` profile.

- TF.NET's ``SigmoidFocalCrossEntropy`` (TF Addons' loss, ``Losses/SigmoidFocalCrossEntropy.cs``) weighs its
  backend's ``binary_crossentropy``, which takes ``log(output + epsilon)`` after clipping (``BackendImpl.cs``);
  Keras 3's ``BinaryFocalCrossentropy`` with class balancing takes ``log(output)``.
- TF.NET's ``FBetaScore.result`` (``Metrics/FBetaScore.cs``) divides with ``divide_no_nan`` where Keras 3 adds
  ``epsilon`` to each denominator, so a score of exactly 0.5 reads 0.49999997 in Keras 3.
"""

from __future__ import annotations

from typing import Any

import keras
import tensorflow as tf

from tfnet_train.semantics import get_profile


@keras.saving.register_keras_serializable(package="tfnet_train")
class SigmoidFocalCrossEntropy(keras.losses.Loss):
    """TF.NET's (TF Addons') sigmoid focal cross-entropy: ``sum(alpha_factor * (1 - p_t)**gamma * ce)`` over the last
    axis, ``ce`` TF.NET's backend binary cross-entropy; reduction "none" by default, as TF.NET's."""

    def __init__(self, from_logits: bool = False, alpha: float = 0.25, gamma: float = 2.0,
                 reduction: str | None = "none", name: str = "sigmoid_focal_crossentropy", **kwargs: Any) -> None:
        super().__init__(reduction=reduction, name=name, **kwargs)
        self.from_logits, self.alpha, self.gamma = bool(from_logits), float(alpha), float(gamma)

    def call(self, y_true: Any, y_pred: Any) -> tf.Tensor:
        y_pred = tf.convert_to_tensor(y_pred)
        y_true = tf.cast(y_true, y_pred.dtype)
        if self.from_logits:
            ce = tf.nn.sigmoid_cross_entropy_with_logits(labels=y_true, logits=y_pred)
            probability = tf.sigmoid(y_pred)
        else:  # BackendImpl.binary_crossentropy: log(output + epsilon) after clipping to [epsilon, 1 - epsilon]
            epsilon = keras.config.epsilon()
            output = tf.clip_by_value(y_pred, epsilon, 1.0 - epsilon)
            ce = -(y_true * tf.math.log(output + epsilon) + (1.0 - y_true) * tf.math.log(1.0 - output + epsilon))
            probability = y_pred
        p_t = y_true * probability + (1.0 - y_true) * (1.0 - probability)
        factor = tf.ones_like(ce)
        if self.alpha > 0:
            alpha = tf.cast(self.alpha, y_true.dtype)
            factor = y_true * alpha + (1.0 - y_true) * (1.0 - alpha)
        if self.gamma > 0:
            factor = factor * tf.pow(1.0 - p_t, tf.cast(self.gamma, y_true.dtype))
        return tf.reduce_sum(factor * ce, axis=-1)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "from_logits": self.from_logits, "alpha": self.alpha, "gamma": self.gamma}


def _fbeta_result(metric: keras.metrics.FBetaScore) -> tf.Tensor:
    """FBetaScore.cs ``result``: precision, recall and their weighted mean with ``divide_no_nan``."""
    tp, fp, fn = (tf.convert_to_tensor(v) for v in (metric.true_positives, metric.false_positives,
                                                      metric.false_negatives))
    precision = tf.math.divide_no_nan(tp, tp + fp)
    recall = tf.math.divide_no_nan(tp, tp + fn)
    beta_squared = tf.square(tf.constant(metric.beta, precision.dtype))
    score = tf.math.divide_no_nan(precision * recall, beta_squared * precision + recall) * (1 + beta_squared)
    if metric.average == "weighted":
        weights = tf.convert_to_tensor(metric.intermediate_weights)
        return tf.reduce_sum(score * tf.math.divide_no_nan(weights, tf.reduce_sum(weights)))
    if metric.average is not None:  # micro, macro
        return tf.reduce_mean(score)
    return score


@keras.saving.register_keras_serializable(package="tfnet_train")
class FBetaScore(keras.metrics.FBetaScore):
    """Keras 3's FBetaScore with TF.NET's ``result`` arithmetic."""

    def result(self) -> tf.Tensor:
        return _fbeta_result(self)


@keras.saving.register_keras_serializable(package="tfnet_train")
class F1Score(keras.metrics.F1Score):
    """Keras 3's F1Score with TF.NET's ``result`` arithmetic."""

    def result(self) -> tf.Tensor:
        return _fbeta_result(self)


def sigmoid_focal_crossentropy(semantics: str = "keras", **kwargs: Any) -> keras.losses.Loss:
    """The face's ``keras.losses.SigmoidFocalCrossEntropy``: TF.NET's arithmetic under the tfnet profile, else
    Keras 3's BinaryFocalCrossentropy with class balancing (the same loss in Keras 3's arithmetic)."""
    if get_profile(semantics).tfnet_loss_and_metric_arithmetic:
        return SigmoidFocalCrossEntropy(**kwargs)
    return keras.losses.BinaryFocalCrossentropy(apply_class_balancing=True, **kwargs)


def fbeta_score(semantics: str = "keras", **kwargs: Any) -> keras.metrics.Metric:
    """The face's ``keras.metrics.FBetaScore``: TF.NET's result arithmetic under the tfnet profile."""
    tfnet = get_profile(semantics).tfnet_loss_and_metric_arithmetic
    return (FBetaScore if tfnet else keras.metrics.FBetaScore)(**kwargs)


def f1_score(semantics: str = "keras", **kwargs: Any) -> keras.metrics.Metric:
    """The face's ``keras.metrics.F1Score``: TF.NET's result arithmetic under the tfnet profile."""
    tfnet = get_profile(semantics).tfnet_loss_and_metric_arithmetic
    return (F1Score if tfnet else keras.metrics.F1Score)(**kwargs)


#: What the face builds by these class names, each taking ``semantics`` besides Keras's arguments.
FACE_LOSSES = {"SigmoidFocalCrossEntropy": sigmoid_focal_crossentropy}
FACE_METRICS = {"FBetaScore": fbeta_score, "F1Score": f1_score}
