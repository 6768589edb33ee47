"""OptimizerV2: what the engine's optimizers add to Keras 3's (↔ TensorFlow.NET's ``OptimizerV2.cs``).

``SGD``, ``Adam``, ``AdamW`` and ``RMSprop`` are Keras 3's classes with this mixin in front. It adds the
stages TensorFlow.NET's ``_minimize`` calls one by one — ``_aggregate_gradients``, ``_clip_gradients``,
``apply_gradients(..., experimental_aggregate_gradients=False)`` — so each stage's output is visible to a
trace and nothing is clipped or all-reduced twice, a ``semantics`` profile, and ``get_state``.

- ``"keras"`` (default): Keras 3's numbers; every method below defers to Keras.
- ``"tfnet"``: TensorFlow.NET's Keras package 0.15: clipping is identity (clip arguments ignored), its update
  formulas (each subclass's ``update_step``), no variable constraints, no decoupled weight decay outside
  AdamW, a float learning rate only (a schedule is a ValueError), and a None gradient is a ValueError
  naming the variable (TensorFlow.NET fails there with a null reference).

Under both, a float learning rate must be finite and >= 0 (a ValueError otherwise, at construction and when
set); Keras 3 and TensorFlow.NET take any float, and a negative or NaN rate trains to nonsense without a word.
"""

from __future__ import annotations

import contextlib
import inspect
import math
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, ClassVar

import keras
import numpy as np
import tensorflow as tf

from tfnet_train import keras_internals
from tfnet_train.keras_internals import loss_scale_factor, preprocessed
from tfnet_train.semantics import KERAS_PROFILE, PROFILES, Profile, get_profile

__all__ = ["OptimizerV2", "SEMANTICS", "handle", "hyper", "loss_scale_factor", "preprocessed", "read",
           "sum_across_replicas", "tf_variable"]

SEMANTICS: tuple[str, ...] = PROFILES


def sum_across_replicas(grads: Sequence[Any]) -> list[Any]:
    """SUM all-reduce of ``grads`` in a replica context with more than one replica; the same objects otherwise.
    None gradients stay None."""
    grads = list(grads)
    if not tf.distribute.has_strategy() or tf.distribute.in_cross_replica_context():
        return grads
    context = tf.distribute.get_replica_context()
    if context is None or context.num_replicas_in_sync <= 1:
        return grads
    present = [g for g in grads if g is not None]
    if not present:
        return grads
    reduced = iter(context.all_reduce(tf.distribute.ReduceOp.SUM, present))
    return [None if g is None else next(reduced) for g in grads]


@contextlib.contextmanager
def _constraints_off(variables: Sequence[Any]) -> Iterator[None]:
    """Variable constraints switched off while the update is traced (TensorFlow.NET applies none)."""
    constrained = [(v, v.constraint) for v in variables if getattr(v, "constraint", None) is not None]
    for variable, _ in constrained:
        variable.constraint = None
    try:
        yield
    finally:
        for variable, constraint in constrained:
            variable.constraint = constraint


def read(variable: Any) -> tf.Tensor:
    """The current value of a Keras or TensorFlow variable as a tensor."""
    return tf.identity(variable.value if isinstance(variable, keras.Variable) else variable)


def tf_variable(variable: Any) -> Any:
    """The TensorFlow variable behind ``variable`` (a Keras variable is unwrapped)."""
    return variable.value if isinstance(variable, keras.Variable) else variable


def handle(variable: Any) -> tf.Tensor:
    """The resource handle raw training ops update."""
    return tf_variable(variable).handle


def hyper(value: float, dtype: tf.DType) -> tf.Tensor:
    """A hyper-parameter as TensorFlow.NET holds it (a float32 variable) cast to the variable's dtype."""
    return tf.cast(tf.constant(value, dtype=tf.float32), dtype)


def check_learning_rate(value: Any) -> None:
    """ValueError for a float learning rate that is not finite and >= 0; schedules, variables and tensors pass
    (Keras refuses other types itself)."""
    if isinstance(value, float | np.floating) and not (math.isfinite(float(value)) and value >= 0):
        raise ValueError(f"Argument `learning_rate` must be a finite float >= 0 (0 leaves the weights as they are) "
                         f"or a schedule, got {float(value)!r}")


def _is_schedule(learning_rate: Any) -> bool:
    return not isinstance(learning_rate, keras.Variable) and (
        isinstance(learning_rate, keras.optimizers.schedules.LearningRateSchedule) or callable(learning_rate))


class OptimizerV2(keras_internals.OptimizerHooks):
    """Mixin placed before a Keras 3 optimizer class: ``class SGD(OptimizerV2, keras.optimizers.SGD)``.

    Subclasses set ``_SLOTS`` (the trace's slot name -> the Keras attribute holding one variable per trainable
    variable, from ``keras_internals``) and override ``update_step`` for the tfnet profile.
    """

    _SLOTS: ClassVar[dict[str, str]] = {}
    _semantics: str = "keras"
    _profile: Profile = KERAS_PROFILE

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # The constructor passes Keras's arguments through; show Keras's signature plus `semantics`.
        keras_class = next((c for c in cls.__mro__ if c.__module__.startswith("keras.")), None)
        if keras_class is None:
            return
        parameters = list(inspect.signature(keras_class.__init__).parameters.values())[1:]
        semantics = inspect.Parameter("semantics", inspect.Parameter.KEYWORD_ONLY, default="keras", annotation=str)
        position = next((i for i, p in enumerate(parameters) if p.kind is inspect.Parameter.VAR_KEYWORD), None)
        parameters.insert(len(parameters) if position is None else position, semantics)
        cls.__signature__ = inspect.Signature(parameters)

    def __init__(self, *args: Any, semantics: str = "keras", **kwargs: Any) -> None:
        check_learning_rate(kwargs.get("learning_rate", args[0] if args else None))
        super().__init__(*args, **kwargs)
        self._set_semantics(semantics)

    # ----------------------------------------------------------------- semantics profile
    @property
    def semantics(self) -> str:
        """The semantics profile, ``"keras"`` or ``"tfnet"``."""
        return self._semantics

    def _set_semantics(self, profile: str) -> None:
        """Switch profile (Model.compile calls this before the first step); read when an update is traced.

        ValueError for an unknown profile, and for ``"tfnet"`` with a learning-rate schedule, which
        TensorFlow.NET's optimizers cannot take. Configurations TensorFlow.NET throws on (amsgrad, centered)
        are accepted here and raise NotImplementedError at the first update, as there.
        """
        flags = get_profile(profile)
        configured = keras_internals.configured_learning_rate(self)
        if not flags.takes_learning_rate_schedules and _is_schedule(configured):
            raise ValueError(self._tfnet_schedule_message(configured))
        self._semantics, self._profile = flags.name, flags

    @staticmethod
    def _tfnet_schedule_message(schedule: Any) -> str:
        return (
            "Argument `learning_rate` must be a float under semantics='tfnet' (TensorFlow.NET's Keras "
            f"optimizers take only a float learning rate), got a {type(schedule).__name__} schedule"
        )

    def _tfnet_unsupported(self) -> str | None:
        """Why TensorFlow.NET cannot run this configuration (it throws NotImplementedException), or None."""
        return None

    @property
    def learning_rate(self) -> Any:
        """Keras's: the learning-rate variable, or the schedule's value at ``iterations``."""
        return keras_internals.current_learning_rate(self)

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        # Differs from Keras only under tfnet: TensorFlow.NET's optimizers take no schedule.
        if not self._profile.takes_learning_rate_schedules and _is_schedule(value):
            raise ValueError(self._tfnet_schedule_message(value))
        check_learning_rate(value)
        keras.optimizers.Optimizer.learning_rate.fset(self, value)

    # ----------------------------------------------------------------- TF.NET's _minimize stages
    def _aggregate_gradients(self, grads_and_vars: Iterable[tuple[Any, Any]]) -> list[Any]:
        """SUM across replicas in a replica context with more than one replica, else the gradients as given.

        Keras has no such stage (it all-reduces inside ``apply``); TensorFlow.NET's ``_minimize`` calls it
        first. Both profiles sum, so mirrored replicas stay equal (TensorFlow.NET itself never distributes).
        """
        return sum_across_replicas([g for g, _ in grads_and_vars])

    def clip_stage(self, grads: Sequence[Any]) -> list[Any]:
        """TF.NET's and Keras's ``_clip_gradients`` (which routes here): Keras's clipping (one of clipnorm,
        global_clipnorm, clipvalue); identity under tfnet, whose ``clip_gradients`` never reads ClipNorm/ClipValue."""
        if not self._profile.clips_gradients:
            return list(grads)
        return self.keras_clip(grads)

    def apply_gradients(
        self, grads_and_vars: Iterable[tuple[Any, Any]], experimental_aggregate_gradients: bool = True
    ) -> Any:
        """Keras's ``apply_gradients``; with ``experimental_aggregate_gradients=False`` (the engine's
        ``_minimize``, which aggregated and clipped already) the gradients are applied without a second
        clip, loss-scale division or all-reduce, as TensorFlow.NET's flag means."""
        if experimental_aggregate_gradients is not True and experimental_aggregate_gradients is not False:
            raise TypeError(
                "Argument `experimental_aggregate_gradients` must be a bool, got "
                f"{type(experimental_aggregate_gradients).__name__}: {experimental_aggregate_gradients!r}"
            )
        if experimental_aggregate_gradients:
            return super().apply_gradients(grads_and_vars)
        with preprocessed(self):
            return super().apply_gradients(grads_and_vars)

    def apply(self, grads: Sequence[Any], trainable_variables: Sequence[Any] | None = None) -> None:
        """Keras's ``apply``; under tfnet it first refuses what TensorFlow.NET cannot run (nothing changes)
        and applies no variable constraints, as TensorFlow.NET's ``apply_gradients``."""
        if self._profile.tfnet_optimizer_updates:
            reason = self._tfnet_unsupported()
            if reason is not None:
                raise NotImplementedError(reason)
        if not self._profile.applies_gradients_as_given:
            return super().apply(grads, trainable_variables)
        variables = list(keras_internals.trainable_variables_of(self) if trainable_variables is None
                         else trainable_variables)
        missing = [_name_of(v) for g, v in zip(grads, variables, strict=False) if g is None]
        if missing:
            raise ValueError(
                f"Argument `grads_and_vars`: the gradient of variable {missing[0]!r} is None; semantics="
                "'tfnet' applies every pair as given (TensorFlow.NET fails with a NullReferenceException "
                f"here). Variables without a gradient: {missing}"
            )
        with _constraints_off(variables):
            return super().apply(grads, trainable_variables)

    def weight_decay_stage(self, variables: Sequence[Any]) -> None:
        # TensorFlow.NET's OptimizerV2 has no decoupled weight decay (its AdamW decays in update_step).
        if self._profile.tfnet_optimizer_updates:
            return
        self.keras_weight_decay(variables)

    # ----------------------------------------------------------------- state for traces
    def _slot_names(self) -> tuple[str, ...]:
        """The trace's slot names this optimizer fills under the current profile, in creation order."""
        return tuple(name for name, attribute in self._SLOTS.items() if keras_internals.slot_list(self, attribute))

    def get_slot_names(self) -> list[str]:
        """The slot names ``get_state`` reports (built optimizer)."""
        return list(self._slot_names())

    def get_slot(self, var: Any, slot_name: str) -> Any:
        """The Keras variable holding slot ``slot_name`` of the trainable variable ``var``."""
        if slot_name not in self._slot_names():
            raise ValueError(
                f"Argument `slot_name` must be one of {list(self._slot_names())}, got slot_name={slot_name!r}"
            )
        return keras_internals.slot_of(self, self._SLOTS[slot_name], var)

    def get_state(self, var_list: Sequence[Any]) -> dict[str, Any]:
        """``{"iterations": int64, "learning_rate": float32 (the next step's), "slots": {name: [per var]}}``
        as tensors; works eagerly and inside ``tf.function``."""
        return {
            "iterations": tf.cast(tf.convert_to_tensor(self.iterations), tf.int64),
            "learning_rate": tf.cast(keras_internals.current_learning_rate(self), tf.float32),
            "slots": {name: [read(self.get_slot(v, name)) for v in var_list] for name in self._slot_names()},
        }

    # ----------------------------------------------------------------- configuration
    def get_config(self) -> dict[str, Any]:
        """Keras's config plus ``semantics``."""
        return {**super().get_config(), "semantics": self._semantics}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name!r} semantics={self._semantics!r}>"


def _name_of(variable: Any) -> str:
    path = getattr(variable, "path", None)
    return path if isinstance(path, str) and path else str(getattr(variable, "name", "variable")).split(":")[0]
