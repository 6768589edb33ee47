"""Adam (↔ TensorFlow.NET ``Adam.cs``): Keras 3's ``keras.optimizers.Adam`` plus the engine's stages.

tfnet profile: the ``ResourceApplyAdam`` kernel TensorFlow.NET calls, fed ``b1^t``, ``b2^t`` (``t =
iterations + 1``), the learning rate, ``b1``, ``b2`` and ``eps`` as float32 hyper values (``lr_t = lr *
sqrt(1 - b2^t) / (1 - b1^t)``, ``w -= lr_t * m / (sqrt(v) + eps)``, ``1 - beta`` computed in float32).
``amsgrad=True`` raises NotImplementedError at the first update, as TensorFlow.NET throws there.
"""

from __future__ import annotations

from typing import Any

import keras
import tensorflow as tf

from tfnet_train import keras_internals
from tfnet_train.optimizers.optimizer_v2 import OptimizerV2, handle, hyper


def tfnet_adam_step(optimizer: Any, gradient: Any, variable: Any, learning_rate: Any) -> None:
    """TensorFlow.NET's Adam update of ``variable`` with ResourceApplyAdam."""
    dtype = variable.dtype
    step = tf.cast(optimizer.iterations + 1, dtype)
    beta_1, beta_2 = hyper(optimizer.beta_1, dtype), hyper(optimizer.beta_2, dtype)
    tf.raw_ops.ResourceApplyAdam(
        var=handle(variable),
        m=handle(keras_internals.slot_of(optimizer, keras_internals.ADAM_SLOTS["m"], variable)),
        v=handle(keras_internals.slot_of(optimizer, keras_internals.ADAM_SLOTS["v"], variable)),
        beta1_power=tf.pow(beta_1, step),
        beta2_power=tf.pow(beta_2, step),
        lr=tf.cast(learning_rate, dtype),
        beta1=beta_1,
        beta2=beta_2,
        epsilon=hyper(optimizer.epsilon, dtype),
        grad=tf.cast(gradient, dtype),
        use_locking=True,
    )


def tfnet_amsgrad_message(optimizer: Any) -> str | None:
    if not optimizer.amsgrad:
        return None
    return (
        f"{type(optimizer).__name__}(amsgrad=True) is not implemented under semantics='tfnet' "
        "(TensorFlow.NET's Adam throws NotImplementedException for amsgrad)"
    )


@keras.saving.register_keras_serializable(package="tfnet_train")
class Adam(OptimizerV2, keras.optimizers.Adam):
    """Keras's Adam; slots ``"m"``, ``"v"`` and, with amsgrad, ``"vhat"`` (Keras's ``_momentums``,
    ``_velocities``, ``_velocity_hats``)."""

    _SLOTS = keras_internals.ADAM_SLOTS

    def _tfnet_unsupported(self) -> str | None:
        return tfnet_amsgrad_message(self)

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        # tfnet: TensorFlow.NET's ResourceApplyAdam kernel; keras: Keras's own step.
        if not self._profile.tfnet_optimizer_updates:
            return super().update_step(gradient, variable, learning_rate)
        tfnet_adam_step(self, gradient, variable, learning_rate)
        return None
