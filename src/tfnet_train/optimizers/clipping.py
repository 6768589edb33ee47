"""Gradient clipping with Keras 3's formulas (TensorFlow backend), op for op, so results agree bit for bit.

Every function takes a list of gradients that may hold None (left as None) and returns a new list.
Sparse gradients (tf.IndexedSlices) are made dense first.
"""

from __future__ import annotations

from collections.abc import Sequence

import tensorflow as tf

Gradient = tf.Tensor | None


def densify(grad: object) -> Gradient:
    """None stays None; IndexedSlices and array-likes become dense tensors."""
    if grad is None:
        return None
    if isinstance(grad, tf.IndexedSlices):
        return tf.convert_to_tensor(grad)
    if isinstance(grad, tf.Tensor):
        return grad
    return tf.convert_to_tensor(grad)


def clip_by_value(grads: Sequence[Gradient], clipvalue: float) -> list[Gradient]:
    """Each element clipped to [-clipvalue, clipvalue]."""
    return [None if g is None else tf.clip_by_value(densify(g), -clipvalue, clipvalue) for g in grads]


def clip_by_norm(grads: Sequence[Gradient], clipnorm: float) -> list[Gradient]:
    """Each tensor rescaled so its own L2 norm is at most ``clipnorm`` (tf.clip_by_norm, as Keras 3 on TF)."""
    return [None if g is None else tf.clip_by_norm(densify(g), clipnorm) for g in grads]


def global_norm(grads: Sequence[Gradient]) -> tf.Tensor:
    """sqrt of the sum over tensors of the sum of squares (Keras 3's order: per-tensor sums, stack, sum)."""
    squared = [tf.reduce_sum(tf.square(densify(g))) for g in grads if g is not None]
    return tf.sqrt(tf.reduce_sum(tf.stack(squared)))


def clip_by_global_norm(grads: Sequence[Gradient], global_clipnorm: float) -> list[Gradient]:
    """All tensors scaled by one factor so their global norm is at most ``global_clipnorm``.

    A non-finite global norm makes the factor NaN (the gradients become NaN), as in Keras 3.
    """
    if all(g is None for g in grads):
        return list(grads)
    norm = global_norm(grads)
    scale_if_finite = global_clipnorm * tf.minimum(1.0 / norm, 1.0 / global_clipnorm)
    scale = scale_if_finite + (norm - norm)
    return [None if g is None else densify(g) * scale for g in grads]
