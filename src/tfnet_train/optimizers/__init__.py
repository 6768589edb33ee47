"""Optimizers: Keras 3's, with TensorFlow.NET's ``_minimize`` stages and the ``tfnet`` profile.

``SGD``, ``Adam``, ``AdamW`` and ``RMSprop`` are Keras 3's classes extended by ``OptimizerV2``; any other
``keras.optimizers.Optimizer`` (Adagrad, Nadam, Lion, LossScaleOptimizer, ...) works in the engine too, through
the module functions the engine's ``_minimize`` calls for every optimizer:

    aggregate_gradients(optimizer, grads_and_vars) -> grads     # SUM across replicas (identity on one device)
    clip_gradients(optimizer, grads) -> grads                  # loss-scale division, then the clip arguments
    apply_gradients(optimizer, grads, variables)               # the update, without a second clip / all-reduce
    optimizer_state(optimizer, var_list) -> {"iterations", "learning_rate", "slots"}

``get(identifier, semantics)`` resolves what ``Model.compile(optimizer=...)`` receives.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import keras
import tensorflow as tf

from tfnet_train import keras_internals
from tfnet_train.optimizers import schedules
from tfnet_train.optimizers.adam import Adam
from tfnet_train.optimizers.adamw import AdamW
from tfnet_train.optimizers.optimizer_v2 import (
    SEMANTICS,
    OptimizerV2,
    loss_scale_factor,
    preprocessed,
    read,
    sum_across_replicas,
)
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
from tfnet_train.semantics import get_profile

__all__ = [
    "SEMANTICS",
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
    "set_semantics",
    "build",
    "aggregate_gradients",
    "clip_gradients",
    "apply_gradients",
    "optimizer_state",
]

_BY_NAME: dict[str, type[OptimizerV2]] = {"sgd": SGD, "adam": Adam, "adamw": AdamW, "rmsprop": RMSprop}

# The trace's slot names for Keras's own four classes (the same attributes our subclasses use).
_KERAS_SLOTS: tuple[tuple[type, dict[str, str]], ...] = (
    (keras.optimizers.SGD, SGD._SLOTS),
    (keras.optimizers.AdamW, AdamW._SLOTS),
    (keras.optimizers.Adam, Adam._SLOTS),
    (keras.optimizers.RMSprop, RMSprop._SLOTS),
)


def get(identifier: Any, semantics: str = "keras") -> keras.optimizers.Optimizer:
    """An optimizer from what compile receives.

    - any ``keras.optimizers.Optimizer`` instance (ours included): itself;
    - a string: under ``"keras"`` 'sgd', 'adam', 'adamw' or 'rmsprop' (any case) give ours with Keras's
      defaults, any other name what ``keras.optimizers.get`` gives (its ValueError for unknown names); under
      ``"tfnet"`` any string gives RMSprop(0.001, rho=0.9, epsilon=1e-7), as TensorFlow.NET's string compile;
    - a Keras config dict (``keras.optimizers.serialize``): what ``keras.optimizers.get`` gives (keras only);
    - None: RMSprop with default arguments (TensorFlow.NET's default).
    New instances of ours get ``semantics`` as their profile.
    """
    profile = get_profile(semantics)
    if isinstance(identifier, keras.optimizers.Optimizer):
        return identifier
    if identifier is None:
        return RMSprop(semantics=semantics)
    if isinstance(identifier, str):
        if profile.string_optimizer_is_rmsprop:
            return RMSprop(learning_rate=0.001, rho=0.9, epsilon=1e-7, semantics=semantics)
        cls = _BY_NAME.get(identifier.lower())
        if cls is not None:
            return cls(semantics=semantics)
        return keras.optimizers.get(identifier)
    if isinstance(identifier, dict) and not profile.tfnet_optimizer_updates:  # a plain Keras optimizer
        return keras.optimizers.get(identifier)
    raise TypeError(
        "Argument `optimizer` must be a keras.optimizers.Optimizer instance, an optimizer name, a Keras config "
        "dict (semantics='keras') or None, got "
        f"{type(identifier).__name__}: {identifier!r}"
    )


def set_semantics(optimizer: Any, semantics: str) -> None:
    """Give ``optimizer`` the profile (ours); a plain Keras optimizer runs only under ``"keras"``."""
    if isinstance(optimizer, OptimizerV2):
        optimizer._set_semantics(semantics)
    elif get_profile(semantics).tfnet_optimizer_updates:  # TF.NET's updates are the engine optimizers' own
        raise ValueError(
            "Argument `optimizer` must be one of tfnet_train.optimizers.SGD, Adam, AdamW, RMSprop (or a string) "
            f"under semantics='tfnet', got {type(optimizer).__module__}.{type(optimizer).__name__}"
        )


def build(optimizer: Any, variables: Sequence[Any]) -> None:
    """Create the optimizer's variables for ``variables`` once (Keras's ``build`` may not be repeated).

    Without a distribution strategy they are created eagerly even while a step function is traced, so an
    XLA-compiled step (which cannot create variables) works on its first call; under a strategy Keras's
    fit-time build or ``apply`` creates them in the strategy's scope.
    """
    if optimizer.built:
        return
    if tf.distribute.has_strategy():
        optimizer.build(list(variables))
        return
    with tf.init_scope():
        optimizer.build(list(variables))


def _is_loss_scale(optimizer: Any) -> bool:
    return isinstance(optimizer, keras.optimizers.LossScaleOptimizer)


def aggregate_gradients(optimizer: Any, grads_and_vars: Iterable[tuple[Any, Any]]) -> list[Any]:
    """TF.NET's ``_aggregate_gradients`` for any optimizer: SUM across replicas in a replica context with more
    than one replica, else the same gradient objects."""
    if isinstance(optimizer, OptimizerV2):
        return optimizer._aggregate_gradients(grads_and_vars)
    return sum_across_replicas([g for g, _ in grads_and_vars])


def clip_gradients(optimizer: Any, grads: Sequence[Any]) -> list[Any]:
    """TF.NET's ``_clip_gradients`` for any optimizer: the gradients its update will use.

    Keras divides by a loss scale before clipping inside ``apply``; here that division comes first too, so
    the result is what the update step receives: a LossScaleOptimizer divides by its dynamic scale and clips
    with its inner optimizer, ``loss_scale_factor`` divides by that factor.
    """
    grads = list(grads)
    if _is_loss_scale(optimizer):
        scale = optimizer.dynamic_scale if optimizer.built else optimizer.initial_scale
        unscaled = [None if g is None else g / tf.cast(scale, g.dtype) for g in grads]
        return clip_gradients(optimizer.inner_optimizer, unscaled)
    factor = loss_scale_factor(optimizer)
    if factor is not None:
        grads = [None if g is None else g / factor for g in grads]
    return keras_internals.keras_clip_gradients(optimizer, grads)


def apply_gradients(optimizer: Any, grads: Sequence[Any], variables: Sequence[Any]) -> None:
    """The update of ``variables`` with ``grads`` that ``aggregate_gradients`` and ``clip_gradients`` gave:
    no second all-reduce, clip or loss-scale division.

    A LossScaleOptimizer keeps Keras's own logic (skip the step and halve the scale on non-finite gradients,
    grow it after ``dynamic_growth_steps`` finite ones): it receives the gradients multiplied back by its
    dynamic scale, a power of two, so its division returns exactly the clipped values.
    """
    grads, variables = list(grads), list(variables)
    if not tf.distribute.has_strategy():
        build(optimizer, variables)
    if isinstance(optimizer, OptimizerV2):
        optimizer.apply_gradients(zip(grads, variables, strict=True), experimental_aggregate_gradients=False)
        return
    if _is_loss_scale(optimizer):
        build(optimizer, variables)
        scale = optimizer.dynamic_scale
        rescaled = [None if g is None else g * tf.cast(scale, g.dtype) for g in grads]
        with preprocessed(optimizer.inner_optimizer):
            optimizer.apply(rescaled, variables)
        return
    with preprocessed(optimizer):
        optimizer.apply(grads, variables)


def optimizer_state(optimizer: Any, var_list: Sequence[Any]) -> dict[str, Any]:
    """``{"iterations": int64, "learning_rate": float32 (the next step's), "slots": {name: [per var]}}`` of
    any Keras optimizer, as tensors (eagerly or in a graph).

    Slot names: ours and Keras's SGD/Adam/AdamW/RMSprop use the trace's names (``momentum``, ``m``, ``v``,
    ``vhat``, ``rms``, ``mg``); other optimizers the suffix Keras gives each variable
    (``<variable path>_<slot>``). A LossScaleOptimizer reports its inner optimizer.
    """
    if isinstance(optimizer, OptimizerV2):
        return optimizer.get_state(var_list)
    if _is_loss_scale(optimizer):
        return optimizer_state(optimizer.inner_optimizer, var_list)
    state = {
        "iterations": tf.cast(tf.convert_to_tensor(optimizer.iterations), tf.int64),
        "learning_rate": tf.cast(keras_internals.current_learning_rate(optimizer), tf.float32),
    }
    for cls, names in _KERAS_SLOTS:
        if isinstance(optimizer, cls):
            slots = {}
            for name, attribute in names.items():
                if keras_internals.slot_list(optimizer, attribute):
                    slots[name] = [read(keras_internals.slot_of(optimizer, attribute, v)) for v in var_list]
            return {**state, "slots": slots}
    return {**state, "slots": _slots_by_name(optimizer, var_list)}


def _slots_by_name(optimizer: Any, var_list: Sequence[Any]) -> dict[str, list[tf.Tensor]]:
    """Optimizer variables grouped by the suffix after ``<variable path with _>_`` (Keras's naming)."""
    prefixes = [(str(getattr(v, "path", v.name)).replace("/", "_") + "_", i) for i, v in enumerate(var_list)]
    prefixes.sort(key=lambda item: -len(item[0]))
    found: dict[str, dict[int, Any]] = {}
    for variable in optimizer.variables:
        name = str(variable.name)
        for prefix, index in prefixes:
            if name.startswith(prefix) and len(name) > len(prefix):
                found.setdefault(name[len(prefix):], {})[index] = variable
                break
    return {
        slot: [read(per_var[i]) for i in range(len(var_list))]
        for slot, per_var in found.items()
        if len(per_var) == len(var_list)
    }
