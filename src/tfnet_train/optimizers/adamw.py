"""AdamW (↔ TensorFlow.NET ``AdamW.cs``): Keras 3's ``keras.optimizers.AdamW`` plus the engine's stages.

tfnet profile: ``w += -lr0 * w * weight_decay`` before the Adam step, where ``lr0`` is the float given to the
constructor (TensorFlow.NET reads its ``_hyper`` dictionary, which later learning-rate changes do not touch);
no decay when ``weight_decay == 0``; a variable is excluded when an excluded name is a substring of its path
(TensorFlow.NET's ``no_decay_params``) or when it is in ``exclude_from_weight_decay(var_list=...)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import keras

from tfnet_train import keras_internals
from tfnet_train.optimizers.adam import tfnet_adam_step, tfnet_amsgrad_message
from tfnet_train.optimizers.optimizer_v2 import OptimizerV2, _name_of, hyper, tf_variable


@keras.saving.register_keras_serializable(package="tfnet_train")
class AdamW(OptimizerV2, keras.optimizers.AdamW):
    """Keras's AdamW; slots as Adam."""

    _SLOTS = keras_internals.ADAM_SLOTS

    def __init__(self, learning_rate: Any = 0.001, *args: Any, **kwargs: Any) -> None:
        super().__init__(learning_rate, *args, **kwargs)
        # tfnet decays with the constructor's rate (TensorFlow.NET's _hyper["learning_rate"]).
        self._tfnet_decay_rate = float(learning_rate) if isinstance(learning_rate, float) else None
        self._tfnet_excluded_names: list[str] = []

    def exclude_from_weight_decay(
        self, var_list: Iterable[Any] | None = None, var_names: Sequence[str] | None = None
    ) -> None:
        """Keras's; the names are also kept as given for tfnet's substring match."""
        super().exclude_from_weight_decay(var_list=var_list, var_names=var_names)
        self._tfnet_excluded_names = list(var_names or ())

    def _tfnet_unsupported(self) -> str | None:
        return tfnet_amsgrad_message(self)

    def _tfnet_decays(self, variable: Any) -> bool:
        if self.weight_decay == 0 or keras_internals.excluded_from_weight_decay(self, variable):
            return False
        index = keras_internals.variable_index(self, variable)
        path = _name_of(keras_internals.trainable_variables_of(self)[index])
        return not any(entry in path for entry in self._tfnet_excluded_names)

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        # tfnet: TensorFlow.NET's decay with the constructor rate, then its Adam kernel; keras: Keras's step.
        if not self._profile.tfnet_optimizer_updates:
            return super().update_step(gradient, variable, learning_rate)
        if self._tfnet_decays(variable):
            dtype = variable.dtype
            variable = tf_variable(variable)
            variable.assign_add(hyper(-self._tfnet_decay_rate, dtype) * variable * hyper(self.weight_decay, dtype))
        tfnet_adam_step(self, gradient, variable, learning_rate)
        return None
