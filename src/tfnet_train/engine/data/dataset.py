"""DatasetAdapter: a tf.data.Dataset of x, (x, y) or (x, y, sample_weight) batches (DatasetAdapter.cs)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import tensorflow as tf

from tfnet_train.engine.data.adapter import Batch, DataAdapter


def unpack_x_y_sample_weight(element: Any) -> Batch:
    """Split a dataset element into (x, y, sample_weight)."""
    if isinstance(element, tuple):
        if len(element) == 1:
            return element[0], None, None
        if len(element) == 2:
            return element[0], element[1], None
        if len(element) == 3:
            return element[0], element[1], element[2]
        raise ValueError(f"dataset elements must be x, (x, y) or (x, y, sample_weight); got a {len(element)}-tuple")
    return element, None, None


class DatasetAdapter(DataAdapter):
    """Iterates a tf.data.Dataset once per epoch; batch_size and shuffle belong to the dataset."""

    def __init__(self, dataset: tf.data.Dataset) -> None:
        self._dataset = dataset
        cardinality = int(dataset.cardinality())
        self._infinite = cardinality == int(tf.data.INFINITE_CARDINALITY)
        self._size = cardinality if cardinality >= 0 else None

    def get_size(self) -> int | None:
        return self._size

    @property
    def is_infinite(self) -> bool:
        return self._infinite

    def get_dataset(self) -> tf.data.Dataset:
        return self._dataset

    def epoch_iterator(self, steps_per_execution: int = 1) -> Iterator[tuple[int, bool, Batch]]:
        buffer: list[Batch] = []
        for element in self._dataset:
            buffer.append(unpack_x_y_sample_weight(element))
            if len(buffer) == steps_per_execution:
                yield from _blocks(buffer)
                buffer = []
        yield from _blocks(buffer)


def _blocks(buffer: list[Batch]) -> Iterator[tuple[int, bool, Batch]]:
    """Stack equal-shaped batches into one block; otherwise hand them out one by one."""
    if len(buffer) > 1 and _same_shapes(buffer):
        stacked = tuple(None if buffer[0][i] is None else tf.nest.map_structure(
            lambda *ts: tf.stack(ts), *[b[i] for b in buffer]) for i in range(3))
        yield len(buffer), True, stacked
        return
    for batch in buffer:
        yield 1, False, batch


def _same_shapes(buffer: list[Batch]) -> bool:
    first = [tuple(t.shape) for t in tf.nest.flatten(buffer[0]) if t is not None]
    return all([tuple(t.shape) for t in tf.nest.flatten(b) if t is not None] == first for b in buffer[1:])
