"""Steps under a distribution strategy (TF.NET has no distribution; this is the engine's own): several steps in one
compiled call, and train_step_traced's batch split as fit splits it, one record per replica, and the step as a whole
put together from them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import tensorflow as tf
from keras import tree


def steps_function(strategy: tf.distribute.Strategy, step: Callable[[Any], Any], eager: bool = False
                   ) -> Callable[[Any, Any], Any]:
    """``steps`` steps over a distributed iterator in one call (``strategy.run`` per step inside a compiled loop),
    the last step's logs reduced by MEAN over every replica: one call per step costs more than the step itself.
    The caller knows ``steps`` batches remain (``tf.data`` ends a pass with an error inside a compiled loop)."""

    def run(iterator: Any, steps: Any) -> Any:
        logs = strategy.run(step, args=(next(iterator),))
        for _ in tf.range(steps - 1):
            logs = strategy.run(step, args=(next(iterator),))
        return tree.map_structure(
            lambda v: strategy.reduce("MEAN", v, axis=None) if isinstance(v, tf.distribute.DistributedValues)
            else v, logs)

    if eager:
        return run
    return per_rank(lambda: tf.function(run, reduce_retracing=True),
                    lambda iterator, steps: getattr(iterator, "element_spec", iterator))


def local_replicas(strategy: tf.distribute.Strategy) -> bool:
    """Whether ``strategy`` is a MirroredStrategy of more than one replica, every one in this process: the
    strategy whose input split ``rows_function`` reproduces."""
    return (isinstance(strategy, tf.distribute.MirroredStrategy) and strategy.num_replicas_in_sync > 1
            and len(strategy.extended.worker_devices) == strategy.num_replicas_in_sync)


_even_split = [False]  # set while the replicas of a step known to split evenly are traced


@contextmanager
def _splitting_evenly(even: bool) -> Iterator[None]:
    previous, _even_split[0] = _even_split[0], even
    try:
        yield
    finally:
        _even_split[0] = previous


def splits_evenly() -> bool:
    """Whether the step being traced gives every replica as many rows (its global-batch share is exactly 1)."""
    return _even_split[0]


def replica_rows(rows: tf.Tensor, num_replicas: int, replica: Any) -> tf.Tensor:
    """Replica ``replica``'s share of a global batch's row indices, as ``experimental_distribute_dataset``
    splits a batch of ``m`` rows: ``ceil(m / R)`` rows per replica in order, the last ones fewer or none."""
    m = tf.shape(rows)[0]
    share = (m + num_replicas - 1) // num_replicas
    begin = tf.minimum(tf.cast(replica, m.dtype) * share, m)
    return rows[begin:tf.minimum(begin + share, m)]


def rows_function(strategy: tf.distribute.Strategy, step: Callable[[Any], Any]) -> Callable[..., Any]:
    """The rows function (see ``TrainMixin._rows_function``) under a MirroredStrategy: each replica gathers its
    share of every global batch itself inside the compiled loop, as one device gathers its batches. No tf.data
    pipeline, rebatching or multi-device iterator per epoch or step; the rows each replica sees are those the
    distributed dataset gives it, so the numbers are the same. The last step's logs are reduced by MEAN."""
    num_replicas = strategy.num_replicas_in_sync

    def on_replica(data: Any, rows: tf.Tensor) -> Any:
        replica = tf.distribute.get_replica_context().replica_id_in_sync_group
        mine = replica_rows(rows, num_replicas, replica)
        return step(tree.map_structure(lambda t: tf.gather(t, mine), data))

    def one_step(data: Any, rows: tf.Tensor, even: bool) -> Any:
        with _splitting_evenly(even):
            return strategy.run(on_replica, args=(data, rows))

    def run(data: Any, full_rows: Any, tail_rows: Any, batch_size: int, reset: bool = False) -> Any:
        if reset:
            raise ValueError("the metric reset runs before the call under a strategy: got reset=True")
        logs = None
        if full_rows is not None:
            even = batch_size % num_replicas == 0
            logs = one_step(data, full_rows[:batch_size], even)
            for i in tf.range(1, tf.shape(full_rows)[0] // batch_size):
                logs = one_step(data, full_rows[i * batch_size:(i + 1) * batch_size], even)
        if tail_rows is not None:
            logs = one_step(data, tail_rows, False)
        return tree.map_structure(
            lambda v: strategy.reduce("MEAN", v, axis=None) if isinstance(v, tf.distribute.DistributedValues)
            else v, logs)

    return run


def _ranks(value: Any) -> tuple[int | None, ...]:
    return tuple(getattr(getattr(leaf, "shape", None), "rank", None) for leaf in tree.flatten(value))


def per_rank(make: Callable[[], Callable[..., Any]], key_of: Callable[..., Any] | None = None
             ) -> Callable[..., Any]:
    """One compiled function (``make()``) per rank of the data's leaves: ``reduce_retracing`` relaxes a second
    shape of another rank to an unknown rank, which Keras's losses and metrics cannot build on (labels of shape
    ``(N, 1)`` in one fit and ``(N,)`` in the next). ``key_of(*args)`` picks what is ranked (the first argument)."""
    functions: dict[tuple[int | None, ...], Callable[..., Any]] = {}

    def call(*args: Any) -> Any:
        key = _ranks(key_of(*args) if key_of is not None else args[0])
        function = functions.get(key)
        if function is None:
            function = functions[key] = make()
        return function(*args)

    call.compiled = functions  # the compiled functions made so far, by rank (TensorBoard draws their graphs)
    return call


def check_local(strategy: tf.distribute.Strategy) -> None:
    """ValueError unless every replica lives in this process (a trace reads each replica's values)."""
    local = len(strategy.extended.worker_devices)
    if local != strategy.num_replicas_in_sync:
        raise ValueError(
            f"train_step_traced needs every replica in this process, got {local} local of "
            f"{strategy.num_replicas_in_sync} replicas (a multi-worker strategy): trace under MirroredStrategy or "
            "on one device")


def distribute(strategy: tf.distribute.Strategy, data: tuple[Any, ...]) -> Any:
    """The batch ``data`` as one global batch of the strategy's distributed input: replica i takes its rows in
    order, as fit's input pipeline splits a batch."""
    rows = int(tf.shape(tf.nest.flatten(data)[0])[0])
    dataset = tf.data.Dataset.from_tensor_slices(data).batch(rows)
    return next(iter(strategy.experimental_distribute_dataset(dataset)))


def on_each_replica(strategy: tf.distribute.Strategy, traced: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def run(data: Any) -> Any:
        return strategy.run(traced, args=(data,))

    return run


def split(strategy: tf.distribute.Strategy, result: Any) -> list[Any]:
    """One structure per replica from a structure of per-replica and mirrored values."""
    local = strategy.experimental_local_results

    def replica(i: int) -> Any:
        return tf.nest.map_structure(
            lambda v: local(v)[i] if isinstance(v, tf.distribute.DistributedValues) else v, result)

    return [replica(i) for i in range(strategy.num_replicas_in_sync)]


def combine(records: list[dict[str, Any]], num_replicas: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The whole step from the replicas' records (NumPy): y_pred in row order, the global-batch loss, the
    aggregated gradients as its gradients; and each replica's own stages.

    A replica's recorded loss is Keras's: its mean over its rows divided by the replica count; its gradients are
    those of its share of the global loss (rows / global rows), so they sum to the aggregated gradients.
    """
    stages = []
    for record in records:
        rows = int(np.shape(record["inputs"]["x"][0])[0])
        stages.append({"rows": rows, "inputs": record["inputs"], "y_pred": record["y_pred"],
                       "loss": float(record["loss"]) * num_replicas, "gradients": record["gradients"]})
    total = sum(s["rows"] for s in stages)
    whole = dict(records[0])
    whole["y_pred"] = [np.concatenate(parts, axis=0) for parts in zip(*(s["y_pred"] for s in stages), strict=True)]
    whole["loss"] = sum(s["loss"] * s["rows"] for s in stages) / total if total else 0.0
    whole["gradients"] = whole["aggregated_gradients"]
    return whole, stages
