"""RMSprop.

keras profile (Keras 3): ``rms = rho * rms + (1 - rho) * g^2``; centered also
``mg = rho * mg + (1 - rho) * g`` and ``denominator = rms - mg^2 + eps``, else ``rms + eps``;
``increment = lr * g / sqrt(denominator)`` (eps INSIDE the square root); with momentum
``momentum_slot = momentum * momentum_slot + increment; w -= momentum_slot``, else ``w -= increment``.

tfnet profile (TensorFlow.NET ``RMSprop.cs``): ``rms = rho * rms + (1 - rho) * g^2``;
``w = w - lr * g / (sqrt(rms) + eps)`` (eps OUTSIDE the square root); ``momentum`` ignored (its momentum
flag is never set, so no momentum slot is made); ``centered=True`` raises NotImplementedError at the first
update, as TensorFlow.NET throws there.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfnet_train.optimizers import _checks
from tfnet_train.optimizers.optimizer_v2 import OptimizerV2, Slots, hyper


class RMSprop(OptimizerV2):
    """RMSprop; slots ``"rms"``, ``"mg"`` (centered) and ``"momentum"`` (momentum > 0, keras profile)."""

    _default_name = "RMSprop"

    def __init__(
        self,
        learning_rate: Any = 0.001,
        rho: float = 0.9,
        momentum: float = 0.0,
        epsilon: float = 1e-7,
        centered: bool = False,
        *,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(
            learning_rate, clipnorm=clipnorm, clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name
        )
        self.rho = _checks.in_range("rho", rho, 0.0, 1.0, high_inclusive=False)
        self.momentum = _checks.in_range("momentum", momentum, 0.0, 1.0, high_inclusive=True)
        self.epsilon = _checks.non_negative("epsilon", epsilon)
        self.centered = _checks.boolean("centered", centered)

    def _slot_names(self) -> tuple[str, ...]:
        names = ["rms"]
        if self.centered:
            names.append("mg")
        if self.momentum > 0 and self._semantics == "keras":
            names.append("momentum")
        return tuple(names)

    def _tfnet_unsupported(self) -> str | None:
        if self.centered:
            return (
                "RMSprop(centered=True) is not implemented under semantics='tfnet' (TensorFlow.NET's "
                "RMSprop throws NotImplementedException for centered)"
            )
        return None

    def _keras_update(self, var: tf.Variable, grad: tf.Tensor, lr: tf.Tensor, slots: Slots) -> None:
        lr = tf.cast(lr, var.dtype)
        rho = self.rho
        rms = slots["rms"]
        rms.assign(rho * rms + (1 - rho) * tf.square(grad))
        if self.centered:
            mg = slots["mg"]
            mg.assign(rho * mg + (1 - rho) * grad)
            denominator = rms - tf.square(mg) + self.epsilon
        else:
            denominator = rms + self.epsilon
        increment = (lr * grad) / tf.sqrt(denominator)
        if self.momentum > 0:
            velocity = slots["momentum"]
            velocity.assign(self.momentum * velocity + increment)
            var.assign_sub(velocity)
        else:
            var.assign_sub(increment)

    def _tfnet_update(self, var: tf.Variable, grad: tf.Tensor, lr: tf.Tensor, slots: Slots) -> None:
        dtype = var.dtype
        lr = tf.cast(lr, dtype)
        rho = hyper(self.rho, dtype)
        one_minus_rho = tf.constant(1.0, dtype) - rho
        epsilon = tf.constant(self.epsilon, dtype)
        rms = slots["rms"]
        rms_t = rho * rms + one_minus_rho * tf.square(grad)
        rms.assign(rms_t)
        var.assign(var - lr * grad / (tf.sqrt(rms_t) + epsilon))

    def _hyper_config(self) -> dict[str, Any]:
        return {"rho": self.rho, "momentum": self.momentum, "epsilon": self.epsilon, "centered": self.centered}
