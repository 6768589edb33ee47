"""`TerminateOnNaN`: stops training as soon as a batch loss is NaN or infinite."""

from __future__ import annotations

import numpy as np

from tfnet_train.callbacks.callback import Callback


class TerminateOnNaN(Callback):
    """Checks `logs["loss"]` after every training batch.

    Args:
        raise_error: False (default) prints `Batch i: Invalid loss, terminating training` and sets
            `model.stop_training = True`, so training ends normally after the step (on_train_end still runs);
            True raises RuntimeError at once instead.
    """

    def __init__(self, raise_error: bool = False) -> None:
        super().__init__()
        self.raise_error = bool(raise_error)

    def on_batch_end(self, batch: int, logs: dict | None = None) -> None:
        loss = (logs or {}).get("loss")
        if loss is None or bool(np.all(np.isfinite(loss))):
            return
        if self.raise_error:
            raise RuntimeError(f"NaN or Inf loss encountered at batch {batch}. Loss value: {loss}.")
        print(f"Batch {batch}: Invalid loss, terminating training", flush=True)
        self.model.stop_training = True
