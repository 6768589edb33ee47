"""`EarlyStopping`: stops training when a monitored quantity stops improving (Keras 3 semantics)."""

from __future__ import annotations

import warnings
from typing import Any

from tfnet_train.callbacks.monitor import MonitorCallback, check_number


def _check_non_negative_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"EarlyStopping {name} must be a non-negative int; got {name}={value!r}")
    return value


class EarlyStopping(MonitorCallback):
    """Sets `model.stop_training = True` once `monitor` has not improved for `patience` epochs.

    Args:
        monitor: logged quantity to watch.
        min_delta: an improvement must exceed this absolute change.
        patience: epochs without improvement tolerated before stopping.
        verbose: 0 silent, 1 prints when stopping and when restoring weights.
        mode: "auto" (direction from the name, see `monitor`), "min" or "max".
        baseline: if given, an improvement resets the patience count only when it also beats the baseline.
        restore_best_weights: at the end of training, put back the weights of the best epoch (taken with
            `model.get_weights()` / restored with `model.set_weights()`).
        start_from_epoch: epochs before this index are ignored entirely (warm-up).

    Semantics are those of Keras 3: the wait counter grows every monitored epoch and is reset by an
    improvement; the stop needs `wait >= patience` and `epoch > 0`; weights are restored in `on_train_end`,
    which runs whether training stopped early or not; a missing monitored key warns and skips the epoch.
    One difference: an unknown `mode` raises ValueError instead of warning and falling back to "auto".
    """

    def __init__(
        self,
        monitor: str = "val_loss",
        min_delta: float = 0,
        patience: int = 0,
        verbose: int = 0,
        mode: str = "auto",
        baseline: float | None = None,
        restore_best_weights: bool = False,
        start_from_epoch: int = 0,
    ) -> None:
        super().__init__(monitor, mode, min_delta)
        self.patience = _check_non_negative_int(patience, "patience")
        self.start_from_epoch = _check_non_negative_int(start_from_epoch, "start_from_epoch")
        self.verbose = verbose
        self.baseline = None if baseline is None else check_number(baseline, "baseline", "EarlyStopping")
        self.restore_best_weights = bool(restore_best_weights)
        self.wait = 0
        self.stopped_epoch = 0
        self.best_epoch = 0
        self.best_weights: list | None = None

    def on_train_begin(self, logs: dict | None = None) -> None:
        # Reset so that one instance can serve several fits.
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        self.resolve_direction()
        current = self.get_monitor_value(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            # Until something improves, the weights at the first monitored epoch are the best known.
            self.best_weights = self.model.get_weights()
            self.best_epoch = epoch

        self.wait += 1
        if self.is_improvement(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self.is_improvement(current, self.baseline):
                self.wait = 0
            return

        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs: dict | None = None) -> None:
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping", flush=True)
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print(f"Restoring model weights from the end of the best epoch: {self.best_epoch + 1}.", flush=True)
            self.model.set_weights(self.best_weights)

    def get_monitor_value(self, logs: dict | None) -> Any:
        """The monitored value from `logs`, or None (with a warning listing the available keys)."""
        logs = logs or {}
        value = logs.get(self.monitor)
        if value is None:
            warnings.warn(
                f"Early stopping conditioned on metric `{self.monitor}` which is not available. "
                f"Available metrics are: {','.join(logs)}",
                stacklevel=2,
            )
        return value
