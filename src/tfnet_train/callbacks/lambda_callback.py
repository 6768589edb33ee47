"""`LambdaCallback`: a callback made of plain functions, one per hook."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfnet_train.callbacks.callback import HOOK_NAMES, Callback


class LambdaCallback(Callback):
    """Calls the given functions from the matching hooks.

    Functions are called as the hooks are (Keras conventions): `on_epoch_begin(epoch, logs)`,
    `on_epoch_end(epoch, logs)`, `on_train_begin(logs)`, `on_train_end(logs)` (likewise the test/predict
    begin/end hooks), and batch hooks as `f(batch, logs=logs)`. `on_batch_begin`/`on_batch_end` are the
    older names of the train batch hooks: they run for every training batch unless `on_train_batch_begin`/
    `on_train_batch_end` are given too. Any keyword that is not a hook name is a TypeError.
    """

    def __init__(
        self,
        on_epoch_begin: Callable[..., Any] | None = None,
        on_epoch_end: Callable[..., Any] | None = None,
        on_train_begin: Callable[..., Any] | None = None,
        on_train_end: Callable[..., Any] | None = None,
        on_train_batch_begin: Callable[..., Any] | None = None,
        on_train_batch_end: Callable[..., Any] | None = None,
        on_batch_begin: Callable[..., Any] | None = None,
        on_batch_end: Callable[..., Any] | None = None,
        **other_hooks: Callable[..., Any] | None,
    ) -> None:
        super().__init__()
        unknown = sorted(set(other_hooks) - set(HOOK_NAMES))
        if unknown:
            raise TypeError(
                f"LambdaCallback got unknown hook name(s) {', '.join(unknown)}; expected names among "
                f"{', '.join(HOOK_NAMES)}"
            )
        hooks = {
            "on_epoch_begin": on_epoch_begin,
            "on_epoch_end": on_epoch_end,
            "on_train_begin": on_train_begin,
            "on_train_end": on_train_end,
            "on_train_batch_begin": on_train_batch_begin,
            "on_train_batch_end": on_train_batch_end,
            "on_batch_begin": on_batch_begin,
            "on_batch_end": on_batch_end,
            **other_hooks,
        }
        for name, function in hooks.items():
            if function is None:
                continue
            if not callable(function):
                raise TypeError(
                    f"LambdaCallback {name} must be callable or None; got {name}={function!r} "
                    f"of type {type(function).__name__}"
                )
            setattr(self, name, function)
