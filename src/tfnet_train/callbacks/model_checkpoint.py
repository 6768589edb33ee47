"""`ModelCheckpoint`: saves the model or its weights every epoch or every N batches."""

from __future__ import annotations

import os
import warnings
from typing import Any

from tfnet_train.callbacks.monitor import MonitorCallback, check_number

WEIGHTS_SUFFIX = ".weights.h5"
MODEL_SUFFIX = ".keras"


def _check_save_freq(save_freq: Any) -> str | int:
    if save_freq == "epoch":
        return "epoch"
    if isinstance(save_freq, bool) or not isinstance(save_freq, int) or save_freq <= 0:
        raise ValueError(f"ModelCheckpoint save_freq must be 'epoch' or a positive int; got save_freq={save_freq!r}")
    return save_freq


class ModelCheckpoint(MonitorCallback):
    """Saves `model.save(path)` (a `.keras` file) or `model.save_weights(path, overwrite=True)` (a
    `.weights.h5` file when `save_weights_only=True`).

    Args:
        filepath: path, may hold `str.format` fields filled with `epoch` (1-based), `batch` (1-based, for
            batch-level saves) and the logs, e.g. `"ckpt-{epoch:02d}-{val_loss:.3f}.keras"`.
        monitor: logged quantity compared when `save_best_only=True`.
        verbose: 0 silent, 1 prints a line for each decision.
        save_best_only: save only when `monitor` improves on the best value so far (if `monitor` is
            missing from the logs, warn and save anyway, as Keras does).
        save_weights_only: save weights instead of the whole model.
        mode: "auto", "min" or "max" (see `monitor`); only consulted with `save_best_only=True` (Keras also
            resolves it, and may fail on it, when every epoch is saved anyway).
        save_freq: "epoch", or an int N to save after every N training batches (counted across epochs).
        initial_value_threshold: initial best value for `save_best_only`.
    """

    def __init__(
        self,
        filepath: str | os.PathLike,
        monitor: str = "val_loss",
        verbose: int = 0,
        save_best_only: bool = False,
        save_weights_only: bool = False,
        mode: str = "auto",
        save_freq: str | int = "epoch",
        initial_value_threshold: float | None = None,
    ) -> None:
        if initial_value_threshold is not None:
            initial_value_threshold = check_number(
                initial_value_threshold, "initial_value_threshold", "ModelCheckpoint"
            )
        super().__init__(monitor, mode, 0.0, best=initial_value_threshold)
        if not isinstance(filepath, (str, os.PathLike)):
            raise TypeError(
                f"ModelCheckpoint filepath must be a str or os.PathLike; got filepath={filepath!r} "
                f"of type {type(filepath).__name__}"
            )
        self.filepath = os.fspath(filepath)
        self.verbose = verbose
        self.save_best_only = bool(save_best_only)
        self.save_weights_only = bool(save_weights_only)
        self.save_freq = _check_save_freq(save_freq)
        suffix = WEIGHTS_SUFFIX if self.save_weights_only else MODEL_SUFFIX
        if not self.filepath.endswith(suffix):
            raise ValueError(
                f"ModelCheckpoint with save_weights_only={self.save_weights_only} needs a filepath ending in "
                f"{suffix!r}; got filepath={self.filepath!r}"
            )
        self._current_epoch = 0
        self._batches_since_save = 0
        self._last_batch: int | None = None

    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
        self._current_epoch = epoch

    def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
        if self.save_freq == "epoch":
            return
        # A batch index that does not grow means a new epoch started.
        if self._last_batch is None or batch <= self._last_batch:
            self._batches_since_save += batch + 1
        else:
            self._batches_since_save += batch - self._last_batch
        self._last_batch = batch
        if self._batches_since_save >= self.save_freq:
            self._batches_since_save = 0
            self._save(self._current_epoch, batch, logs)

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        if self.save_freq == "epoch":
            self._save(epoch, None, logs)

    def file_path(self, epoch: int, batch: int | None, logs: dict | None) -> str:
        """`filepath` with its fields filled for 0-based `epoch` and `batch` (shown 1-based)."""
        logs = dict(logs or {})
        fields: dict[str, Any] = {"epoch": epoch + 1}
        if batch is not None and "batch" not in logs:
            fields["batch"] = batch + 1
        try:
            return self.filepath.format(**{**logs, **fields})
        except (KeyError, IndexError) as error:
            raise ValueError(
                f"ModelCheckpoint filepath={self.filepath!r} has a field that is neither epoch, batch nor a "
                f"logged quantity: {error}; logged quantities are {sorted(logs)}"
            ) from None

    def _save(self, epoch: int, batch: int | None, logs: dict | None) -> None:
        path = self.file_path(epoch, batch, logs)
        if not self._should_save(epoch, logs, path):
            return
        if os.path.isdir(path):
            raise IsADirectoryError(f"ModelCheckpoint filepath {path!r} is an existing directory; give a file path")
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        if self.save_weights_only:
            self.model.save_weights(path, overwrite=True)
        else:
            self.model.save(path)
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: finished saving model to {path}", flush=True)

    def _should_save(self, epoch: int, logs: dict | None, path: str) -> bool:
        if not self.save_best_only:
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1}: saving model to {path}", flush=True)
            return True
        current = (logs or {}).get(self.monitor)
        if current is None:
            warnings.warn(f"Can save best model only with {self.monitor} available.", stacklevel=3)
            return True
        best = "None" if self.best is None else f"{self.best:.5f}"
        if self.is_improvement(current, self.best):
            if self.verbose > 0:
                print(
                    f"\nEpoch {epoch + 1}: {self.monitor} improved from {best} to {current:.5f}, "
                    f"saving model to {path}",
                    flush=True,
                )
            self.best = current
            return True
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {best}", flush=True)
        return False
