"""SGD, with optional (Nesterov) momentum.

keras profile (Keras 3): ``velocity = momentum * velocity - lr * g``; ``w += velocity``, or with
Nesterov ``w += momentum * velocity - lr * g``; without momentum ``w -= g * lr``.

tfnet profile (TensorFlow.NET ``SGD.cs``): the same kernels TensorFlow.NET calls —
``ResourceApplyGradientDescent`` without momentum, ``ResourceApplyKerasMomentum`` with it — and Nesterov
never applied (its constructor assigns the ``nesterov`` argument to itself, so the field stays false).
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfnet_train.optimizers import _checks
from tfnet_train.optimizers.optimizer_v2 import OptimizerV2, Slots, hyper


class SGD(OptimizerV2):
    """Gradient descent; slot ``"momentum"`` when ``momentum > 0``."""

    _default_name = "SGD"

    def __init__(
        self,
        learning_rate: Any = 0.01,
        momentum: float = 0.0,
        nesterov: bool = False,
        *,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(
            learning_rate, clipnorm=clipnorm, clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name
        )
        self.momentum = _checks.in_range("momentum", momentum, 0.0, 1.0, high_inclusive=True)
        self.nesterov = _checks.boolean("nesterov", nesterov)

    def _slot_names(self) -> tuple[str, ...]:
        return ("momentum",) if self.momentum > 0 else ()

    def _keras_update(self, var: tf.Variable, grad: tf.Tensor, lr: tf.Tensor, slots: Slots) -> None:
        lr = tf.cast(lr, var.dtype)
        if self.momentum == 0:
            var.assign_sub(grad * lr)
            return
        velocity = slots["momentum"]
        momentum = tf.cast(self.momentum, var.dtype)
        velocity.assign(velocity * momentum - grad * lr)
        if self.nesterov:
            var.assign_add(velocity * momentum - grad * lr)
        else:
            var.assign_add(velocity)

    def _tfnet_update(self, var: tf.Variable, grad: tf.Tensor, lr: tf.Tensor, slots: Slots) -> None:
        lr = tf.cast(lr, var.dtype)
        if self.momentum > 0:
            tf.raw_ops.ResourceApplyKerasMomentum(
                var=var.handle,
                accum=slots["momentum"].handle,
                lr=lr,
                grad=grad,
                momentum=hyper(self.momentum, var.dtype),
                use_locking=True,
                use_nesterov=False,
            )
        else:
            tf.raw_ops.ResourceApplyGradientDescent(var=var.handle, alpha=lr, delta=grad, use_locking=True)

    def _hyper_config(self) -> dict[str, Any]:
        return {"momentum": self.momentum, "nesterov": self.nesterov}
