"""Adam.

keras profile (Keras 3), with ``t = iterations + 1``: ``alpha = lr * sqrt(1 - b2^t) / (1 - b1^t)``;
``m += (g - m) * (1 - b1)``; ``v += (g^2 - v) * (1 - b2)``; with amsgrad ``vhat = max(vhat, v)`` replaces
``v``; ``w -= m * alpha / (sqrt(v) + eps)``.

tfnet profile (TensorFlow.NET ``Adam.cs``): the ``ResourceApplyAdam`` kernel TensorFlow.NET calls, fed
``b1^t``, ``b2^t``, the learning rate, ``b1``, ``b2`` and ``eps`` as float32 hyper values (same formula:
``lr_t = lr * sqrt(1 - b2^t) / (1 - b1^t)``, ``w -= lr_t * m / (sqrt(v) + eps)``). ``amsgrad=True``
raises NotImplementedError at the first update, as TensorFlow.NET throws there.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfnet_train.optimizers import _checks
from tfnet_train.optimizers.optimizer_v2 import OptimizerV2, Slots, hyper


class Adam(OptimizerV2):
    """Adam; slots ``"m"``, ``"v"`` and, with amsgrad, ``"vhat"``."""

    _default_name = "Adam"

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        amsgrad: bool = False,
        *,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(
            learning_rate, clipnorm=clipnorm, clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name
        )
        self.beta_1 = _checks.in_range("beta_1", beta_1, 0.0, 1.0, high_inclusive=False)
        self.beta_2 = _checks.in_range("beta_2", beta_2, 0.0, 1.0, high_inclusive=False)
        self.epsilon = _checks.non_negative("epsilon", epsilon)
        self.amsgrad = _checks.boolean("amsgrad", amsgrad)

    def _slot_names(self) -> tuple[str, ...]:
        return ("m", "v", "vhat") if self.amsgrad else ("m", "v")

    def _tfnet_unsupported(self) -> str | None:
        if self.amsgrad:
            return (
                f"{type(self).__name__}(amsgrad=True) is not implemented under semantics='tfnet' "
                "(TensorFlow.NET's Adam throws NotImplementedException for amsgrad)"
            )
        return None

    def _keras_update(self, var: tf.Variable, grad: tf.Tensor, lr: tf.Tensor, slots: Slots) -> None:
        dtype = var.dtype
        lr = tf.cast(lr, dtype)
        step = tf.cast(self._iterations + 1, dtype)
        beta_1_power = tf.pow(tf.cast(self.beta_1, dtype), step)
        beta_2_power = tf.pow(tf.cast(self.beta_2, dtype), step)
        m, v = slots["m"], slots["v"]
        alpha = lr * tf.sqrt(1 - beta_2_power) / (1 - beta_1_power)
        m.assign_add((grad - m) * (1 - self.beta_1))
        v.assign_add((tf.square(grad) - v) * (1 - self.beta_2))
        if self.amsgrad:
            vhat = slots["vhat"]
            vhat.assign(tf.maximum(vhat, v))
            v = vhat
        var.assign_sub((m * alpha) / (tf.sqrt(v) + self.epsilon))

    def _tfnet_update(self, var: tf.Variable, grad: tf.Tensor, lr: tf.Tensor, slots: Slots) -> None:
        dtype = var.dtype
        step = tf.cast(self._iterations + 1, dtype)
        beta_1, beta_2 = hyper(self.beta_1, dtype), hyper(self.beta_2, dtype)
        tf.raw_ops.ResourceApplyAdam(
            var=var.handle,
            m=slots["m"].handle,
            v=slots["v"].handle,
            beta1_power=tf.pow(beta_1, step),
            beta2_power=tf.pow(beta_2, step),
            lr=tf.cast(lr, dtype),
            beta1=beta_1,
            beta2=beta_2,
            epsilon=hyper(self.epsilon, dtype),
            grad=grad,
            use_locking=True,
        )

    def _hyper_config(self) -> dict[str, Any]:
        return {"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon, "amsgrad": self.amsgrad}
