"""SGD (↔ TensorFlow.NET ``SGD.cs``): Keras 3's ``keras.optimizers.SGD`` plus the engine's stages.

tfnet profile: the kernels TensorFlow.NET calls — ``ResourceApplyGradientDescent`` without momentum,
``ResourceApplyKerasMomentum`` with it — and Nesterov never applied (its constructor assigns the ``nesterov``
argument to itself, so the field stays false).
"""

from __future__ import annotations

from typing import Any

import keras
import tensorflow as tf

from tfnet_train import keras_internals
from tfnet_train.optimizers.optimizer_v2 import OptimizerV2, handle, hyper


@keras.saving.register_keras_serializable(package="tfnet_train")
class SGD(OptimizerV2, keras.optimizers.SGD):
    """Keras's SGD; slot ``"momentum"`` (Keras's ``momentums``) when ``momentum != 0``."""

    _SLOTS = keras_internals.SGD_SLOTS

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        # tfnet: TensorFlow.NET's raw kernels, nesterov ignored; keras: Keras's own step.
        if not self._profile.tfnet_optimizer_updates:
            return super().update_step(gradient, variable, learning_rate)
        dtype = variable.dtype
        lr = tf.cast(learning_rate, dtype)
        grad = tf.cast(gradient, dtype)
        if self.momentum > 0:
            tf.raw_ops.ResourceApplyKerasMomentum(
                var=handle(variable),
                accum=handle(keras_internals.slot_of(self, self._SLOTS["momentum"], variable)),
                lr=lr,
                grad=grad,
                momentum=hyper(self.momentum, dtype),
                use_locking=True,
                use_nesterov=False,
            )
        else:
            tf.raw_ops.ResourceApplyGradientDescent(var=handle(variable), alpha=lr, delta=grad, use_locking=True)
        return None
