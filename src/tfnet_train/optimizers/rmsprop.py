"""RMSprop (↔ TensorFlow.NET ``RMSprop.cs``): Keras 3's ``keras.optimizers.RMSprop`` plus the engine's stages.

tfnet profile: ``rms = rho * rms + (1 - rho) * g^2``; ``w = w - lr * g / (sqrt(rms) + eps)`` (eps OUTSIDE the
square root, where Keras puts it inside); ``momentum`` ignored (TensorFlow.NET never sets its momentum flag, so
it has no momentum slot); ``centered=True`` raises NotImplementedError at the first update, as TensorFlow.NET
throws there.
"""

from __future__ import annotations

from typing import Any

import keras
import tensorflow as tf

from tfnet_train import keras_internals
from tfnet_train.optimizers.optimizer_v2 import OptimizerV2, hyper, tf_variable


@keras.saving.register_keras_serializable(package="tfnet_train")
class RMSprop(OptimizerV2, keras.optimizers.RMSprop):
    """Keras's RMSprop; slots ``"rms"``, ``"mg"`` (centered) and ``"momentum"`` (momentum > 0, keras profile)
    — Keras's ``_velocities``, ``_average_gradients``, ``_momentums``."""

    _SLOTS = keras_internals.RMSPROP_SLOTS

    def _slot_names(self) -> tuple[str, ...]:
        # tfnet has no momentum slot (TensorFlow.NET ignores momentum); Keras's variable exists but stays 0.
        names = super()._slot_names()
        return tuple(n for n in names if n != "momentum") if self._profile.tfnet_optimizer_updates else names

    def _tfnet_unsupported(self) -> str | None:
        if self.centered:
            return (
                "RMSprop(centered=True) is not implemented under semantics='tfnet' (TensorFlow.NET's "
                "RMSprop throws NotImplementedException for centered)"
            )
        return None

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        # tfnet: TensorFlow.NET's formula (eps outside the root, no momentum); keras: Keras's own step.
        if not self._profile.tfnet_optimizer_updates:
            return super().update_step(gradient, variable, learning_rate)
        dtype = variable.dtype
        lr = tf.cast(learning_rate, dtype)
        grad = tf.cast(gradient, dtype)
        rho = hyper(self.rho, dtype)
        variable = tf_variable(variable)
        rms = tf_variable(keras_internals.slot_of(self, self._SLOTS["rms"], variable))
        rms_t = rho * rms + (tf.constant(1.0, dtype) - rho) * tf.square(grad)
        rms.assign(rms_t)
        variable.assign(variable - lr * grad / (tf.sqrt(rms_t) + tf.constant(self.epsilon, dtype)))
        return None
