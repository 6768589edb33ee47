"""Model.evaluate and test_step (Model.Evaluate.cs)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorflow as tf

from tfnet_train.callbacks import CallbackList
from tfnet_train.engine.data import DataHandler
from tfnet_train.engine.data.adapter import expand_1d


class EvaluateMixin:
    """evaluate(): test_step over every batch; returns the loss and metrics."""

    def evaluate(
        self,
        x: Any = None,
        y: Any = None,
        batch_size: int | None = None,
        verbose: int | str = "auto",
        sample_weight: Any = None,
        steps: int | None = None,
        callbacks: list | None = None,
        return_dict: bool = False,
    ) -> Any:
        """Loss and metrics over the data (running means over all batches).

        Returns a dict when ``return_dict``; otherwise the loss alone, or [loss, metrics...] as Keras does.
        """
        self._assert_compile_was_called("evaluate")
        if x is None:
            raise ValueError("x must be given: got None")
        if verbose == "auto":
            verbose = 1
        self._check_data(x, y)
        handler = DataHandler(x, y, sample_weight, batch_size=batch_size, steps_per_epoch=steps, epochs=1,
                              shuffle=False, semantics=self._engine.semantics)
        if isinstance(callbacks, CallbackList):  # fit's own list: validation reaches its on_test_* hooks
            callback_list = callbacks
        else:
            callback_list = CallbackList(callbacks, add_progbar=verbose != 0, model=self, verbose=verbose,
                                         epochs=1, steps=handler.inferred_steps)
        function = self.make_test_function()
        self.reset_metrics()
        callback_list.on_test_begin()
        batch_hooks = callback_list.needs_test_batch_hooks
        logs: dict[str, Any] = {}
        for _, iterator in handler.enumerate_epochs():
            for step in handler.steps():
                if batch_hooks:
                    callback_list.on_test_batch_begin(step)
                _, _, (bx, by, bsw) = next(iterator)
                logs = function(bx, by, bsw)
                if batch_hooks:
                    callback_list.on_test_batch_end(step, {k: float(v) for k, v in logs.items()})
        result = {k: float(v) for k, v in logs.items()}
        callback_list.on_test_end(result)
        if return_dict:
            return result
        values = list(result.values())
        return values[0] if len(values) == 1 else values

    def test_step(self, x: Any, y: Any, sample_weight: Any = None) -> dict[str, tf.Tensor]:
        """Forward pass (training=False), compiled loss and metrics; no weight update."""
        x, y, sample_weight = expand_1d((x, y, sample_weight))
        y_pred = self(x, training=False)
        self._engine.compiled_loss(y, y_pred, sample_weight, regularization_losses=self.losses,
                                   batch_size=tf.shape(tf.nest.flatten(x)[0])[0])
        self._engine.compiled_metrics.update_state(y, y_pred)
        return self._metrics_results()

    def make_test_function(self) -> Callable[..., dict[str, tf.Tensor]]:
        state = self._engine
        if state.test_function is None:
            state.test_function = self._compile_function(self.test_step)
        return state.test_function
