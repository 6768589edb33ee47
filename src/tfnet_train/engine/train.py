"""The training step (Model.Train.cs): train_step_function, train_step, _minimize, _train_counter."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import tensorflow as tf

from tfnet_train import optimizers
from tfnet_train.engine.data.adapter import expand_1d
from tfnet_train.engine.data.tensor_like import structure_to_tensors, to_tensor
from tfnet_train.engine.trace import StepTrace


class TrainMixin:
    """Model.Train.cs, method for method; the compiled step runs train_step inside tf.function."""

    def train_step_function(self, data_handler: Any, iterator: Any) -> dict[str, tf.Tensor]:
        """Take the next batch (or block of batches) from ``iterator`` and run the training step(s) on it.

        Differs from TF.NET: the step runs compiled (tf.function) unless run_eagerly, a block of
        steps_per_execution batches runs in one call, and _train_counter is incremented inside that call.
        """
        steps, stacked, (x, y, sample_weight) = next(iterator)
        if data_handler is not None:
            data_handler.step_increment = steps - 1
        single = self.make_train_function()
        if stacked:
            return self._engine.train_block_function(x, y, sample_weight)
        return single(*self._shard(x, y, sample_weight))

    def train_step(self, data_handler: Any, x: Any, y: Any, sample_weight: Any = None) -> dict[str, tf.Tensor]:
        """One step: expand_1d, forward (training=True) under a tape, compiled loss, _minimize, metrics.

        Returns the metric results by name (non-scalar results reduced by mean); they become floats when they
        leave the compiled function.
        """
        x, y, sample_weight = expand_1d((x, y, sample_weight))
        trace = self._engine.active_trace
        if trace is not None:
            trace["inputs"] = (x, y, sample_weight)
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self._engine.compiled_loss(
                y, y_pred, sample_weight, regularization_losses=self.losses, batch_size=_batch_size(x)
            )
        if trace is not None:
            trace["y_pred"], trace["loss"] = y_pred, loss
        self._minimize(tape, self._engine.optimizer, loss, self.trainable_variables)
        self._engine.compiled_metrics.update_state(y, y_pred)
        return self._metrics_results()

    def _minimize(self, tape: tf.GradientTape, optimizer: Any, loss: tf.Tensor, trainable_variables: list) -> None:
        """Gradients (of the loss scaled by ``optimizer.scale_loss``), then aggregate, clip, apply (no re-aggregation).

        Differs from TF.NET: any Keras optimizer works, through ``tfnet_train.optimizers``' stage functions.
        """
        scaled_loss = loss
        if hasattr(optimizer, "scale_loss"):
            with tape:  # Keras scales inside the tape (a LossScaleOptimizer's dynamic scale)
                scaled_loss = optimizer.scale_loss(loss)
        gradients = tape.gradient(scaled_loss, trainable_variables)
        aggregated = optimizers.aggregate_gradients(optimizer, list(zip(gradients, trainable_variables, strict=True)))
        clipped = optimizers.clip_gradients(optimizer, aggregated)
        trace = self._engine.active_trace
        if trace is not None:
            trace["gradients"], trace["aggregated_gradients"], trace["clipped_gradients"] = (
                gradients, aggregated, clipped)
        # No state changes before the loss and gradients exist: a failing step leaves the model as it was.
        with tf.control_dependencies([loss, *[g for g in clipped if g is not None]]):
            optimizers.apply_gradients(optimizer, clipped, trainable_variables)

    @property
    def _train_counter(self) -> tf.Variable:
        """int64 step counter: 0 when fit starts, +1 per training step."""
        return self._engine.train_counter

    # ----- compiled functions -------------------------------------------------------------------------------------

    def make_train_function(self) -> Callable[..., dict[str, tf.Tensor]]:
        """The compiled single-step function (built once; rebuilt after compile())."""
        state = self._engine
        if state.train_function is None:
            optimizers.build(state.optimizer, self.trainable_variables)

            def one_step(x: Any, y: Any, sample_weight: Any) -> dict[str, tf.Tensor]:
                logs = self._distributed(lambda *d: self.train_step(None, *d), x, y, sample_weight)
                with tf.control_dependencies(tf.nest.flatten(logs)):
                    state.train_counter.assign_add(1)
                return logs

            def block(x: Any, y: Any, sample_weight: Any) -> dict[str, tf.Tensor]:
                count = tf.shape(tf.nest.flatten(x)[0])[0]
                for i in tf.range(count):
                    pick = (lambda t, i=i: t[i])  # noqa: E731
                    self._distributed(lambda *d: self.train_step(None, *d), *[
                        None if part is None else tf.nest.map_structure(pick, part) for part in (x, y, sample_weight)])
                    state.train_counter.assign_add(1)
                return self._metrics_results()

            state.train_function = self._compile_function(one_step)
            state.train_block_function = self._compile_function(block)
        return state.train_function

    def _compile_function(self, fn: Callable) -> Callable:
        state = self._engine
        if state.run_eagerly:
            return fn
        return tf.function(fn, jit_compile=state.jit_compile, reduce_retracing=True)

    def _replicas(self) -> int:
        strategy = self._engine.strategy
        return 1 if strategy is None else strategy.num_replicas_in_sync

    def _shard(self, x: Any, y: Any, sample_weight: Any) -> tuple[Any, Any, Any]:
        """Split a batch evenly across the strategy's replicas (eagerly, before the compiled call)."""
        replicas = self._replicas()
        if replicas == 1:
            return x, y, sample_weight
        strategy = self._engine.strategy
        n = int(tf.nest.flatten(x)[0].shape[0])
        if n % replicas:
            raise ValueError(f"batch of {n} samples cannot be split evenly across {replicas} replicas; "
                             "choose a batch_size (and data size) divisible by the number of replicas")

        def shard(t: tf.Tensor) -> Any:
            return strategy.experimental_distribute_values_from_function(
                lambda ctx: _replica_slice(t, ctx.replica_id_in_sync_group, replicas))

        return tuple(None if p is None else tf.nest.map_structure(shard, p) for p in (x, y, sample_weight))

    def _distributed(self, step: Callable, x: Any, y: Any, sample_weight: Any) -> Any:
        """Run ``step`` on every replica of the model's strategy (inputs already sharded), or directly."""
        if self._replicas() == 1:
            return step(x, y, sample_weight)
        self._engine.strategy.run(step, args=(x, y, sample_weight))
        return self._metrics_results()

    def _metrics_results(self) -> dict[str, tf.Tensor]:
        """{'loss': ..., metric names: ...}; non-scalar results reduced by mean."""
        results = {}
        for metric in self.metrics:
            value = metric.result()
            if isinstance(value, dict):
                for k, v in value.items():
                    results[k] = tf.reduce_mean(v)
            else:
                results[metric.name] = tf.reduce_mean(value)
        return results

    # ----- traced step -------------------------------------------------------------------------------------------

    def train_step_traced(self, x: Any, y: Any, sample_weight: Any = None) -> StepTrace:
        """Run one training step on one batch and return the value of every stage (see StepTrace)."""
        self._assert_compile_was_called("train_step_traced")
        state = self._engine
        if self._replicas() > 1:
            raise ValueError("train_step_traced runs on one device; build the model outside a distribution strategy")
        x = structure_to_tensors(x, "x")
        y = structure_to_tensors(y, "y")
        sample_weight = None if sample_weight is None else to_tensor(sample_weight, "sample_weight")
        self._check_batch(x, y, sample_weight)
        optimizers.build(state.optimizer, self.trainable_variables)
        if state.traced_function is None:

            def traced(x: Any, y: Any, sample_weight: Any) -> dict[str, Any]:
                record: dict[str, Any] = {}
                state.active_trace = record
                try:
                    logs = self.train_step(None, x, y, sample_weight)
                finally:
                    state.active_trace = None
                state.train_counter.assign_add(1)
                record["weights"] = [tf.identity(w) for w in self.weights]
                record["optimizer_state"] = optimizers.optimizer_state(state.optimizer, self.trainable_variables)
                record["metrics"] = logs
                inputs = record.pop("inputs")
                record["inputs"] = {
                    "x": _listed(inputs[0]), "y": _listed(inputs[1]), "sample_weight": _listed(inputs[2])}
                record["y_pred"] = _listed(record["y_pred"])
                return record

            state.traced_function = self._compile_function(traced)
        step = int(state.train_counter.numpy())
        record = tf.nest.map_structure(_to_numpy, state.traced_function(x, y, sample_weight))
        opt_state = record["optimizer_state"]
        return StepTrace(
            step=step,
            inputs=record["inputs"],
            y_pred=record["y_pred"],
            loss=float(record["loss"]),
            gradients=record["gradients"],
            aggregated_gradients=record["aggregated_gradients"],
            clipped_gradients=record["clipped_gradients"],
            weights=record["weights"],
            optimizer_state={
                "iterations": int(opt_state["iterations"]),
                "learning_rate": float(opt_state["learning_rate"]),
                "slots": {k: list(v) for k, v in opt_state["slots"].items()},
            },
            metrics={k: float(v) for k, v in record["metrics"].items()},
            variable_names=[v.path if hasattr(v, "path") else v.name for v in self.trainable_variables],
            weight_names=[w.path if hasattr(w, "path") else w.name for w in self.weights],
        )


def _listed(value: Any) -> list[Any]:
    if value is None:
        return []
    return [t for t in tf.nest.flatten(value) if t is not None]


def _to_numpy(value: Any) -> Any:
    return value.numpy() if hasattr(value, "numpy") else np.asarray(value)


def _batch_size(x: Any) -> tf.Tensor:
    return tf.shape(tf.nest.flatten(x)[0])[0]


def _replica_slice(t: tf.Tensor, replica: int, replicas: int) -> tf.Tensor:
    per = int(t.shape[0]) // replicas
    return t[replica * per:(replica + 1) * per]
