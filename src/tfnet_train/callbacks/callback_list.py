"""CallbackList: Keras's, told which batch hooks anyone listens to, so the engine skips the rest (each batch hook
costs a device read of the logs)."""

from __future__ import annotations

import keras
from keras.src.utils.python_utils import is_default

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
    if isinstance(callback, keras.callbacks.ProgbarLogger) and mode != "train" and callback._called_in_fit:
        return False  # the progress bar draws nothing for validation batches inside fit
    return any(not is_default(getattr(callback, hook)) for hook in BATCH_HOOKS[mode])


class CallbackList(keras.callbacks.CallbackList):
    """keras.callbacks.CallbackList with ``needs_batch_hooks(mode)``."""

    def needs_batch_hooks(self, mode: str) -> bool:
        """Whether any callback listens to the batch hooks of ``mode`` ("train", "test" or "predict")."""
        return any(listens(callback, mode) for callback in self.callbacks)
