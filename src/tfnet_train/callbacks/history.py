"""`History`: records each epoch's logs; `fit` returns it."""

from __future__ import annotations

from typing import Any

from tfnet_train.callbacks.callback import Callback


class History(Callback):
    """Records the logs of every epoch.

    Attributes:
        history: metric name -> list of per-epoch values, in the order epochs ended. Like Keras 3, it is not
            cleared when training starts again with the same instance; only `epoch` is.
        epoch: the 0-based indices of the epochs recorded since the last `on_train_begin`.
        params: the run's parameters (from `set_params`).
    """

    def __init__(self) -> None:
        super().__init__()
        self.history: dict[str, list[Any]] = {}
        self.epoch: list[int] = []

    def set_model(self, model: Any) -> None:
        """Attach the model and make this object its `history`."""
        super().set_model(model)
        _attach(model, self)

    def on_train_begin(self, logs: dict | None = None) -> None:
        self.epoch = []
        _attach(self.model, self)

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        self.epoch.append(epoch)
        for name, value in (logs or {}).items():
            self.history.setdefault(name, []).append(value)
        _attach(self.model, self)


def _attach(model: Any, history: History) -> None:
    if model is not None:
        model.history = history
