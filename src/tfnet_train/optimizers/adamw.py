"""AdamW: Adam with decoupled weight decay applied before the Adam update.

keras profile (Keras 3): ``w -= w * weight_decay * lr`` with this step's learning rate (a schedule
evaluated at ``iterations``), for every variable not excluded; exclusion by variable or by a regular
expression searched in the variable's ``name``.

tfnet profile (TensorFlow.NET ``AdamW.cs``): ``w += -lr0 * w * weight_decay`` where ``lr0`` is the float
given to the constructor (TensorFlow.NET reads its ``_hyper`` dictionary, which later learning-rate
changes do not touch); no decay when ``weight_decay == 0``; exclusion when an excluded name is a substring
of the variable's path (TensorFlow.NET's ``no_decay_params``); variables listed in ``var_list`` are also
excluded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import tensorflow as tf

from tfnet_train.optimizers import _checks
from tfnet_train.optimizers.adam import Adam
from tfnet_train.optimizers.optimizer_v2 import hyper, is_variable, variable_key, variable_name


class AdamW(Adam):
    """Adam with decoupled weight decay; slots as Adam."""

    _default_name = "AdamW"

    def __init__(
        self,
        learning_rate: Any = 0.001,
        weight_decay: float = 0.004,
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
            learning_rate,
            beta_1,
            beta_2,
            epsilon,
            amsgrad,
            clipnorm=clipnorm,
            clipvalue=clipvalue,
            global_clipnorm=global_clipnorm,
            name=name,
        )
        if weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float >= 0, got weight_decay=None")
        self.weight_decay = _checks.non_negative("weight_decay", weight_decay)
        self._excluded_keys: set[str] = set()
        self._excluded_names: list[str] = []

    def exclude_from_weight_decay(
        self, var_list: Iterable[Any] | None = None, var_names: Sequence[str] | None = None
    ) -> None:
        """Exclude variables from weight decay: those in ``var_list``, and those whose name matches one of
        ``var_names`` (keras: regular-expression search in ``name``; tfnet: substring of the path).
        Each call replaces the previous exclusions."""
        keys = set()
        for var in var_list or ():
            if not is_variable(var):
                raise TypeError(f"Argument `var_list` must hold variables, got {type(var).__name__}: {var!r}")
            keys.add(variable_key(var))
        names = list(var_names or ())
        for entry in names:
            if not isinstance(entry, str):
                raise TypeError(f"Argument `var_names` must hold strings, got {type(entry).__name__}: {entry!r}")
        self._excluded_keys = keys
        self._excluded_names = names

    def _decays(self, var: Any) -> bool:
        if variable_key(var) in self._excluded_keys:
            return False
        if self._semantics == "tfnet":
            if self.weight_decay == 0:
                return False
            path = variable_name(var)
            return not any(entry in path for entry in self._excluded_names)
        if self._excluded_names:
            pattern = "|".join(set(self._excluded_names))
            return re.search(pattern, str(var.name)) is None
        return True

    def _weight_decay_mask(self, variables: Sequence[Any]) -> list[bool] | None:
        return [self._decays(v) for v in variables]

    def _decay_weight(self, var: tf.Variable, lr: tf.Tensor) -> None:
        if self._semantics == "tfnet":
            lr0 = self._initial_learning_rate
            var.assign_add(hyper(-lr0, var.dtype) * var * hyper(self.weight_decay, var.dtype))
            return
        lr = tf.cast(lr, var.dtype)
        decay = tf.cast(self.weight_decay, var.dtype)
        var.assign_sub(var * decay * lr)

    def _hyper_config(self) -> dict[str, Any]:
        return {"weight_decay": self.weight_decay, **super()._hyper_config()}
