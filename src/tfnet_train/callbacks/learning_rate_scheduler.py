"""`LearningRateScheduler`: sets the optimizer's learning rate at the start of every epoch."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tfnet_train.callbacks.callback import Callback


def _takes_two_arguments(function: Callable[..., Any]) -> bool:
    """True when `function(epoch, lr)` is a valid call; False when only `function(epoch)` is."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # some builtins have no signature: try the two-argument form
        return True
    try:
        signature.bind(0, 0.0)
    except TypeError:
        return False
    return True


def _as_learning_rate(value: Any, schedule: Callable[..., Any]) -> float:
    name = getattr(schedule, "__name__", type(schedule).__name__)
    if hasattr(value, "numpy"):  # an eager tensor
        value = value.numpy()
    numeric = isinstance(value, (int, float, np.integer, np.floating)) or (
        isinstance(value, np.ndarray) and value.ndim == 0 and np.issubdtype(value.dtype, np.number)
    )
    if isinstance(value, (bool, np.bool_)) or not numeric or np.iscomplexobj(value):
        raise TypeError(
            f"LearningRateScheduler schedule {name} must return a real number (the learning rate); "
            f"got {value!r} of type {type(value).__name__}"
        )
    rate = float(value)
    if not math.isfinite(rate) or rate < 0:
        raise ValueError(
            f"LearningRateScheduler schedule {name} must return a finite, non-negative learning rate; got {rate!r}"
        )
    return rate


class LearningRateScheduler(Callback):
    """At each epoch start, `model.optimizer.learning_rate = schedule(epoch, lr)` (a Python float).

    Args:
        schedule: `f(epoch, lr) -> new_lr` with `epoch` 0-based and `lr` the current rate as a float, or
            `f(epoch) -> new_lr`. The result must be a real number (int, float, numpy scalar or 0-d tensor),
            finite and >= 0: otherwise TypeError / ValueError quoting what the schedule returned.
        verbose: 0 quiet, 1 prints each change.

    At each epoch end the current rate is written to `logs["learning_rate"]`, as Keras 3 does, so callbacks
    after this one (the History, the progress bar) record and show it.
    """

    def __init__(self, schedule: Callable[..., Any], verbose: int = 0) -> None:
        super().__init__()
        if not callable(schedule):
            raise TypeError(
                f"LearningRateScheduler schedule must be callable; got schedule={schedule!r} "
                f"of type {type(schedule).__name__}"
            )
        self.schedule = schedule
        self.verbose = verbose
        self._two_arguments = _takes_two_arguments(schedule)

    def _optimizer(self) -> Any:
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is None or not hasattr(optimizer, "learning_rate"):
            raise ValueError(
                "LearningRateScheduler needs model.optimizer with a learning_rate attribute; "
                f"got optimizer={optimizer!r}"
            )
        return optimizer

    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
        optimizer = self._optimizer()
        if self._two_arguments:
            result = self.schedule(epoch, _current_rate(optimizer))
        else:
            result = self.schedule(epoch)
        rate = _as_learning_rate(result, self.schedule)
        optimizer.learning_rate = rate
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {rate}.", flush=True)

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        if logs is not None:
            logs["learning_rate"] = _current_rate(self._optimizer())


def _current_rate(optimizer: Any) -> float:
    rate = optimizer.learning_rate
    if hasattr(rate, "numpy"):
        rate = rate.numpy()
    return float(rate)
