"""CallbackList: Keras's, told which batch hooks anyone listens to, so the engine skips the rest (each batch hook
costs a device read of the logs)."""

from __future__ import annotations

import os
from typing import Any

import keras

from tfnet_train.callbacks import tensorboard
from tfnet_train.distribution import is_chief
from tfnet_train.keras_internals import is_default, progbar_in_fit

#: Batch-level hook names per mode. `on_batch_begin`/`on_batch_end` are the train-mode aliases.
BATCH_HOOKS: dict[str, tuple[str, ...]] = {
    "train": ("on_train_batch_begin", "on_train_batch_end", "on_batch_begin", "on_batch_end"),
    "test": ("on_test_batch_begin", "on_test_batch_end"),
    "predict": ("on_predict_batch_begin", "on_predict_batch_end"),
}


def check_batch_mode(mode: str) -> None:
    """Raise ValueError unless `mode` is one of "train", "test", "predict"."""
    if mode not in BATCH_HOOKS:
        raise ValueError(f"mode must be one of {sorted(BATCH_HOOKS)}; got mode={mode!r}")


def listens(callback: keras.callbacks.Callback, mode: str) -> bool:
    """True when ``callback`` overrides a batch hook of ``mode`` (or says so through ``needs_batch_hooks``)."""
    check_batch_mode(mode)
    asks = getattr(callback, "needs_batch_hooks", None)
    if callable(asks):
        return bool(asks(mode))
    if isinstance(callback, keras.callbacks.TensorBoard):
        return tensorboard.listens(callback, mode)
    if isinstance(callback, keras.callbacks.ProgbarLogger) and mode != "train" and progbar_in_fit(callback):
        return False  # the progress bar draws nothing for validation batches inside fit
    return any(not is_default(getattr(callback, hook)) for hook in BATCH_HOOKS[mode])


class CallbackList(keras.callbacks.CallbackList):
    """keras.callbacks.CallbackList with ``needs_batch_hooks(mode)``; every item must be a Keras callback."""

    def __init__(self, callbacks: Any = None, **kwargs: Any) -> None:
        check_callbacks(callbacks)
        super().__init__(callbacks, **kwargs)

    def needs_batch_hooks(self, mode: str) -> bool:
        """Whether any callback listens to the batch hooks of ``mode`` ("train", "test" or "predict")."""
        return any(listens(callback, mode) for callback in self.callbacks)

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        _make_checkpoint_folders(self.callbacks, self.model)
        super().on_train_begin(logs)


def check_callbacks(callbacks: Any) -> None:
    """TypeError naming the item for anything in ``callbacks`` that is not a keras.callbacks.Callback."""
    if callbacks is None:
        return
    if isinstance(callbacks, keras.callbacks.Callback) or not isinstance(callbacks, list | tuple):
        raise TypeError(f"callbacks must be a list of keras.callbacks.Callback, got {type(callbacks).__name__}")
    for i, callback in enumerate(callbacks):
        if not isinstance(callback, keras.callbacks.Callback):
            raise TypeError(
                f"callbacks[{i}] must be a keras.callbacks.Callback, got {type(callback).__name__} {callback!r}")


def _make_checkpoint_folders(callbacks: list, model: Any) -> None:
    """Under a multi-replica strategy, the chief makes each ModelCheckpoint's folder before the first step: Keras
    makes it at the first save, from every worker at once, and the loser of that race fails with FileExistsError.
    The other workers reach their first save after the chief's first step, so they find it."""
    if model is None or model.distribute_strategy.num_replicas_in_sync == 1 or not is_chief(model):
        return
    for callback in callbacks:
        folder = os.path.dirname(str(getattr(callback, "filepath", "")))
        if isinstance(callback, keras.callbacks.ModelCheckpoint) and folder and "{" not in folder:
            os.makedirs(folder, exist_ok=True)
