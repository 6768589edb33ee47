"""`Callback`: the base class every training, evaluation and prediction callback derives from.

Hooks receive `logs: dict | None`; inside `fit`/`evaluate`/`predict` the engine calls them through a
`CallbackList`, which passes dicts of Python floats. A hook left as inherited is marked as a default, so a
`CallbackList` can tell which batch hooks nobody listens to and let the engine skip them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

_F = TypeVar("_F", bound=Callable[..., Any])

#: Batch-level hook names per mode. `on_batch_begin`/`on_batch_end` are the train-mode aliases.
BATCH_HOOKS: dict[str, tuple[str, ...]] = {
    "train": ("on_train_batch_begin", "on_train_batch_end", "on_batch_begin", "on_batch_end"),
    "test": ("on_test_batch_begin", "on_test_batch_end"),
    "predict": ("on_predict_batch_begin", "on_predict_batch_end"),
}

#: Every hook a callback exposes.
HOOK_NAMES: tuple[str, ...] = (
    "on_train_begin",
    "on_train_end",
    "on_epoch_begin",
    "on_epoch_end",
    "on_train_batch_begin",
    "on_train_batch_end",
    "on_batch_begin",
    "on_batch_end",
    "on_test_begin",
    "on_test_end",
    "on_test_batch_begin",
    "on_test_batch_end",
    "on_predict_begin",
    "on_predict_end",
    "on_predict_batch_begin",
    "on_predict_batch_end",
)


def default_hook(method: _F) -> _F:
    """Mark a hook as the do-nothing default, so overriding it is detectable."""
    method._is_default_hook = True  # type: ignore[attr-defined]
    return method


def is_default_hook(method: object) -> bool:
    """True when `method` is an inherited default hook (ours, or one Keras marks the same way)."""
    return bool(getattr(method, "_is_default_hook", False) or getattr(method, "_is_default", False))


def check_batch_mode(mode: str) -> None:
    """Raise ValueError unless `mode` is one of "train", "test", "predict"."""
    if mode not in BATCH_HOOKS:
        raise ValueError(f"mode must be one of {sorted(BATCH_HOOKS)}; got mode={mode!r}")


class Callback:
    """Base class for callbacks: override the hooks you need.

    Attributes:
        model: the model being trained, evaluated or run (set by `set_model`).
        params: the run's parameters, e.g. `{"verbose": 1, "epochs": 10, "steps": 100}` (set by `set_params`).
    """

    def __init__(self) -> None:
        self.params: dict[str, Any] | None = None
        self._model: Any = None

    @property
    def model(self) -> Any:
        """The model this callback is attached to, or None."""
        return self._model

    def set_params(self, params: dict[str, Any] | None) -> None:
        """Receive the run's parameters (verbosity, number of epochs, steps per epoch, ...)."""
        self.params = params

    def set_model(self, model: Any) -> None:
        """Attach the model the hooks act on."""
        self._model = model

    def needs_batch_hooks(self, mode: str) -> bool:
        """True when this callback does something in the batch hooks of `mode` ("train", "test", "predict").

        The default answer is "a batch hook of that mode is overridden"; subclasses that only sometimes act
        per batch may answer more precisely.
        """
        check_batch_mode(mode)
        return any(not is_default_hook(getattr(self, name)) for name in BATCH_HOOKS[mode])

    @default_hook
    def on_train_begin(self, logs: dict | None = None) -> None:
        """Called once at the start of `fit`."""

    @default_hook
    def on_train_end(self, logs: dict | None = None) -> None:
        """Called once at the end of `fit`; `logs` are the last epoch's logs."""

    @default_hook
    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
        """Called at the start of each epoch (`epoch` is 0-based)."""

    @default_hook
    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        """Called at the end of each epoch with training and `val_`-prefixed validation results."""

    @default_hook
    def on_train_batch_begin(self, batch: int, logs: dict | None = None) -> None:
        """Called before each training step (`batch` is 0-based within the epoch); forwards to `on_batch_begin`."""
        self.on_batch_begin(batch, logs=logs)

    @default_hook
    def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
        """Called after each training step with the running results; forwards to `on_batch_end`."""
        self.on_batch_end(batch, logs=logs)

    @default_hook
    def on_batch_begin(self, batch: int, logs: dict | None = None) -> None:
        """Older name for `on_train_batch_begin`."""

    @default_hook
    def on_batch_end(self, batch: int, logs: dict | None = None) -> None:
        """Older name for `on_train_batch_end`."""

    @default_hook
    def on_test_begin(self, logs: dict | None = None) -> None:
        """Called at the start of `evaluate` or of a validation pass."""

    @default_hook
    def on_test_end(self, logs: dict | None = None) -> None:
        """Called at the end of `evaluate` or of a validation pass."""

    @default_hook
    def on_test_batch_begin(self, batch: int, logs: dict | None = None) -> None:
        """Called before each evaluation step."""

    @default_hook
    def on_test_batch_end(self, batch: int, logs: dict | None = None) -> None:
        """Called after each evaluation step with the running results."""

    @default_hook
    def on_predict_begin(self, logs: dict | None = None) -> None:
        """Called at the start of `predict`."""

    @default_hook
    def on_predict_end(self, logs: dict | None = None) -> None:
        """Called at the end of `predict`."""

    @default_hook
    def on_predict_batch_begin(self, batch: int, logs: dict | None = None) -> None:
        """Called before each prediction step."""

    @default_hook
    def on_predict_batch_end(self, batch: int, logs: dict | None = None) -> None:
        """Called after each prediction step."""
