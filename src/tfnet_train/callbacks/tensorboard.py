"""Keras's TensorBoard callback under the engine: which batch hooks it needs, and the training graph it writes.

Keras's ``TensorBoard`` overrides every batch hook, but with ``update_freq="epoch"``, no profiling and no
``write_steps_per_second`` its batch hooks only count batches nobody reads: the engine then runs whole epochs
as it does without callbacks, and the event files are the same. At the first batch's end Keras's callback draws
the graph of a traced ``tf.function`` it finds on ``model.train_function`` (Keras 3.15's own trainer offers none, so
its fit writes no graph); the engine writes the graph of its compiled training call there instead.
"""

from __future__ import annotations

from typing import Any

import keras
import tensorflow as tf

from tfnet_train import keras_internals


def listens(callback: keras.callbacks.TensorBoard, mode: str) -> bool:
    """Whether ``callback`` reads the batch hooks of ``mode`` ("train", "test" or "predict")."""
    if mode == "predict":
        return False
    per_batch = callback.update_freq != "epoch"
    if mode == "test":
        return per_batch
    return per_batch or keras_internals.tensorboard_traces(callback) or bool(callback.write_steps_per_second)


def graph_writers(callbacks: Any) -> list[keras.callbacks.TensorBoard]:
    """The TensorBoard callbacks of ``callbacks`` (a CallbackList) that still have the training graph to write."""
    return [c for c in getattr(callbacks, "callbacks", ())
            if isinstance(c, keras.callbacks.TensorBoard) and keras_internals.tensorboard_graph_pending(c)]


def write_train_graph(writers: list[keras.callbacks.TensorBoard], model: Any, data_handler: Any, block: Any) -> None:
    """Write the graph of the compiled call that just trained ``block`` (none when the model runs eagerly) to each
    writer's train log, as Keras writes its train function's graph; each writer then writes no other."""
    graph = _train_graph(model, data_handler, block)
    for callback in writers:
        writer = keras_internals.tensorboard_graph_written(callback)
        if graph is not None:
            with writer.as_default(), tf.summary.record_if(True):  # not under update_freq's filter
                tf.summary.graph(graph)


def _train_graph(model: Any, data_handler: Any, block: Any) -> tf.Graph | None:
    if hasattr(block.iterator, "take"):  # in-memory arrays: the rows function's traces
        concrete = list(getattr(getattr(model, "_train_rows_function", None), "_concrete", {}).values())
    else:  # a block of steps in one call, or Keras's step function over an iterator
        function = (model._engine.replica_steps_function if data_handler.steps_in_one_call
                    else getattr(model.train_function, "step_function", None))
        if not hasattr(function, "_list_all_concrete_functions"):  # Keras wraps the step to convert optionals
            function = getattr(function, "__wrapped__", function)
        # one compiled function per label rank (replicas.per_rank), or a tf.function itself
        functions = list(getattr(function, "compiled", {}).values()) or [function]
        listers = [getattr(f, "_list_all_concrete_functions", None) for f in functions]
        concrete = [c for lister in listers if callable(lister) for c in lister()]
    return concrete[-1].graph if concrete else None


class Events:
    """What the event files of one TensorBoard run folder hold (``read_events``)."""

    def __init__(self) -> None:
        #: (subfolder, tag) -> {step: value} for scalar summaries ("train", "epoch_loss") -> {0: 0.71, ...}
        self.scalars: dict[tuple[str, str], dict[int, float]] = {}
        #: (subfolder, tag) -> steps of the other tensor summaries (histograms, images, the model summary, traces)
        self.tensors: dict[tuple[str, str], list[int]] = {}
        #: subfolder -> number of graphs written there
        self.graphs: dict[str, int] = {}
        #: subfolder -> the node names of every graph written there
        self.graph_nodes: dict[str, set[str]] = {}

    def tags(self) -> set[tuple[str, str]]:
        """Every (subfolder, tag) written."""
        return set(self.scalars) | set(self.tensors)


def read_events(log_dir: Any) -> Events:
    """Read back every event file under ``log_dir`` (a TensorBoard callback's ``log_dir``): scalars with their steps
    and values, the steps of other summaries, and the graphs, keyed by subfolder ("train", "validation")."""
    from pathlib import Path

    root = Path(log_dir)
    if not root.is_dir():
        raise ValueError(f"log_dir must be a folder of TensorBoard event files; got {str(log_dir)!r}")
    events = Events()
    for path in sorted(root.rglob("events.out.tfevents.*")):
        folder = path.parent.relative_to(root).as_posix()
        for record in tf.data.TFRecordDataset(str(path)):
            event = tf.compat.v1.Event.FromString(record.numpy())
            if event.HasField("graph_def"):
                events.graphs[folder] = events.graphs.get(folder, 0) + 1
                graph = tf.compat.v1.GraphDef.FromString(event.graph_def)
                events.graph_nodes.setdefault(folder, set()).update(node.name for node in graph.node)
            for value in event.summary.value:
                key = (folder, value.tag)
                if value.HasField("simple_value"):
                    events.scalars.setdefault(key, {})[int(event.step)] = float(value.simple_value)
                    continue
                array = tf.make_ndarray(value.tensor) if value.HasField("tensor") else None
                if array is not None and array.ndim == 0 and array.dtype.kind in "fiu":
                    events.scalars.setdefault(key, {})[int(event.step)] = float(array)
                else:
                    events.tensors.setdefault(key, []).append(int(event.step))
    return events
