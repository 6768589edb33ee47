"""Model.predict and predict_step (Model.Predict.cs)."""

from __future__ import annotations

from typing import Any

import tensorflow as tf
from keras import tree

from tfnet_train import keras_internals
from tfnet_train.engine.data.adapter import expand_1d
from tfnet_train.engine.data.tensor_like import unpack_x_y_sample_weight
from tfnet_train.engine.fit import check_verbose
from tfnet_train.keras_internals import convert_to_np_if_not_ragged, potentially_ragged_concat


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
        """Model outputs for every sample as NumPy arrays (the structure of the model's outputs)."""
        if x is None:
            raise ValueError("x must be given: got None")
        check_verbose(verbose)
        x = self._check_data(x, None)
        handler, callbacks = self._inference_loop(x, None, None, batch_size, steps, callbacks, verbose)
        self.make_predict_function()
        self.stop_predicting = False
        callbacks.on_predict_begin()
        batch_hooks = callbacks.needs_batch_hooks("predict")
        outputs: list[Any] = []
        with handler.catch_stop_iteration():
            for block in handler:
                if batch_hooks:
                    callbacks.on_predict_batch_begin(block.begin)
                data = _next_batches(block.iterator, self.steps_per_execution)
                batch_outputs = self.predict_function(data)
                outputs.append(batch_outputs)
                if batch_hooks:
                    callbacks.on_predict_batch_end(block.end, {"outputs": batch_outputs})
                if self.stop_predicting:
                    break
        callbacks.on_predict_end()
        if not outputs:
            raise ValueError("predict got no batches from x")
        joined = tree.map_structure_up_to(outputs[0], lambda *parts: potentially_ragged_concat(list(parts)),
                                          *outputs)
        return tree.map_structure(convert_to_np_if_not_ragged, joined)

    def predict_step(self, data: Any) -> Any:
        """The forward pass of one batch with training=False (expand_1d under tfnet)."""
        x, _, _ = unpack_x_y_sample_weight(data)
        if self._engine.profile.expands_1d:
            (x,) = expand_1d((x,))
        return keras_internals.call_for_step(self, x, training=False)


def _next_batches(iterator: Any, count: int) -> list[Any]:
    """Up to ``count`` batches for one predict execution (StopIteration when there are none)."""
    data: list[Any] = []
    for _ in range(count):
        try:
            data.append(next(iterator))
        except (StopIteration, tf.errors.OutOfRangeError):
            if data:
                return data
            raise
    return data
