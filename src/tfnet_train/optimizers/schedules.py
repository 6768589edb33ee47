"""Learning-rate schedules, computed op for op as Keras 3 computes them.

Each schedule is called with the optimizer's ``iterations`` (int64) and returns a float32 scalar tensor.
The base class derives from ``keras.optimizers.schedules.LearningRateSchedule``, so these schedules also
work in Keras optimizers, and Keras schedules work in ours.

Under ``semantics="tfnet"`` no schedule is accepted: TensorFlow.NET's Keras optimizers take only a float
learning rate (``OptimizerV2Args.LearningRate`` is a ``float``; its ``LearningRateSchedule`` class is an
empty placeholder and ``PolynomialDecay`` is never consulted by an optimizer).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import keras
import tensorflow as tf

from tfnet_train.optimizers import _checks

__all__ = [
    "LearningRateSchedule",
    "ExponentialDecay",
    "PiecewiseConstantDecay",
    "InverseTimeDecay",
    "PolynomialDecay",
    "CosineDecay",
    "is_schedule",
]


def is_schedule(value: object) -> bool:
    """True for any learning-rate schedule object, ours or Keras 3's."""
    return isinstance(value, keras.optimizers.schedules.LearningRateSchedule)


def _float32(value: float) -> tf.Tensor:
    return tf.convert_to_tensor(value, dtype=tf.float32)


class LearningRateSchedule(keras.optimizers.schedules.LearningRateSchedule):
    """Base class: subclasses implement ``__call__(step) -> float32 scalar tensor`` and ``get_config``."""

    def __call__(self, step: Any) -> tf.Tensor:
        raise NotImplementedError(f"{type(self).__name__} must implement __call__(step)")

    def get_config(self) -> dict[str, Any]:
        raise NotImplementedError(f"{type(self).__name__} must implement get_config()")


class _RateDecay(LearningRateSchedule):
    """Shared by the schedules driven by ``step / decay_steps`` (floored if ``staircase``) and ``decay_rate``;
    ``name`` defaults to the subclass's ``_default_name``, as in Keras."""

    _default_name: str

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: float,
        decay_rate: float,
        staircase: bool = False,
        name: str | None = None,
    ) -> None:
        self.initial_learning_rate = _checks.as_float("initial_learning_rate", initial_learning_rate)
        self.decay_steps = _checks.positive_int_or_float("decay_steps", decay_steps)
        self.decay_rate = _checks.as_float("decay_rate", decay_rate)
        self.staircase = _checks.boolean("staircase", staircase)
        self.name = self._default_name if name is None else name

    def _progress(self, step: Any) -> tf.Tensor:
        """``step / decay_steps`` in float32, floored if ``staircase``."""
        ratio = tf.cast(step, tf.float32) / tf.cast(self.decay_steps, tf.float32)
        return tf.floor(ratio) if self.staircase else ratio

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


class ExponentialDecay(_RateDecay):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)``; the exponent floored if ``staircase``."""

    _default_name = "ExponentialDecay"

    def __call__(self, step: Any) -> tf.Tensor:
        with tf.name_scope(self.name):
            initial = _float32(self.initial_learning_rate)
            decay_rate = tf.cast(self.decay_rate, tf.float32)
            return tf.multiply(initial, tf.pow(decay_rate, self._progress(step)))


class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[0]`` while ``step <= boundaries[0]``, ``values[i]`` while ``boundaries[i-1] < step <=
    boundaries[i]``, ``values[-1]`` after the last boundary."""

    def __init__(self, boundaries: Sequence[int], values: Sequence[float], name: str = "PiecewiseConstant") -> None:
        boundaries, values = list(boundaries), list(values)
        if len(boundaries) != len(values) - 1:
            raise ValueError(
                "Argument `boundaries` must have one element fewer than `values`: expected "
                f"len(boundaries) == {len(values) - 1}, got boundaries={boundaries} (length "
                f"{len(boundaries)}) and values={values} (length {len(values)})"
            )
        if not boundaries:
            raise ValueError("Argument `boundaries` must hold at least one step, got boundaries=[]")
        for i, b in enumerate(boundaries):
            _checks.as_float(f"boundaries[{i}]", b)
        if any(later <= earlier for earlier, later in zip(boundaries, boundaries[1:], strict=False)):
            raise ValueError(f"Argument `boundaries` must be strictly increasing, got boundaries={boundaries}")
        self.boundaries = boundaries
        self.values = [_checks.as_float(f"values[{i}]", v) for i, v in enumerate(values)]
        self.name = name

    def __call__(self, step: Any) -> tf.Tensor:
        with tf.name_scope(self.name):
            step = tf.convert_to_tensor(step)
            bounds = [tf.cast(tf.convert_to_tensor(b), step.dtype) for b in self.boundaries]
            values = [_float32(v) for v in self.values]
            result = tf.constant(0.0, dtype=tf.float32)
            result += tf.cast(step <= bounds[0], tf.float32) * values[0]
            result += tf.cast(step > bounds[-1], tf.float32) * values[-1]
            for low, high, value in zip(bounds[:-1], bounds[1:], values[1:-1], strict=True):
                result += tf.cast(tf.logical_and(step > low, step <= high), tf.float32) * value
            return result

    def get_config(self) -> dict[str, Any]:
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class InverseTimeDecay(_RateDecay):
    """``initial_learning_rate / (1 + decay_rate * step / decay_steps)``; the ratio floored if ``staircase``."""

    _default_name = "InverseTimeDecay"

    def __call__(self, step: Any) -> tf.Tensor:
        with tf.name_scope(self.name):
            initial = _float32(self.initial_learning_rate)
            decay_rate = tf.cast(self.decay_rate, tf.float32)
            denominator = tf.add(tf.constant(1.0, tf.float32), tf.multiply(decay_rate, self._progress(step)))
            return tf.divide(initial, denominator)


class PolynomialDecay(LearningRateSchedule):
    """``(initial - end) * (1 - step / decay_steps) ** power + end`` with step capped at ``decay_steps``;
    with ``cycle`` the horizon becomes the first multiple of ``decay_steps`` not below ``step``."""

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: float,
        end_learning_rate: float = 0.0001,
        power: float = 1.0,
        cycle: bool = False,
        name: str = "PolynomialDecay",
    ) -> None:
        self.initial_learning_rate = _checks.as_float("initial_learning_rate", initial_learning_rate)
        self.decay_steps = _checks.positive_int_or_float("decay_steps", decay_steps)
        self.end_learning_rate = _checks.as_float("end_learning_rate", end_learning_rate)
        self.power = _checks.as_float("power", power)
        self.cycle = _checks.boolean("cycle", cycle)
        self.name = name

    def __call__(self, step: Any) -> tf.Tensor:
        with tf.name_scope(self.name):
            initial = _float32(self.initial_learning_rate)
            end = tf.cast(self.end_learning_rate, tf.float32)
            power = tf.cast(self.power, tf.float32)
            step_f = tf.cast(step, tf.float32)
            horizon = tf.cast(self.decay_steps, tf.float32)
            if self.cycle:
                multiplier = tf.where(tf.equal(step_f, 0.0), 1.0, tf.math.ceil(step_f / self.decay_steps))
                horizon = tf.multiply(horizon, multiplier)
            else:
                step_f = tf.minimum(step_f, horizon)
            fraction = tf.divide(step_f, horizon)
            return tf.add(tf.multiply(initial - end, tf.pow(1 - fraction, power)), end)

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "end_learning_rate": self.end_learning_rate,
            "power": self.power,
            "cycle": self.cycle,
            "name": self.name,
        }


class CosineDecay(LearningRateSchedule):
    """Cosine decay from the start rate to ``alpha`` times it over ``decay_steps``; with ``warmup_target``
    first a linear warm-up from ``initial_learning_rate`` to ``warmup_target`` over ``warmup_steps``."""

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: float,
        alpha: float = 0.0,
        name: str = "CosineDecay",
        warmup_target: float | None = None,
        warmup_steps: float = 0,
    ) -> None:
        self.initial_learning_rate = _checks.as_float("initial_learning_rate", initial_learning_rate)
        self.decay_steps = _checks.positive_int_or_float("decay_steps", decay_steps)
        self.alpha = _checks.as_float("alpha", alpha)
        self.name = name
        self.warmup_target = None if warmup_target is None else _checks.as_float("warmup_target", warmup_target)
        _checks.non_negative("warmup_steps", warmup_steps)
        self.warmup_steps = warmup_steps

    def _decayed(self, step: tf.Tensor, decay_steps: tf.Tensor, start: tf.Tensor) -> tf.Tensor:
        fraction = tf.divide(step, decay_steps)
        pi = tf.constant(math.pi, dtype=tf.float32)
        cosine = 0.5 * (1.0 + tf.cos(tf.multiply(pi, fraction)))
        decayed = (1 - self.alpha) * cosine + self.alpha
        return tf.multiply(start, decayed)

    def _warmed(self, step: tf.Tensor, warmup_steps: tf.Tensor, target: tf.Tensor, start: tf.Tensor) -> tf.Tensor:
        fraction = step / warmup_steps
        return (target - start) * fraction + start

    def __call__(self, step: Any) -> tf.Tensor:
        with tf.name_scope(self.name):
            initial = _float32(self.initial_learning_rate)
            decay_steps = tf.cast(self.decay_steps, tf.float32)
            step_f = tf.cast(step, tf.float32)
            if self.warmup_target is None:
                return self._decayed(tf.minimum(step_f, decay_steps), decay_steps, initial)
            target = tf.cast(self.warmup_target, tf.float32)
            warmup_steps = tf.cast(self.warmup_steps, tf.float32)
            step_f = tf.minimum(step_f, decay_steps + warmup_steps)
            return tf.cond(
                step_f < warmup_steps,
                lambda: self._warmed(step_f, warmup_steps, target, initial),
                lambda: self._decayed(step_f - warmup_steps, decay_steps, target),
            )

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "alpha": self.alpha,
            "name": self.name,
            "warmup_target": self.warmup_target,
            "warmup_steps": self.warmup_steps,
        }
