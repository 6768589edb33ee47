"""`ProgbarLogger`: prints progress and metrics to standard output during fit, evaluate and predict."""

from __future__ import annotations

from typing import Any

from tfnet_train.callbacks.callback import Callback, check_batch_mode
from tfnet_train.callbacks.progress_bar import ProgressBar, stdout_is_terminal

_VERBOSE_CHOICES = (0, 1, 2, "auto")


def _check_verbose(value: Any, name: str) -> int:
    if isinstance(value, bool) or value not in _VERBOSE_CHOICES:
        raise ValueError(f"{name} must be one of 0, 1, 2 or 'auto'; got {name}={value!r}")
    return 1 if value == "auto" else int(value)


def _check_count(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative int or None; got {name}={value!r}")
    return value


class ProgbarLogger(Callback):
    """Prints an `Epoch i/N` header and a progress line per epoch (see `progress_bar` for the display rules).

    Args:
        verbose: 0 (silent), 1 (progress bar), 2 (one line per epoch) or "auto" (1). When None (the default)
            the run's `params["verbose"]` decides; an explicit value wins over the params.
        interval: minimum seconds between two redraws on a terminal.

    Reads `params["epochs"]` and `params["steps"]` (steps per epoch, None when unknown). Validation passes
    inside `fit` are silent, as in Keras; a standalone evaluate or predict run gets its own bar.
    """

    def __init__(self, verbose: int | str | None = None, *, interval: float = 0.05) -> None:
        super().__init__()
        self._explicit_verbose = None if verbose is None else _check_verbose(verbose, "verbose")
        self.verbose = 1 if self._explicit_verbose is None else self._explicit_verbose
        self.interval = interval
        self.epochs: int | None = 1
        self.target: int | None = None
        self.seen = 0
        self.progbar: ProgressBar | None = None
        self._in_fit = False

    def set_params(self, params: dict[str, Any] | None) -> None:
        super().set_params(params)
        params = params or {}
        if self._explicit_verbose is None and "verbose" in params:
            self.verbose = _check_verbose(params["verbose"], "params['verbose']")
        if "epochs" in params:
            self.epochs = _check_count(params["epochs"], "params['epochs']")
        self.target = _check_count(params.get("steps"), "params['steps']")

    def needs_batch_hooks(self, mode: str) -> bool:
        """Per-step updates matter only for terminal redraws, or to count steps when their number is unknown."""
        check_batch_mode(mode)
        if self.verbose == 0 or (mode == "test" and self._in_fit):
            return False
        return (self.verbose == 1 and stdout_is_terminal()) or self.target is None

    def on_train_begin(self, logs: dict | None = None) -> None:
        self._in_fit = True

    def on_train_end(self, logs: dict | None = None) -> None:
        self._in_fit = False

    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
        self._start_bar()
        if self.verbose and self.epochs != 1:
            total = "" if self.epochs is None else f"/{self.epochs}"
            print(f"Epoch {epoch + 1}{total}", flush=True)

    def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
        self._update(batch, logs)

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        self._finish(logs)

    def on_test_begin(self, logs: dict | None = None) -> None:
        if not self._in_fit:
            self._start_bar()

    def on_test_batch_end(self, batch: int, logs: dict | None = None) -> None:
        if not self._in_fit:
            self._update(batch, logs)

    def on_test_end(self, logs: dict | None = None) -> None:
        if not self._in_fit:
            self._finish(logs)

    def on_predict_begin(self, logs: dict | None = None) -> None:
        self._start_bar()

    def on_predict_batch_end(self, batch: int, logs: dict | None = None) -> None:
        self._update(batch, None)  # prediction outputs are not metrics

    def on_predict_end(self, logs: dict | None = None) -> None:
        self._finish(None)

    def _start_bar(self) -> None:
        self.seen = 0
        self.progbar = ProgressBar(self.target, self.verbose, interval=self.interval)

    def _update(self, batch: int, logs: dict | None) -> None:
        if self.progbar is None:
            self._start_bar()
        self.seen = batch + 1
        self.progbar.update(self.seen, (logs or {}).items())

    def _finish(self, logs: dict | None) -> None:
        if self.progbar is None:
            self._start_bar()
        if self.progbar.target is None:
            self.progbar.target = self.seen
        self.progbar.update(self.progbar.target, (logs or {}).items(), finalize=True)
