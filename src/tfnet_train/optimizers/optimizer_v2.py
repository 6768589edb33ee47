"""OptimizerV2: the base class of the optimizers, shaped like TensorFlow.NET's Keras ``OptimizerV2``.

The shape (``_aggregate_gradients`` -> ``_clip_gradients`` -> ``apply_gradients``, per-variable slots,
an int64 ``iterations`` counter, the learning rate in a variable) follows TensorFlow.NET; what a step
computes depends on the semantics profile:

- ``"keras"`` (default): what Keras 3 computes, op for op: SUM all-reduce across replicas, then
  clipvalue, clipnorm per tensor and global_clipnorm with Keras 3's formulas, the learning rate
  evaluated at ``iterations``, decoupled weight decay, the Keras 3 update formulas, variable constraints,
  ``iterations += 1``. Missing (None) gradients are skipped with a warning.
- ``"tfnet"``: what TensorFlow.NET's Keras package 0.15 computes: aggregation and clipping are identity
  (clip arguments ignored), its update formulas (see each optimizer), no constraints, float learning
  rates only (TensorFlow.NET optimizers take a ``float``; a schedule is a ValueError), and a None
  gradient is a ValueError naming the variable (TensorFlow.NET fails there with a null reference).

Updates run through the current ``tf.distribute`` strategy (``merge_call`` + ``extended.update``), so the
same code serves eager execution, ``tf.function`` and ``MirroredStrategy.run``.
"""

from __future__ import annotations

import contextlib
import functools
import numbers
import re
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

import keras
import tensorflow as tf

from tfnet_train.optimizers import _checks, clipping
from tfnet_train.optimizers import schedules as schedules_module
from tfnet_train.optimizers.schedules import is_schedule

SEMANTICS: tuple[str, ...] = ("keras", "tfnet")

Slots = dict[str, tf.Variable]


def tf_variable(var: Any) -> Any:
    """The TensorFlow variable behind ``var`` (a Keras 3 variable is unwrapped)."""
    return var.value if isinstance(var, keras.Variable) else var


def variable_key(var: Any) -> str:
    """A stable identity for a variable, the same for a distributed variable and each of its components."""
    var = tf_variable(var)
    if isinstance(var, tf.distribute.DistributedValues):
        return var._unique_id
    container = getattr(var, "_distributed_container", None)
    if container is None and isinstance(var, tf.Variable):
        container = getattr(var.handle, "_distributed_container", None)
    if container is not None:
        return container()._unique_id
    return var._unique_id


def variable_name(var: Any) -> str:
    """A readable name: a Keras variable's path, else the TensorFlow name without its ``:0`` suffix."""
    path = getattr(var, "path", None)
    if isinstance(path, str) and path:
        return path
    return re.sub(r":\d+$", "", str(getattr(var, "name", "variable")))


def scope_name(name: str) -> str:
    """``name`` with the characters TensorFlow rejects in op and variable names replaced by ``_``."""
    cleaned = re.sub(r"[^A-Za-z0-9_.\-/>]", "_", name)
    return cleaned.lstrip("_-/>") or "optimizer"


def is_variable(var: Any) -> bool:
    """True for a TensorFlow or Keras 3 variable."""
    return isinstance(var, (tf.Variable, keras.Variable))


def _apply_constraint(var: tf.Variable, constraint: Callable[[Any], Any]) -> None:
    var.assign(constraint(var))


class OptimizerV2:
    """Base class: subclasses declare their slots and implement one update per semantics profile.

    ``learning_rate`` is a float (held in a float32 ``tf.Variable``, so assigning a new value needs no
    retrace) or a learning-rate schedule (ours or Keras 3's), evaluated at ``iterations`` each step.
    """

    _default_name: ClassVar[str] = "Optimizer"

    def __init__(
        self,
        learning_rate: float | schedules_module.LearningRateSchedule,
        *,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        name: str | None = None,
    ) -> None:
        if name is None:
            name = self._default_name
        if not isinstance(name, str) or not name:
            raise TypeError(f"Argument `name` must be a non-empty str, got {type(name).__name__}: {name!r}")
        self.name = name
        self.clipnorm = _checks.optional_positive("clipnorm", clipnorm)
        self.clipvalue = _checks.optional_positive("clipvalue", clipvalue)
        self.global_clipnorm = _checks.optional_positive("global_clipnorm", global_clipnorm)
        if self.clipnorm is not None and self.global_clipnorm is not None:
            raise ValueError(
                "Arguments `clipnorm` and `global_clipnorm` cannot both be set: expected at most one of "
                f"them, got clipnorm={clipnorm!r}, global_clipnorm={global_clipnorm!r} "
                "(`clipvalue` may be combined with either)"
            )
        self._semantics = "keras"
        self._schedule: Any = None
        if is_schedule(learning_rate):
            self._schedule = learning_rate
            self._initial_learning_rate: float | None = None
        else:
            self._initial_learning_rate = self._check_float_learning_rate(learning_rate)
        with tf.init_scope():
            initial = (
                self._initial_learning_rate
                if self._schedule is None
                else float(self._schedule(tf.constant(0, tf.int64)))
            )
            self._learning_rate = tf.Variable(
                initial,
                dtype=tf.float32,
                trainable=False,
                name=f"{scope_name(name)}/learning_rate",
                aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA,
            )
            self._iterations = tf.Variable(
                0,
                dtype=tf.int64,
                trainable=False,
                name=f"{scope_name(name)}/iterations",
                aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA,
            )
        self._slots: dict[str, Slots] = {}
        self._slot_variables: list[tf.Variable] = []
        self.built = False

    # ----------------------------------------------------------------- hooks for the subclasses
    def _slot_names(self) -> tuple[str, ...]:
        """The slots one variable needs under the current profile, in creation order."""
        return ()

    def _tfnet_unsupported(self) -> str | None:
        """Why TensorFlow.NET cannot run this configuration (it throws NotImplementedException), or None."""
        return None

    def _keras_update(self, var: tf.Variable, grad: tf.Tensor, lr: tf.Tensor, slots: Slots) -> None:
        raise NotImplementedError(f"{type(self).__name__} must implement _keras_update")

    def _tfnet_update(self, var: tf.Variable, grad: tf.Tensor, lr: tf.Tensor, slots: Slots) -> None:
        raise NotImplementedError(f"{type(self).__name__} must implement _tfnet_update")

    def _weight_decay_mask(self, variables: Sequence[Any]) -> list[bool] | None:
        """Which variables get decoupled weight decay before their update (None: no weight decay)."""
        return None

    def _decay_weight(self, var: tf.Variable, lr: tf.Tensor) -> None:
        raise NotImplementedError(f"{type(self).__name__} has no weight decay")

    def _hyper_config(self) -> dict[str, Any]:
        return {}

    # ----------------------------------------------------------------- semantics
    @property
    def semantics(self) -> str:
        """The semantics profile, ``"keras"`` or ``"tfnet"``."""
        return self._semantics

    @semantics.setter
    def semantics(self, profile: str) -> None:
        self._set_semantics(profile)

    def _set_semantics(self, profile: str) -> None:
        """Switch profile (Model.compile calls this before the first step).

        ValueError for an unknown profile, and for ``"tfnet"`` with a learning-rate schedule, which
        TensorFlow.NET's optimizers cannot take. Configurations TensorFlow.NET throws on (amsgrad,
        centered) are accepted here and raise NotImplementedError at the first update, as there.
        The profile is read when an update is traced: re-trace step functions after changing it.
        """
        if profile not in SEMANTICS:
            raise ValueError(f"Argument `semantics` must be one of {SEMANTICS}, got semantics={profile!r}")
        if profile == "tfnet" and self._schedule is not None:
            raise ValueError(self._tfnet_schedule_message(self._schedule))
        self._semantics = profile

    @staticmethod
    def _tfnet_schedule_message(schedule: Any) -> str:
        return (
            "Argument `learning_rate` must be a float under semantics='tfnet' (TensorFlow.NET's Keras "
            f"optimizers take only a float learning rate), got a {type(schedule).__name__} schedule"
        )

    # ----------------------------------------------------------------- learning rate and counters
    @staticmethod
    def _check_float_learning_rate(value: Any) -> float:
        numeric = isinstance(value, numbers.Real) or (hasattr(value, "__float__") and not isinstance(value, str))
        if isinstance(value, bool) or not numeric:
            raise TypeError(
                "Argument `learning_rate` must be a float or a LearningRateSchedule, got "
                f"{type(value).__name__}: {value!r}"
            )
        return _checks.positive("learning_rate", float(value))

    @property
    def learning_rate(self) -> float | tf.Tensor:
        """The learning rate the next update uses, as Keras 3 reports it: a Python float (a float32 tensor
        inside a graph); with a schedule, the schedule evaluated at ``iterations`` (the schedule object
        itself is ``learning_rate_schedule``). Assign a float to change it (next step, no retrace), or a
        schedule to switch to one."""
        value = self._current_learning_rate()
        if tf.executing_eagerly():
            return float(value)
        return tf.cast(value, tf.float32)

    @property
    def learning_rate_schedule(self) -> Any:
        """The learning-rate schedule object, or None when the learning rate is a float."""
        return self._schedule

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        if is_schedule(value):
            if self._semantics == "tfnet":
                raise ValueError(self._tfnet_schedule_message(value))
            self._schedule = value
            return
        if self._schedule is not None:
            raise TypeError(
                "Argument `learning_rate`: this optimizer uses a "
                f"{type(self._schedule).__name__} schedule, so its learning rate cannot be set to a float "
                f"(got {value!r}); create the optimizer with a float learning_rate to make it settable"
            )
        self._learning_rate.assign(self._check_float_learning_rate(value))

    @property
    def lr(self) -> tf.Variable:
        """The float32 variable holding the learning rate (TensorFlow.NET's ``lr`` hyper variable)."""
        return self._learning_rate

    @property
    def iterations(self) -> tf.Variable:
        """int64 variable: the number of updates applied (0 at construction)."""
        return self._iterations

    def _current_learning_rate(self) -> tf.Tensor:
        """The learning rate the next update uses: the schedule at ``iterations``, or the variable's value."""
        if self._schedule is not None:
            return self._schedule(self._iterations)
        return tf.identity(self._learning_rate)

    # ----------------------------------------------------------------- variables and slots
    def build(self, var_list: Iterable[Any]) -> None:
        """Create the slots (zeros shaped like each variable) of every variable that lacks them.

        Runs eagerly (lifted out of any graph) and is idempotent. Under a distribution strategy the slots
        are created in the variable's strategy, next to the variable.
        """
        with tf.init_scope():
            for var in var_list:
                if not is_variable(var):
                    raise TypeError(f"Argument `var_list` must hold variables, got {type(var).__name__}: {var!r}")
                slots = self._slots.setdefault(variable_key(var), {})
                for slot_name in self._slot_names():
                    if slot_name not in slots:
                        slots[slot_name] = self._create_slot(var, slot_name)
        self.built = True

    def _create_slot(self, var: Any, slot_name: str) -> tf.Variable:
        base = tf_variable(var)
        strategy = base._distribute_strategy if isinstance(base, tf.distribute.DistributedValues) else None
        enter_strategy = strategy is not None and tf.distribute.get_strategy() is not strategy
        with strategy.scope() if enter_strategy else contextlib.nullcontext():
            current = tf.distribute.get_strategy()
            with current.extended.colocate_vars_with(base):
                slot = tf.Variable(
                    lambda: tf.zeros(base.shape, dtype=base.dtype),
                    dtype=base.dtype,
                    trainable=False,
                    name=f"{scope_name(variable_name(var))}/{slot_name}",
                )
        self._slot_variables.append(slot)
        return slot

    def _slots_of(self, var: Any) -> Slots:
        return self._slots[variable_key(var)]

    def get_slot_names(self) -> list[str]:
        """Names of the slots each variable has under the current profile."""
        return list(self._slot_names())

    def get_slot(self, var: Any, slot_name: str) -> tf.Variable:
        """The slot variable ``slot_name`` of ``var``."""
        slots = self._slots.get(variable_key(var))
        if slots is None:
            raise ValueError(
                f"Argument `var`: {variable_name(var)!r} has no slots in optimizer {self.name!r}; expected a "
                "variable passed to build() or apply_gradients()"
            )
        if slot_name not in slots:
            raise ValueError(
                f"Argument `slot_name` must be one of {sorted(slots)} for {variable_name(var)!r}, "
                f"got slot_name={slot_name!r}"
            )
        return slots[slot_name]

    @property
    def variables(self) -> list[tf.Variable]:
        """Every optimizer variable: iterations, learning rate, then the slots in creation order."""
        return [self._iterations, self._learning_rate, *self._slot_variables]

    def get_state(self, var_list: Sequence[Any]) -> dict[str, Any]:
        """``{"iterations": int64, "learning_rate": float32 (the next step's), "slots": {name: [per var]}}``
        as tensors; works eagerly and inside ``tf.function``."""
        return {
            "iterations": tf.identity(self._iterations),
            "learning_rate": tf.cast(self._current_learning_rate(), tf.float32),
            "slots": {name: [tf.identity(self.get_slot(var, name)) for var in var_list] for name in self._slot_names()},
        }

    # ----------------------------------------------------------------- gradient pipeline
    def _aggregate_gradients(self, grads_and_vars: Iterable[tuple[Any, Any]]) -> list[Any]:
        """Sum gradients across replicas (keras profile, in a replica context with more than one replica);
        identity otherwise and always under tfnet. None gradients stay None."""
        grads = [g for g, _ in grads_and_vars]
        if self._semantics == "tfnet" or not tf.distribute.has_strategy():
            return grads
        context = tf.distribute.get_replica_context()
        if context is None or context.num_replicas_in_sync <= 1:
            return grads
        present = [clipping.densify(g) for g in grads if g is not None]
        if not present:
            return grads
        reduced = iter(context.all_reduce(tf.distribute.ReduceOp.SUM, present))
        return [None if g is None else next(reduced) for g in grads]

    def _clip_gradients(self, grads: Sequence[Any]) -> list[Any]:
        """keras profile: clipvalue, then clipnorm per tensor, then global_clipnorm (Keras 3 formulas);
        identity under tfnet (TensorFlow.NET never reads its clip arguments)."""
        grads = list(grads)
        if self._semantics == "tfnet":
            return grads
        if self.clipvalue is not None:
            grads = clipping.clip_by_value(grads, self.clipvalue)
        if self.clipnorm is not None:
            grads = clipping.clip_by_norm(grads, self.clipnorm)
        if self.global_clipnorm is not None:
            grads = clipping.clip_by_global_norm(grads, self.global_clipnorm)
        return grads

    def apply_gradients(
        self,
        grads_and_vars: Iterable[tuple[Any, Any]],
        experimental_aggregate_gradients: bool = True,
        *,
        name: str | None = None,
    ) -> tf.Variable:
        """Apply one update; returns ``iterations``.

        With ``experimental_aggregate_gradients=True`` the gradients are aggregated and clipped first;
        with False (the engine's ``_minimize``, which did both already) they are applied as given.
        Order: learning rate for this step, weight decay, per-variable update, constraints (keras
        profile), ``iterations += 1``. An empty list is a no-op. ``name`` names the op scope.
        """
        _checks.boolean("experimental_aggregate_gradients", experimental_aggregate_gradients)
        pairs = self._checked_pairs(grads_and_vars)
        if not pairs:
            return self._iterations
        if self._semantics == "tfnet":
            reason = self._tfnet_unsupported()
            if reason is not None:
                raise NotImplementedError(reason)
        pairs = self._drop_missing_gradients(pairs)
        grads = [clipping.densify(g) for g, _ in pairs]
        variables = [v for _, v in pairs]
        if experimental_aggregate_gradients:
            grads = self._clip_gradients(self._aggregate_gradients(list(zip(grads, variables, strict=True))))
        keras_profile = self._semantics == "keras"
        apply = functools.partial(
            self._distributed_apply,
            variables=variables,
            decay_mask=self._weight_decay_mask(variables),
            constraints=[getattr(v, "constraint", None) if keras_profile else None for v in variables],
        )
        with tf.name_scope(scope_name(name or self.name)):
            tf.__internal__.distribute.interim.maybe_merge_call(apply, tf.distribute.get_strategy(), grads)
        return self._iterations

    def _checked_pairs(self, grads_and_vars: Iterable[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
        try:
            pairs = [tuple(pair) for pair in grads_and_vars]
        except TypeError as error:
            raise TypeError(
                "Argument `grads_and_vars` must be an iterable of (gradient, variable) pairs, got "
                f"{type(grads_and_vars).__name__}"
            ) from error
        for i, pair in enumerate(pairs):
            if len(pair) != 2:
                raise ValueError(
                    f"Argument `grads_and_vars` must hold (gradient, variable) pairs, got {len(pair)} "
                    f"items at index {i}"
                )
            grad, var = pair
            if not is_variable(var):
                raise TypeError(
                    f"Argument `grads_and_vars`: item {i} must pair a gradient with a variable, got "
                    f"{type(var).__name__} in the variable position"
                )
            shape = getattr(grad, "shape", None)
            if shape is not None and not tf.TensorShape(shape).is_compatible_with(tf.TensorShape(var.shape)):
                raise ValueError(
                    f"Argument `grads_and_vars`: the gradient of {variable_name(var)!r} must have the "
                    f"variable's shape {tuple(var.shape)}, got shape {tuple(tf.TensorShape(shape))}"
                )
        return pairs

    def _drop_missing_gradients(self, pairs: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
        missing = [variable_name(v) for g, v in pairs if g is None]
        if not missing:
            return pairs
        if self._semantics == "tfnet":
            raise ValueError(
                f"Argument `grads_and_vars`: the gradient of variable {missing[0]!r} is None; semantics="
                "'tfnet' applies every pair as given (TensorFlow.NET fails with a NullReferenceException "
                f"here). Variables without a gradient: {missing}"
            )
        kept = [(g, v) for g, v in pairs if g is not None]
        if not kept:
            raise ValueError(f"No gradients provided for any variable: every gradient is None for {missing}")
        warnings.warn(
            f"Gradients do not exist for variables {missing} when minimizing the loss; they are not updated.",
            stacklevel=3,
        )
        return kept

    def _distributed_apply(
        self,
        distribution: tf.distribute.Strategy,
        grads: Sequence[Any],
        *,
        variables: Sequence[Any],
        decay_mask: list[bool] | None,
        constraints: Sequence[Callable[[Any], Any] | None],
    ) -> None:
        self.build(variables)
        targets = [tf_variable(v) for v in variables]
        lr = self._current_learning_rate()
        if decay_mask is not None:
            for var, decay in zip(targets, decay_mask, strict=True):
                if decay:
                    distribution.extended.update(var, self._decay_weight, args=(lr,), group=False)
        for grad, var in zip(grads, targets, strict=True):
            distribution.extended.update(var, self._update_variable, args=(grad, lr), group=False)
        for var, constraint in zip(targets, constraints, strict=True):
            if constraint is not None:
                distribution.extended.update(
                    var, functools.partial(_apply_constraint, constraint=constraint), group=False
                )
        self._iterations.assign_add(1)

    def _update_variable(self, var: tf.Variable, grad: tf.Tensor, lr: tf.Tensor) -> None:
        grad = tf.cast(grad, var.dtype)
        if self._semantics == "tfnet":
            self._tfnet_update(var, grad, lr, self._slots_of(var))
        else:
            self._keras_update(var, grad, lr, self._slots_of(var))

    # ----------------------------------------------------------------- configuration
    def get_config(self) -> dict[str, Any]:
        """Plain dict of hyper-parameters (a schedule as ``{"class_name", "config"}``)."""
        if self._schedule is not None:
            learning_rate: Any = {
                "class_name": type(self._schedule).__name__,
                "config": self._schedule.get_config(),
            }
        else:
            learning_rate = float(self._learning_rate.numpy())
        return {
            "name": self.name,
            "learning_rate": learning_rate,
            **self._hyper_config(),
            "clipnorm": self.clipnorm,
            "clipvalue": self.clipvalue,
            "global_clipnorm": self.global_clipnorm,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> OptimizerV2:
        """Rebuild an optimizer from ``get_config()`` (schedules by class name from our schedules or Keras's)."""
        config = dict(config)
        lr = config.get("learning_rate")
        if isinstance(lr, dict):
            schedule_class = getattr(schedules_module, lr["class_name"], None) or getattr(
                keras.optimizers.schedules, lr["class_name"]
            )
            config["learning_rate"] = schedule_class(**lr["config"])
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name!r} semantics={self._semantics!r}>"


def hyper(value: float, dtype: tf.DType) -> tf.Tensor:
    """A hyper-parameter as TensorFlow.NET holds it (a float32 variable) cast to the variable's dtype."""
    return tf.cast(tf.constant(value, dtype=tf.float32), dtype)
