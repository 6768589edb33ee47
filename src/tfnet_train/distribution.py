"""What the workers of a distributed run agree on: which process writes files, and the shuffle seed."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import tensorflow as tf


def is_chief(model: Any) -> bool:
    """Whether this process writes the files of a multi-worker run (always, on one worker)."""
    return bool(model.distribute_strategy.extended.should_checkpoint)


def agreed_seed(strategy: tf.distribute.Strategy, seed: int) -> int:
    """The seed of the strategy's first replica (the chief's first device), on every worker: a SUM all-reduce in
    which the other replicas give 0. The same seed on one replica."""
    if strategy.num_replicas_in_sync == 1:
        return int(seed)

    def first_only() -> tf.Tensor:
        first = tf.equal(tf.distribute.get_replica_context().replica_id_in_sync_group, 0)
        return tf.where(first, tf.constant(int(seed), tf.int64), tf.constant(0, tf.int64))

    @tf.function
    def broadcast() -> tf.Tensor:
        return strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(first_only), axis=None)

    return int(broadcast())


@contextlib.contextmanager
def written_by_chief(model: Any, target: Path) -> Iterator[Path]:
    """``target`` on the chief; on other workers a throw-away path. Every worker runs the save (its variables may
    need collective reads), only the chief's file lands, as TensorFlow's multi-worker guidance does."""
    if is_chief(model):
        yield target
        return
    folder = tempfile.mkdtemp(prefix="tfnet_train_worker_")
    try:
        yield Path(folder) / target.name
    finally:
        shutil.rmtree(folder, ignore_errors=True)
