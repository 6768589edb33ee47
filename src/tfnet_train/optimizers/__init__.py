"""Optimizers shaped like TensorFlow.NET's Keras OptimizerV2, computing Keras 3's numbers by default.

``get(identifier, semantics)`` resolves what ``Model.compile(optimizer=...)`` receives.
"""

from __future__ import annotations

from typing import Any

import keras

from tfnet_train.optimizers import schedules
from tfnet_train.optimizers.adam import Adam
from tfnet_train.optimizers.adamw import AdamW
from tfnet_train.optimizers.optimizer_v2 import SEMANTICS, OptimizerV2
from tfnet_train.optimizers.rmsprop import RMSprop
from tfnet_train.optimizers.schedules import (
    CosineDecay,
    ExponentialDecay,
    InverseTimeDecay,
    LearningRateSchedule,
    PiecewiseConstantDecay,
    PolynomialDecay,
)
from tfnet_train.optimizers.sgd import SGD

__all__ = [
    "OptimizerV2",
    "SGD",
    "Adam",
    "AdamW",
    "RMSprop",
    "LearningRateSchedule",
    "ExponentialDecay",
    "PiecewiseConstantDecay",
    "InverseTimeDecay",
    "PolynomialDecay",
    "CosineDecay",
    "schedules",
    "get",
    "aggregate_gradients",
    "clip_gradients",
    "apply_gradients",
    "optimizer_state",
]

_BY_NAME: dict[str, type[OptimizerV2]] = {"sgd": SGD, "adam": Adam, "adamw": AdamW, "rmsprop": RMSprop}


def get(identifier: Any, semantics: str = "keras") -> OptimizerV2:
    """An optimizer from what compile receives.

    - an OptimizerV2 instance: itself (its profile is set by compile, not here);
    - a string: under ``"keras"`` 'sgd', 'adam', 'adamw' or 'rmsprop' (any case) with default arguments,
      anything else a ValueError; under ``"tfnet"`` any string gives RMSprop(0.001, rho=0.9, eps=1e-7),
      as TensorFlow.NET's string ``compile`` does;
    - None: RMSprop with default arguments (TensorFlow.NET's default);
    - a Keras 3 optimizer: TypeError (use tfnet_train.optimizers instead).
    New instances get ``semantics`` as their profile.
    """
    if semantics not in SEMANTICS:
        raise ValueError(f"Argument `semantics` must be one of {SEMANTICS}, got semantics={semantics!r}")
    if isinstance(identifier, OptimizerV2):
        return identifier
    if isinstance(identifier, keras.optimizers.Optimizer):
        raise TypeError(
            f"Argument `optimizer` must be a tfnet_train optimizer, got the Keras optimizer "
            f"{type(identifier).__module__}.{type(identifier).__name__}; use tfnet_train.optimizers."
            f"{type(identifier).__name__ if type(identifier).__name__ in __all__ else 'SGD/Adam/AdamW/RMSprop'} "
            "with the same arguments"
        )
    if identifier is None:
        optimizer: OptimizerV2 = RMSprop()
    elif isinstance(identifier, str):
        if semantics == "tfnet":
            optimizer = RMSprop(learning_rate=0.001, rho=0.9, epsilon=1e-7)
        else:
            cls = _BY_NAME.get(identifier.lower())
            if cls is None:
                raise ValueError(
                    f"Argument `optimizer` must be one of {sorted(_BY_NAME)} (any case) or an optimizer "
                    f"instance, got optimizer={identifier!r}"
                )
            optimizer = cls()
    else:
        raise TypeError(
            "Argument `optimizer` must be an optimizer instance, a name among "
            f"{sorted(_BY_NAME)} or None, got {type(identifier).__name__}: {identifier!r}"
        )
    optimizer._set_semantics(semantics)
    return optimizer


def aggregate_gradients(optimizer: Any, grads_and_vars: list) -> list:
    """The mirror's ``optimizer._aggregate_gradients`` for any optimizer (a Keras one all-reduces in apply)."""
    if isinstance(optimizer, OptimizerV2):
        return optimizer._aggregate_gradients(grads_and_vars)
    return [g for g, _ in grads_and_vars]


def clip_gradients(optimizer: Any, grads: list) -> list:
    """The mirror's ``optimizer._clip_gradients`` for any optimizer (a Keras one clips in apply)."""
    if isinstance(optimizer, OptimizerV2):
        return optimizer._clip_gradients(grads)
    return list(grads)


def apply_gradients(optimizer: Any, grads: list, variables: list) -> None:
    """apply_gradients without a second aggregation or clip."""
    if isinstance(optimizer, OptimizerV2):
        optimizer.apply_gradients(zip(grads, variables, strict=True), experimental_aggregate_gradients=False)
    else:
        optimizer.apply_gradients(zip(grads, variables, strict=True))


def optimizer_state(optimizer: Any, variables: list) -> dict:
    """{"iterations", "learning_rate", "slots": {name: [per variable]}} for the step trace."""
    if isinstance(optimizer, OptimizerV2):
        return optimizer.get_state(variables)
    return {"iterations": optimizer.iterations, "learning_rate": optimizer.learning_rate, "slots": {}}
