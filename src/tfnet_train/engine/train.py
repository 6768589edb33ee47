"""The training step (Model.Train.cs): train_step_function, train_step, _minimize, _train_counter.

The step keeps Keras 3's override contract (``train_step(self, data)``, ``compute_loss``, ``compute_metrics``)
and runs inside Keras's compiled functions; TF.NET's names sit on top of it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import optree
import tensorflow as tf
from keras import tree

from tfnet_train import keras_internals, optimizers
from tfnet_train.engine import replicas
from tfnet_train.engine.data.adapter import expand_1d
from tfnet_train.engine.data.handler import Block
from tfnet_train.engine.data.tensor_like import structure_to_tensors, to_tensor, unpack_x_y_sample_weight
from tfnet_train.engine.trace import StepTrace


class TrainMixin:
    """Model.Train.cs, method for method."""

    def train_step_function(self, data_handler: Any, block: Block) -> dict[str, tf.Tensor]:
        """Run the next execution: ``block.iterator`` yields its batches, one compiled call trains them.

        Differs from TF.NET (one eager step per call): the step runs compiled unless run_eagerly, a block of
        steps_per_execution steps runs in one call, and _train_counter moves inside that call.
        """
        iterator = block.iterator
        if hasattr(iterator, "take"):  # in-memory arrays: the call gathers its own batches by row index
            return self._call_on_rows(self._train_rows_function, data_handler, iterator)
        if data_handler.steps_in_one_call:  # under a strategy: the block's steps in one compiled call
            if self._engine.replica_steps_function is None:
                self.make_train_function(force=True)
            return self._engine.replica_steps_function(data_handler.native(iterator),
                                                       tf.constant(data_handler.steps_in(block)))
        return self.train_function(iterator)

    def train_step(self, data: Any) -> dict[str, Any]:
        """One step: expand_1d (tfnet), forward (training=True) under a tape, compute_loss, _minimize, metrics."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        if self._engine.profile.expands_1d:  # TF.NET's Expand1d; Keras 3 reconciles ranks inside losses instead
            x, y, sample_weight = expand_1d((x, y, sample_weight))
        trace = self._engine.active_trace
        if trace is not None:  # rank-1 arrays as columns under either profile, so traces compare across programs
            trace["inputs"] = expand_1d((x, y, sample_weight))
        with tf.GradientTape() as tape:
            y_pred = keras_internals.call_for_step(self, x, training=True)
            loss = keras_internals.keras_compute_loss(self, x=x, y=y, y_pred=y_pred, sample_weight=sample_weight,
                                                      training=True)
            keras_internals.loss_tracker(self).update_state(keras_internals.unscale_loss_for_distribution(loss),
                                            sample_weight=_batch_size(x))
            scaled = self.optimizer.scale_loss(loss) if hasattr(self.optimizer, "scale_loss") else loss
            scaled = _share_of_global_batch(scaled, x)
        if trace is not None:
            trace["y_pred"], trace["loss"] = y_pred, loss
        if self.trainable_weights:
            self._minimize(tape, self.optimizer, scaled, self.trainable_variables)
        else:
            warnings.warn("The model does not have any trainable weights.", stacklevel=2)
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def compute_loss(self, x: Any = None, y: Any = None, y_pred: Any = None, sample_weight: Any = None,
                     training: bool = True) -> tf.Tensor:
        """Keras's compute_loss; under tfnet the compiled loss alone (TF.NET's LossesContainer adds no
        regularization or add_loss terms)."""
        if self._engine.profile.adds_regularization_losses:
            return super().compute_loss(x, y, y_pred, sample_weight, training=training)
        compiled = keras_internals.compile_loss(self)
        loss = compiled(y, y_pred, sample_weight) if compiled is not None else None
        if loss is None:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        return loss

    def _minimize(self, tape: tf.GradientTape, optimizer: Any, loss: tf.Tensor, trainable_variables: list) -> None:
        """Gradients, then _aggregate_gradients, _clip_gradients, apply_gradients (no re-aggregation or re-clip)."""
        gradients = tape.gradient(loss, trainable_variables)
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

    def _counted(self, step: Callable[[Any], Any]) -> Callable[[Any], Any]:
        """``step`` followed by _train_counter += 1, once the step's results exist (TF.NET's train_step_function)."""

        def counted_step(data: Any) -> Any:
            logs = step(data)
            with tf.control_dependencies([t for t in tree.flatten(logs) if isinstance(t, tf.Tensor)]):
                self._engine.train_counter.assign_add(1)
            return logs

        return counted_step

    def make_train_function(self, force: bool = False) -> Callable[..., Any]:
        """Keras's compiled step function around the counted train_step, plus the stacked-block function."""
        if self.train_function is not None and not force:
            return self.train_function
        step = self._counted(self.train_step)
        self.train_function = self._make_function(step)
        if replicas.local_replicas(self.distribute_strategy):  # in-memory arrays under MirroredStrategy
            self._train_rows_function = self._compiled_rows(replicas.rows_function(self.distribute_strategy, step))
        else:
            self._train_rows_function = self._rows_function(step)
        self._engine.replica_steps_function = replicas.steps_function(self.distribute_strategy, step,
                                                                      eager=self.run_eagerly)
        return self.train_function

    def _make_function(self, step_function: Callable[[Any], Any]) -> Callable[[Any], Any]:
        """Keras's step function over an iterator (tf.data, generators, distributed input), its logs reduced by
        MEAN over every replica: Keras 3.15 reduces multi-worker scalar logs along axis 0, which fails."""
        strategy = self.distribute_strategy

        def reduce(value: Any) -> Any:
            if isinstance(value, tf.distribute.DistributedValues):
                return strategy.reduce("MEAN", value, axis=None)
            return value

        def one_step_on_data(data: Any) -> Any:
            return tree.map_structure(reduce, strategy.run(step_function, args=(data,)))

        if not self.run_eagerly:
            one_step_on_data = replicas.per_rank(
                lambda step=one_step_on_data: tf.function(step, reduce_retracing=True, jit_compile=self.jit_compile))
        one_step_on_data = keras_internals.autoconvert_optionals(self, one_step_on_data)

        def function(iterator: Any) -> Any:
            outputs = None
            for _, data in zip(range(self.steps_per_execution), iterator):
                outputs = one_step_on_data(data)
            if outputs is None:
                raise StopIteration
            return outputs

        function.step_function = one_step_on_data  # its traces are the graph TensorBoard shows
        return function

    def _maybe_symbolic_build(self, iterator: Any = None, data_batch: Any = None) -> None:
        """Keras's build under a strategy, from this worker's first local batch (Keras 3.15 reduces the nested batch
        across workers, which multi-worker strategies cannot)."""
        if keras_internals.explicit_strategy(self) is None:
            return
        if iterator is not None:
            for _, _, batches in iterator:
                data_batch = next(batches)
                break
        local = self.distribute_strategy.experimental_local_results
        data_batch = tree.map_structure(
            lambda v: local(v)[0] if isinstance(v, tf.distribute.DistributedValues) else v, data_batch)
        with self.distribute_strategy.scope():
            keras_internals.symbolic_build(self, data_batch=data_batch)

    @staticmethod
    def _call_on_rows(function: Callable[..., Any], data_handler: Any, iterator: Any) -> Any:
        """``function`` (a rows function) on the next ``steps_per_execution`` batches of ``iterator``, with the
        metric reset the handler asks for; StopIteration when the pass has no batch left."""
        full, tail = iterator.take(data_handler.steps_per_execution)
        if full is None and tail is None:
            raise StopIteration
        reset, data_handler.reset_metrics_first = data_handler.reset_metrics_first, False
        return function(iterator.data, _rows(full), _rows(tail), iterator.batch_size, reset)

    def _rows_function(self, step: Callable[[Any], Any]) -> Callable[..., Any]:
        """Steps over batches the compiled call takes itself from a block of rows: ``k`` full batches and a partial
        last batch, each given as row indices to gather (in-memory arrays, in any order) or as `IN_ORDER` (a
        streamed block holds its full batches and then its partial one, back to back: sliced). No tf.data iteration
        and no eager slicing per step or epoch, which cost more than small steps themselves."""

        def run(data: Any, full_rows: Any, tail_rows: Any, batch_size: int, reset: bool = False) -> Any:
            if reset:  # the epoch's metric reset, in the same call as its steps
                for metric in self.metrics:
                    metric.reset_state()

            def rows(t: tf.Tensor, given: Any, first: bool) -> tf.Tensor:
                if given is not IN_ORDER:
                    return tf.gather(t, given)
                other = tail_rows if first else full_rows
                if other is None:  # the block is these rows alone
                    return t
                split = tf.shape(t)[0] // batch_size * batch_size  # a partial batch has fewer than batch_size rows
                return t[:split] if first else t[split:]

            logs = None
            if full_rows is not None:
                blocks = tree.map_structure(
                    lambda t: tf.reshape(rows(t, full_rows, True), [-1, batch_size, *t.shape[1:]]), data)
                logs = step(tree.map_structure(lambda t: t[0], blocks))
                for i in tf.range(1, tf.shape(tree.flatten(blocks)[0])[0]):
                    logs = step(tree.map_structure(lambda t, i=i: t[i], blocks))
            if tail_rows is not None:
                logs = step(tree.map_structure(lambda t: rows(t, tail_rows, False), data))
            return logs

        return self._compiled_rows(run)

    def _compiled_rows(self, run: Callable[..., Any]) -> Callable[..., Any]:
        """A rows function as the model runs it: as it is when eager, else through one concrete function per form."""
        return run if self.run_eagerly else _ConcreteRows(run, self.jit_compile)

    # ----- traced step -------------------------------------------------------------------------------------------

    def train_step_traced(self, x: Any, y: Any, sample_weight: Any = None) -> StepTrace:
        """Run one training step on one batch and return the value of every stage (see StepTrace)."""
        self._assert_compile_called("train_step_traced")
        state = self._engine
        strategy = self.distribute_strategy
        distributed = strategy.num_replicas_in_sync > 1
        if distributed:
            replicas.check_local(strategy)
        if x is None:
            raise ValueError("x must be given: got None")
        self._check_targets(x, y)
        x = structure_to_tensors(x, "x")
        y = structure_to_tensors(y, "y")
        sample_weight = None if sample_weight is None else to_tensor(sample_weight, "sample_weight")
        x = self._check_batch(x, y, sample_weight)
        data = (x, y) if sample_weight is None else (x, y, sample_weight)
        with strategy.scope():
            keras_internals.symbolic_build(self, data_batch=data)
        if state.traced_function is None:

            def traced(data: Any) -> dict[str, Any]:
                record: dict[str, Any] = {}
                state.active_trace = record
                try:
                    logs = self.train_step(data)
                finally:
                    state.active_trace = None
                with tf.control_dependencies([t for t in tree.flatten(logs) if isinstance(t, tf.Tensor)]):
                    state.train_counter.assign_add(1)
                    record["weights"] = [tf.identity(w) for w in self.weights]
                record["optimizer_state"] = optimizers.optimizer_state(self.optimizer, self.trainable_variables)
                record["metrics"] = logs
                inputs = record.pop("inputs")
                record["inputs"] = {
                    "x": _listed(inputs[0]), "y": _listed(inputs[1]), "sample_weight": _listed(inputs[2])}
                record["y_pred"] = _listed(record["y_pred"])
                return record

            if distributed:  # every replica records its own stages
                traced = replicas.on_each_replica(strategy, traced)
            state.traced_function = traced if self.run_eagerly else replicas.per_rank(
                lambda traced=traced: tf.function(traced, reduce_retracing=True))
        step = int(state.train_counter.numpy())
        if distributed:
            per_replica = replicas.split(strategy, state.traced_function(replicas.distribute(strategy, data)))
            per_replica = [tf.nest.map_structure(_to_numpy, r) for r in per_replica]
            record, replica_stages = replicas.combine(per_replica, strategy.num_replicas_in_sync)
            record["inputs"] = tf.nest.map_structure(_to_numpy, {
                k: _listed(v) for k, v in zip(("x", "y", "sample_weight"), expand_1d((x, y, sample_weight)),
                                              strict=True)})
            record["metrics"] = tf.nest.map_structure(_to_numpy, self.get_metrics_result())
        else:
            record = tf.nest.map_structure(_to_numpy, state.traced_function(data))
            replica_stages = []
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
            metrics={k: float(np.mean(v)) for k, v in record["metrics"].items()},
            variable_names=[v.path if hasattr(v, "path") else v.name for v in self.trainable_variables],
            weight_names=[w.path if hasattr(w, "path") else w.name for w in self.weights],
            replicas=replica_stages,
        )


class _ConcreteRows:
    """A rows function called through one concrete function per call form (which row sets are given, batch size,
    reset): a tf.function matches its arguments to a trace on every call, which costs more than a small step (the
    XOR program's 1000 one-step epochs are 1000 such calls). Leading dimensions stay unknown, as tf.function's
    reduce_retracing leaves them after a second shape, so one trace serves every epoch and every fit."""

    def __init__(self, run: Callable[..., Any], jit_compile: Any) -> None:
        self._run = run
        self._jit_compile = jit_compile
        self._concrete: dict[Any, Any] = {}

    def __call__(self, data: Any, full_rows: Any, tail_rows: Any, batch_size: int, reset: bool = False) -> Any:
        leaves, structure = optree.tree_flatten((data, full_rows, tail_rows), none_is_leaf=True, namespace="keras")
        tensors = [t for t in leaves if _given(t)]
        key = (structure, batch_size, reset, tuple((t.dtype, t.shape[1:]) if _given(t) else t for t in leaves))
        concrete = self._concrete.get(key)
        if concrete is None:
            concrete = self._concrete[key] = self._trace(structure, leaves, tensors, batch_size, reset)
        return keras_internals.call_concrete(concrete, tensors)  # the key matched dtypes and shapes

    def _trace(self, structure: Any, leaves: list[Any], tensors: list[Any], batch_size: int, reset: bool) -> Any:
        present = [_given(t) for t in leaves]

        def flat_run(*flat: Any) -> Any:
            values = iter(flat)
            data, full, tail = structure.unflatten([next(values) if p else t for p, t in zip(present, leaves)])
            return self._run(data, full, tail, batch_size, reset)

        specs = [tf.TensorSpec([None, *t.shape[1:]], t.dtype) for t in tensors]
        function = tf.function(flat_run, input_signature=specs, jit_compile=self._jit_compile)
        return function.get_concrete_function()


class _InOrder:
    def __repr__(self) -> str:
        return "IN_ORDER"


#: Rows a block gives in its own order (a ``range`` from a streamed block's take): the rows function slices them.
IN_ORDER = _InOrder()


def _rows(rows: np.ndarray | range | None) -> Any:
    """Row indices as a tensor (the rows function's concrete functions take tensors); a range, `IN_ORDER`."""
    if rows is None:
        return None
    return IN_ORDER if isinstance(rows, range) else tf.constant(rows)


def _given(leaf: Any) -> bool:
    """Whether a rows-function argument leaf is a tensor the concrete function takes (not None or `IN_ORDER`)."""
    return leaf is not None and leaf is not IN_ORDER


def _listed(value: Any) -> list[Any]:
    if value is None:
        return []
    return [t for t in tf.nest.flatten(value) if t is not None]


def _to_numpy(value: Any) -> Any:
    """A stage's value as NumPy: None stays None (a variable without a gradient); IndexedSlices (an Embedding's
    gradient) become the dense array they stand for."""
    if value is None:
        return None
    if isinstance(value, tf.IndexedSlices):
        value = tf.convert_to_tensor(value)
    return value.numpy() if hasattr(value, "numpy") else np.asarray(value)


def _share_of_global_batch(loss: tf.Tensor, x: Any) -> tf.Tensor:
    """Under R replicas Keras scales each replica's mean loss by 1/R, the global-batch mean only when every replica
    holds as many rows; times R * rows / global rows (one scalar all-reduce), a batch split unevenly (a partial
    last batch) weighs every row as one device does, as TensorFlow's ``compute_average_loss`` with the global
    batch size. The factor is exactly 1 for even splits."""
    context = tf.distribute.get_replica_context()
    if context is None or context.num_replicas_in_sync <= 1 or replicas.splits_evenly():
        return loss
    rows = tf.cast(_batch_size(x), loss.dtype)
    total = context.all_reduce(tf.distribute.ReduceOp.SUM, rows)
    return loss * tf.math.divide_no_nan(context.num_replicas_in_sync * rows, total)


def _batch_size(x: Any) -> tf.Tensor:
    return tf.shape(next(t for t in tree.flatten(x) if t is not None))[0]
