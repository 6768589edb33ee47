"""Model.predict (Model.Predict.cs)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import tensorflow as tf

from tfnet_train.callbacks import CallbackList
from tfnet_train.engine.data import DataHandler
from tfnet_train.engine.data.adapter import expand_1d


class PredictMixin:
    """predict(): the forward pass (training=False) batch by batch, outputs concatenated."""

    def predict(
        self,
        x: Any,
        batch_size: int | None = None,
        verbose: int | str = "auto",
        steps: int | None = None,
        callbacks: list | None = None,
    ) -> Any:
        """Model outputs for every sample as NumPy arrays (a list for several outputs)."""
        if x is None:
            raise ValueError("x must be given: got None")
        if verbose == "auto":
            verbose = 1
        self._check_data(x, None)
        handler = DataHandler(x, None, None, batch_size=batch_size, steps_per_epoch=steps, epochs=1,
                              shuffle=False, semantics=self._engine.semantics)
        callback_list = CallbackList(callbacks, add_progbar=verbose != 0, model=self, verbose=verbose,
                                     epochs=1, steps=handler.inferred_steps)
        function = self.make_predict_function()
        callback_list.on_predict_begin()
        batch_hooks = callback_list.needs_predict_batch_hooks
        outputs: list[Any] = []
        for _, iterator in handler.enumerate_epochs():
            for step in handler.steps():
                if batch_hooks:
                    callback_list.on_predict_batch_begin(step)
                _, _, (bx, _, _) = next(iterator)
                batch_out = function(bx)
                outputs.append(tf.nest.map_structure(lambda t: t.numpy(), batch_out))
                if batch_hooks:
                    callback_list.on_predict_batch_end(step, {"outputs": batch_out})
        callback_list.on_predict_end()
        if not outputs:
            raise ValueError("predict got no batches from x")
        return tf.nest.map_structure(lambda *parts: np.concatenate(parts, axis=0), *outputs)

    def predict_step(self, x: Any) -> Any:
        """The forward pass of one batch with training=False."""
        (x,) = expand_1d((x,))
        return self(x, training=False)

    def make_predict_function(self) -> Callable[..., Any]:
        state = self._engine
        if state.predict_function is None:
            state.predict_function = self._compile_function(self.predict_step)
        return state.predict_function
