"""Model.evaluate and test_step (Model.Evaluate.cs)."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfnet_train import keras_internals
from tfnet_train.callbacks import CallbackList
from tfnet_train.engine.data import DataHandler
from tfnet_train.engine.data.adapter import expand_1d
from tfnet_train.engine.data.tensor_like import unpack_x_y_sample_weight
from tfnet_train.engine.fit import capped_steps, check_verbose


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
        **kwargs: Any,
    ) -> Any:
        """Loss and metrics over the data (running means over all batches).

        Returns a dict when ``return_dict``; otherwise the loss alone, or [loss, metrics...] as Keras does.
        """
        self._assert_compile_called("evaluate")
        kwargs.pop("_use_cached_eval_dataset", None)
        if kwargs:
            raise ValueError(f"Arguments not recognized: {kwargs}")
        if x is None:
            raise ValueError("x must be given: got None")
        check_verbose(verbose)
        x = self._check_data(x, y)
        self._check_targets(x, y)
        handler, callbacks = self._inference_loop(x, y, sample_weight, batch_size, steps, callbacks, verbose)
        self._maybe_symbolic_build(iterator=handler)
        handler.reset()
        self.make_test_function()
        self.stop_evaluating = False
        callbacks.on_test_begin()
        batch_hooks = callbacks.needs_batch_hooks("test")
        if not batch_hooks:
            handler.run_whole_epochs()
        logs: Any = {}
        if not handler.reset_metrics_first:
            self.reset_metrics()
        with handler.catch_stop_iteration():
            for block in handler:
                if batch_hooks:
                    callbacks.on_test_batch_begin(block.begin)
                logs = self._test_step_function(handler, block)
                if batch_hooks:
                    callbacks.on_test_batch_end(block.end, logs)
                if self.stop_evaluating:
                    break
        logs = keras_internals.pythonify_logs(keras_internals.metrics_result_or_logs(self, logs))
        callbacks.on_test_end(logs)
        if return_dict:
            return logs
        return keras_internals.flatten_metrics_in_order(self, logs)

    def _inference_loop(self, x: Any, y: Any, sample_weight: Any, batch_size: int | None, steps: int | None,
                        callbacks: Any, verbose: int | str) -> tuple[DataHandler, CallbackList]:
        """The data handler (unshuffled) and callback list of an evaluate or predict run."""
        handler = DataHandler(x, y, sample_weight, batch_size=batch_size, steps_per_epoch=capped_steps(steps),
                              shuffle=False, steps_per_execution=self.steps_per_execution, profile=self._engine.profile,
                              distribute_strategy=self.distribute_strategy)
        if not isinstance(callbacks, CallbackList):
            callbacks = CallbackList(callbacks, add_progbar=verbose != 0, verbose=verbose, epochs=1,
                                     steps=handler.num_batches, model=self)
        return handler, callbacks

    def _test_step_function(self, handler: DataHandler, block: Any) -> Any:
        """One execution of the test step: in-memory arrays gathered by row index inside the call."""
        iterator = block.iterator
        if hasattr(iterator, "take"):
            state = self._engine
            if state.test_rows_function is None:
                state.test_rows_function = self._rows_function(self.test_step)
            return self._call_on_rows(state.test_rows_function, handler, iterator)
        return self.test_function(iterator)

    def test_step(self, data: Any) -> dict[str, Any]:
        """Forward pass (training=False), loss and metrics; no weight update (expand_1d under tfnet)."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        if self._engine.profile.expands_1d:
            x, y, sample_weight = expand_1d((x, y, sample_weight))
        y_pred = keras_internals.call_for_step(self, x, training=False)
        loss = keras_internals.keras_compute_loss(self, x=x, y=y, y_pred=y_pred, sample_weight=sample_weight,
                                                  training=False)
        keras_internals.loss_tracker(self).update_state(keras_internals.unscale_loss_for_distribution(loss),
                                        sample_weight=tf.shape(next(t for t in tf.nest.flatten(x) if t is not None))[0])
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)
