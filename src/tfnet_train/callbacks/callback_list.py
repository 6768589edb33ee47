"""`CallbackList`: the engine's single entry point to all callbacks of one fit/evaluate/predict run."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from tfnet_train.callbacks.callback import BATCH_HOOKS, HOOK_NAMES, Callback, check_batch_mode, is_default_hook
from tfnet_train.callbacks.history import History
from tfnet_train.callbacks.progbar_logger import ProgbarLogger


def python_logs(logs: Mapping[str, Any] | None) -> dict[str, Any]:
    """A new dict with keys sorted, nested dicts flattened, and scalar values (numpy, tensors) as Python floats.

    Values that are not scalars are kept as they are. Sorting follows Keras 3, so displays and histories list
    metrics in the same order as Keras does.
    """
    result: dict[str, Any] = {}
    for name, value in sorted((logs or {}).items()):
        if isinstance(value, Mapping):
            result.update(python_logs(value))
        else:
            result[name] = _as_float(value)
    return result


def _as_float(value: Any) -> Any:
    if type(value) is float:
        return value
    if hasattr(value, "numpy"):  # eager tensors and variables
        value = value.numpy()
    if isinstance(value, (int, np.number, np.bool_)) or (isinstance(value, np.ndarray) and value.ndim == 0):
        return float(value)
    return value


def _flatten_callbacks(callbacks: Any) -> list[Any]:
    if callbacks is None:
        return []
    if isinstance(callbacks, (list, tuple)):
        flat: list[Any] = []
        for item in callbacks:
            flat.extend(_flatten_callbacks(item))
        return flat
    _check_callback(callbacks)
    return [callbacks]


def _check_callback(callback: Any) -> None:
    missing = [name for name in ("set_model", "set_params", *HOOK_NAMES) if not callable(getattr(callback, name, None))]
    if missing:
        raise TypeError(
            "callbacks must be Callback instances (or objects with every callback hook) or a list of them; "
            f"got an object of type {type(callback).__name__} without {', '.join(missing)}"
        )


def _needs_batch_hooks(callback: Any, mode: str) -> bool:
    own_answer = getattr(callback, "needs_batch_hooks", None)
    if callable(own_answer):
        return bool(own_answer(mode))
    # Foreign callbacks (e.g. keras.callbacks.*): an unmarked hook may do something, so it counts.
    return any(not is_default_hook(getattr(callback, name, None)) for name in BATCH_HOOKS[mode])


class CallbackList(Callback):
    """Holds the callbacks of one run and forwards every hook to each of them, in order.

    Args:
        callbacks: a Callback, a (nested) list of them, or None. Objects that are not `Callback`s but have
            every hook (for instance `keras.callbacks.*`) are accepted.
        add_history: append a `History` unless one is already among `callbacks` (that one is then used).
        add_progbar: append a `ProgbarLogger` unless one is already among `callbacks`. Like Keras 3, it comes
            after the user's callbacks and the History, so it prints what they wrote into the epoch logs.
        model: the model, passed to every callback (and given `model.history`).
        verbose, epochs, steps: the run's params, passed to every callback's `set_params`.

    Every hook converts `logs` once with `python_logs` (a fresh dict of Python floats) and hands the same
    dict to each callback, so a callback may add entries that later ones see (as LearningRateScheduler does).
    The `needs_*_batch_hooks` flags tell the engine whether calling the batch hooks of a mode can be skipped.
    """

    def __init__(
        self,
        callbacks: Callback | Iterable[Callback] | None = None,
        *,
        add_history: bool = False,
        add_progbar: bool = False,
        model: Any = None,
        verbose: int | str = 1,
        epochs: int | None = None,
        steps: int | None = None,
    ) -> None:
        super().__init__()
        self.callbacks: list[Any] = _flatten_callbacks(callbacks)
        self.history: History | None = next((cb for cb in self.callbacks if isinstance(cb, History)), None)
        self.progbar: ProgbarLogger | None = next((cb for cb in self.callbacks if isinstance(cb, ProgbarLogger)), None)
        if self.history is None and add_history:
            self.history = History()
            self.callbacks.append(self.history)
        if self.progbar is None and add_progbar:
            self.progbar = ProgbarLogger()
            self.callbacks.append(self.progbar)
        self.set_model(model)
        self.set_params({"verbose": verbose, "epochs": epochs, "steps": steps})

    def __iter__(self):
        return iter(self.callbacks)

    def __len__(self) -> int:
        return len(self.callbacks)

    def append(self, callback: Callback) -> None:
        """Add a callback at the end; it receives the current model and params."""
        _check_callback(callback)
        self.callbacks.append(callback)
        if self.model is not None:
            callback.set_model(self.model)
        if self.params is not None:
            callback.set_params(self.params)

    def set_model(self, model: Any) -> None:
        """Attach `model` to every callback and set `model.history` to this run's History (if any)."""
        if model is None:
            return
        super().set_model(model)
        if self.history is not None:
            model.history = self.history
        for callback in self.callbacks:
            callback.set_model(model)

    def set_params(self, params: dict[str, Any] | None) -> None:
        """Pass the run's params to every callback."""
        super().set_params(params)
        for callback in self.callbacks:
            callback.set_params(params)

    def needs_batch_hooks(self, mode: str) -> bool:
        """True when some callback acts in the batch hooks of `mode` ("train", "test", "predict")."""
        check_batch_mode(mode)
        return any(_needs_batch_hooks(callback, mode) for callback in self.callbacks)

    @property
    def needs_train_batch_hooks(self) -> bool:
        """False when `on_train_batch_begin/end` may be skipped (no callback acts on them)."""
        return self.needs_batch_hooks("train")

    @property
    def needs_test_batch_hooks(self) -> bool:
        """False when `on_test_batch_begin/end` may be skipped."""
        return self.needs_batch_hooks("test")

    @property
    def needs_predict_batch_hooks(self) -> bool:
        """False when `on_predict_batch_begin/end` may be skipped."""
        return self.needs_batch_hooks("predict")

    # Run-level hooks: `logs` passed positionally, as Keras does.
    def on_train_begin(self, logs: dict | None = None) -> None:
        logs = python_logs(logs)
        for callback in self.callbacks:
            callback.on_train_begin(logs)

    def on_train_end(self, logs: dict | None = None) -> None:
        logs = python_logs(logs)
        for callback in self.callbacks:
            callback.on_train_end(logs)

    def on_test_begin(self, logs: dict | None = None) -> None:
        logs = python_logs(logs)
        for callback in self.callbacks:
            callback.on_test_begin(logs)

    def on_test_end(self, logs: dict | None = None) -> None:
        logs = python_logs(logs)
        for callback in self.callbacks:
            callback.on_test_end(logs)

    def on_predict_begin(self, logs: dict | None = None) -> None:
        logs = python_logs(logs)
        for callback in self.callbacks:
            callback.on_predict_begin(logs)

    def on_predict_end(self, logs: dict | None = None) -> None:
        logs = python_logs(logs)
        for callback in self.callbacks:
            callback.on_predict_end(logs)

    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
        logs = python_logs(logs)
        for callback in self.callbacks:
            callback.on_epoch_begin(epoch, logs)

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        logs = python_logs(logs)
        for callback in self.callbacks:
            callback.on_epoch_end(epoch, logs)

    # Batch-level hooks: `logs` passed by keyword, as Keras does.
    def on_train_batch_begin(self, batch: int, logs: dict | None = None) -> None:
        logs = python_logs(logs)
        for callback in self.callbacks:
            callback.on_train_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
        logs = python_logs(logs)
        for callback in self.callbacks:
            callback.on_train_batch_end(batch, logs=logs)

    def on_batch_begin(self, batch: int, logs: dict | None = None) -> None:
        logs = python_logs(logs)
        for callback in self.callbacks:
            callback.on_batch_begin(batch, logs=logs)

    def on_batch_end(self, batch: int, logs: dict | None = None) -> None:
        logs = python_logs(logs)
        for callback in self.callbacks:
            callback.on_batch_end(batch, logs=logs)

    def on_test_batch_begin(self, batch: int, logs: dict | None = None) -> None:
        logs = python_logs(logs)
        for callback in self.callbacks:
            callback.on_test_batch_begin(batch, logs=logs)

    def on_test_batch_end(self, batch: int, logs: dict | None = None) -> None:
        logs = python_logs(logs)
        for callback in self.callbacks:
            callback.on_test_batch_end(batch, logs=logs)

    def on_predict_batch_begin(self, batch: int, logs: dict | None = None) -> None:
        logs = python_logs(logs)
        for callback in self.callbacks:
            callback.on_predict_batch_begin(batch, logs=logs)

    def on_predict_batch_end(self, batch: int, logs: dict | None = None) -> None:
        logs = python_logs(logs)
        for callback in self.callbacks:
            callback.on_predict_batch_end(batch, logs=logs)
