"""Cancellation from the C# host: a callback that checks a flag at each batch end and stops the loop there.

The host's flag is any object with a boolean ``Requested`` attribute (the C# side sets it from its
CancellationToken's registration, on whatever thread cancels; reading it here is all Python ever does with it).
The callback raises `OperationCancelled` after the batch whose end found the flag set: that batch's step has run
whole and is kept, no later step starts. The engine's fit keeps the steps an interrupted fit made (weights,
optimizer variables and ``_train_counter`` are those of the steps done); evaluate and predict change no state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfnet_train.callbacks import Callback


class OperationCancelled(Exception):  # noqa: N818 - the name the C# side maps to OperationCanceledException
    """A fit, evaluate or predict stopped at a batch end because the host asked it to."""

    def __init__(self, mode: str, batch: int) -> None:
        super().__init__(f"{mode} cancelled by the host after batch {batch}")
        self.mode = mode
        self.batch = batch


class CancelCallback(Callback):
    """Raises `OperationCancelled` at the first batch end (train, test or predict) that finds ``flag.Requested``."""

    def __init__(self, flag: Any) -> None:
        super().__init__()
        if not hasattr(flag, "Requested"):
            raise TypeError(f"flag must have a boolean 'Requested' attribute; got {type(flag).__name__}")
        self._flag = flag

    def _check(self, mode: str, batch: int) -> None:
        if self._flag.Requested:
            raise OperationCancelled(mode, int(batch))

    def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
        self._check("fit", batch)

    def on_test_batch_end(self, batch: int, logs: dict | None = None) -> None:
        self._check("evaluate", batch)

    def on_predict_batch_end(self, batch: int, logs: dict | None = None) -> None:
        self._check("predict", batch)


def with_cancel(callbacks: Sequence[Any] | None, cancel: Any) -> list[Any] | None:
    """``callbacks`` with a CancelCallback for ``cancel`` last (after every other callback of the batch), or
    ``callbacks`` unchanged when ``cancel`` is None."""
    if cancel is None:
        return None if callbacks is None else list(callbacks)
    return [*(callbacks or ()), CancelCallback(cancel)]
