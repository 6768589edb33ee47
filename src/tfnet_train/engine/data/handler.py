"""DataHandler: epochs and steps over an adapter, handed to the loops as named blocks (DataHandler.cs).

Keras's ``TFEpochIterator`` (composed, as ``keras_internals.KerasEpochs``) owns step counting
(``steps_per_epoch``, ``steps_per_execution``, running out of data, distribution); the handler picks the adapter —
the engine's tensor fast path for in-memory arrays, Keras's adapters for everything else (tf.data, generators,
PyDataset, ragged and sparse tensors) — and names each block.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import tensorflow as tf
from keras.utils import unpack_x_y_sample_weight

from tfnet_train import keras_internals
from tfnet_train.distribution import agreed_seed
from tfnet_train.engine import replicas
from tfnet_train.engine.data.stream import STREAM_BLOCK, BatchStream, StreamDataAdapter
from tfnet_train.engine.data.tensor_like import ArrayBatches, Batch, TensorLikeDataAdapter, is_tensor_like
from tfnet_train.semantics import KERAS_PROFILE, Profile


class Block(NamedTuple):
    """One execution of the compiled function: steps ``begin``..``end`` read from ``iterator``.

    ``end`` is ``begin + steps_per_execution - 1`` even when the data runs out sooner, as Keras numbers the
    batches it gives ``on_*_batch_end``.
    """

    begin: int
    end: int
    iterator: Any


def check_batch_size(batch_size: Any) -> None:
    """ValueError unless batch_size is None or an integer >= 1 (TF.NET's -1 means "default" in C# only)."""
    if batch_size is None:
        return
    if isinstance(batch_size, bool) or not isinstance(batch_size, int | np.integer) or batch_size < 1:
        raise ValueError(f"batch_size must be an integer >= 1, got {batch_size!r} (None for the default)")


def check_steps(name: str, steps: Any) -> None:
    if steps is None:
        return
    if isinstance(steps, bool) or not isinstance(steps, int | np.integer) or (steps < 1 and steps != -1):
        raise ValueError(f"{name} must be None, -1 (TF.NET's 'until the data ends') or an integer >= 1, "
                         f"got {steps!r}")


class DataHandler:
    """Yields a ``Block`` per execution; one instance serves every epoch of a fit."""

    def __init__(
        self,
        x: Any,
        y: Any = None,
        sample_weight: Any = None,
        batch_size: int | None = None,
        steps_per_epoch: int | None = None,
        shuffle: bool | str = False,
        class_weight: dict[int, float] | None = None,
        steps_per_execution: int = 1,
        profile: Profile = KERAS_PROFILE,
        seed: int | None = None,
        distribute_strategy: tf.distribute.Strategy | None = None,
    ) -> None:
        check_batch_size(batch_size)
        check_steps("steps_per_epoch", steps_per_epoch)
        if steps_per_epoch == -1:  # TF.NET's default: as many steps as the data gives, Keras's None
            steps_per_epoch = None
        strategy = distribute_strategy or tf.distribute.get_strategy()
        stream = isinstance(x, BatchStream)
        if stream:
            _check_stream(y, sample_weight, class_weight, steps_per_epoch, strategy)
        tensor_like = not stream and is_tensor_like((x, y, sample_weight))
        self.fast = (stream or tensor_like) and strategy.num_replicas_in_sync == 1
        self.reads_while_training = not tensor_like  # a stream or dataset: its batches are read as the fit runs
        fit_level = None
        if class_weight is not None:
            check_class_weight(class_weight, contiguous=profile.tfnet_class_weights)
        if class_weight is not None and profile.tfnet_class_weights:
            x, y, sample_weight, fit_level = _tfnet_class_weights(x, y, sample_weight, class_weight, batch_size)
            class_weight = None
        if stream:
            adapter = StreamDataAdapter(x)
        elif tensor_like:
            adapter = TensorLikeDataAdapter(x, y, sample_weight, batch_size=batch_size, steps=steps_per_epoch,
                                            shuffle=shuffle, class_weight=class_weight, seed=seed)
        else:
            adapter = keras_internals.get_data_adapter(x, y=y, sample_weight=sample_weight, batch_size=batch_size,
                                                     steps_per_epoch=steps_per_epoch, shuffle=shuffle,
                                                     class_weight=class_weight)
        if fit_level is not None and not self.fast:
            raise ValueError("class_weight with sample_weight under semantics='tfnet' needs in-memory arrays "
                             "on one device")
        self._fit_level = fit_level
        # Shuffled arrays under a strategy: every worker draws the global order from the chief's seed, the order one
        # device draws from that seed (Keras's ArrayDataAdapter shuffles with each worker's own random state).
        self._agreed_order = tensor_like and not self.fast and bool(shuffle)
        if self._agreed_order:
            adapter.seed = agreed_seed(strategy, adapter.seed)
        self.epoch = 0  # the epoch the next pass over in-memory data is drawn for (fit sets it)
        self.whole_epochs = False  # one execution per epoch (run_whole_epochs)
        self.reset_metrics_first = False  # the next execution resets the metrics before its steps
        # Under a strategy, a block's steps run in one compiled loop when the pass's length is known
        self.steps_in_one_call = False
        # Under a MirroredStrategy, in-memory arrays whose steps run in one call: the replicas gather their rows
        self._replica_rows_possible = tensor_like and replicas.local_replicas(strategy)
        self.replica_rows = False
        # Keras's epoch iterator counts the steps; on one device over in-memory data it builds no tf.data pipeline
        self._epochs = keras_internals.KerasEpochs(self, adapter, steps_per_epoch, steps_per_execution, strategy,
                                                   pipeline=not self.fast)
        if not self.fast:
            # A dataset the user distributed counts per-replica batches, not steps: its length is not known here
            self._distributed_input = isinstance(x, tf.distribute.DistributedDataset)
            self.steps_in_one_call = steps_per_execution > 1 and self._known_passes()

    # ----- what Keras's epoch iterator holds --------------------------------------------------------------------
    @property
    def data_adapter(self) -> Any:
        return self._epochs.data_adapter

    @property
    def steps_per_epoch(self) -> int | None:
        return self._epochs.steps_per_epoch

    @property
    def steps_per_execution(self) -> int:
        return self._epochs.steps_per_execution

    @steps_per_execution.setter
    def steps_per_execution(self, steps: int) -> None:
        self._epochs.steps_per_execution = steps

    @property
    def num_batches(self) -> int | None:
        """Steps per pass: steps_per_epoch, else the adapter's count or the one learnt when a pass ran out."""
        return self._epochs.num_batches

    def __iter__(self) -> DataHandler:
        iter(self._epochs)
        return self

    def catch_stop_iteration(self) -> Any:
        """Keras's: a pass that runs out of data ends the epoch (with Keras's warning when steps were given)."""
        return self._epochs.catch_stop_iteration()

    def reset(self) -> None:
        self._epochs.reset()

    # ----- the passes, made for Keras's epoch iterator ------------------------------------------------------
    def next_pass(self) -> Any:
        if self.replica_rows:
            return self.data_adapter.epoch_batches(self.epoch)
        if self._agreed_order:
            strategy, adapter, epoch = self._epochs.strategy, self.data_adapter, self.epoch
            return _LazyPass(lambda: strategy.experimental_distribute_dataset(adapter.epoch_dataset(epoch)))
        if self.steps_in_one_call:
            return _LazyPass(self._epochs.keras_pass)
        if not self.fast:
            return self._epochs.keras_pass()
        batches = self.data_adapter.epoch_batches(self.epoch)
        return batches if self._fit_level is None else self._fit_level.wrap(batches)

    def __next__(self) -> Block:
        begin, end, iterator = next(self._epochs.steps_of_pass)
        return Block(begin, end, iterator)

    def run_whole_epochs(self, training: bool = False) -> None:
        """One execution per epoch over in-memory data when nothing listens to batch hooks and steps_per_execution
        was left at 1: the numbers are the same, the per-step Python work goes. When ``training`` under a strategy,
        the same for any input whose length is known (train_step_function runs the epoch in one compiled loop)."""
        if self.fast and self._fit_level is None and self.steps_per_execution == 1 and self.num_batches:
            self.steps_per_execution = int(self.num_batches)
            self.whole_epochs = self.reset_metrics_first = True
        elif isinstance(self.data_adapter, StreamDataAdapter) and self.steps_per_execution == 1:
            self.steps_per_execution = STREAM_BLOCK  # its length is unknown: blocks of batches, not whole epochs
        elif training and not self.fast and self.steps_per_execution == 1 and self._known_passes():
            self.steps_per_execution = int(self.num_batches)
            self.steps_in_one_call = True
            self.replica_rows = self._replica_rows_possible and self._fit_level is None

    def _known_passes(self) -> bool:
        """Whether every pass runs exactly num_batches steps (a compiled loop must not read past the data)."""
        known = self._epochs.known_batches
        return self.steps_per_epoch is None and not self._distributed_input and bool(known) and known > 0

    def warn_interrupted(self) -> None:
        if not isinstance(self.data_adapter, StreamDataAdapter):  # a stream's pass ends where its batches do
            self._epochs.keras_warn_interrupted()

    def steps_in(self, block: Block) -> int:
        """How many steps of ``block`` the data holds."""
        return min(self.steps_per_execution, int(self._epochs.known_batches) - block.begin)

    @staticmethod
    def native(iterator: Any) -> Any:
        """The distributed iterator itself (shuffled arrays under a strategy hand out a lazy wrapper)."""
        return iterator.iterator if isinstance(iterator, _LazyPass) else iterator

    def skip(self, block: Block) -> None:
        """Consume a block's batches without running them (a resumed fit passing steps a backup holds)."""
        if hasattr(block.iterator, "take"):
            block.iterator.take(self.steps_per_execution)
            return
        for _ in range(self.steps_per_execution):
            next(block.iterator)


class _LazyPass:
    """One pass over distributed input, made on first use: Keras's epoch iterator asks for the next pass ahead of
    time, and making a distributed iterator costs a quarter of a second."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make = make
        self._iterator: Any = None

    @property
    def iterator(self) -> Any:
        if self._iterator is None:
            self._iterator = iter(self._make())
        return self._iterator

    def __iter__(self) -> _LazyPass:
        return self

    def __next__(self) -> Any:
        return next(self.iterator)


def _check_stream(y: Any, sample_weight: Any, class_weight: Any, steps_per_epoch: Any,
                  strategy: tf.distribute.Strategy) -> None:
    """ValueError for arguments a BatchStream does not take (its batches carry y and sample weights)."""
    for name, value in (("y", y), ("sample_weight", sample_weight), ("class_weight", class_weight),
                        ("steps_per_epoch", steps_per_epoch)):
        if value is not None:
            raise ValueError(f"{name} must be None when x is a BatchStream (its batches carry y and sample weights), "
                             f"got {type(value).__name__}")
    if strategy.num_replicas_in_sync != 1:
        raise ValueError(f"a BatchStream feeds one device, got a strategy of {strategy.num_replicas_in_sync} replicas")


def _class_ids(y: tf.Tensor, batch_dims: int = 1) -> tf.Tensor:
    """Class index per row: argmax of one-hot targets, else the (rounded) label itself."""
    if y.shape.rank and y.shape.rank > batch_dims and y.shape[-1] != 1:
        labels = tf.argmax(y, axis=-1)
    else:
        labels = tf.reshape(y, [-1] if batch_dims == 1 else tf.shape(y)[:batch_dims])
    return tf.cast(tf.round(tf.cast(labels, tf.float32)), tf.int64)


def check_class_weight(class_weight: Any, contiguous: bool = True) -> list[float]:
    """The weight table of a {class index: weight} dict; with ``contiguous`` (TF.NET) the keys must be exactly
    0..n-1, otherwise any non-negative integers (Keras weighs classes without a key by 1.0)."""
    if not isinstance(class_weight, dict) or not class_weight:
        raise ValueError(f"class_weight must be a non-empty dict {{class index: weight}}, got {class_weight!r}")
    keys = list(class_weight)
    if not all(isinstance(k, int | np.integer) and not isinstance(k, bool) for k in keys):
        raise ValueError(f"class_weight keys must be integers 0..n-1, got keys {keys!r}")
    if not contiguous:
        if min(int(k) for k in keys) < 0:
            raise ValueError(f"class_weight keys must be class indices >= 0, got keys {sorted(keys)!r}")
        return []
    if sorted(int(k) for k in keys) != list(range(len(keys))):
        raise ValueError(f"class_weight keys must be 0..{len(keys) - 1} without gaps, got keys {sorted(keys)!r}")
    return [float(class_weight[k]) for k in sorted(class_weight)]


def model_classes(model: Any) -> int | None:
    """How many classes the model's one output scores: its last dimension (2 for a single unit, as a sigmoid
    scores classes 0 and 1); None when the model has several outputs or its output shape is not known."""
    try:
        outputs = model.outputs
    except (AttributeError, ValueError):  # a subclassed model: no symbolic output
        return None
    if not outputs or len(outputs) != 1:
        return None
    shape = tuple(outputs[0].shape)
    width = shape[-1] if len(shape) > 1 else 1
    return None if width is None else max(int(width), 2)


def check_class_weight_classes(class_weight: dict | None, model: Any) -> None:
    """ValueError for class_weight keys naming classes the model does not have (`model_classes`): Keras 3 ignores
    such a weight, so a key off by one (classes counted from 1) would silently weigh nothing."""
    classes = None if class_weight is None else model_classes(model)
    if classes is None:
        return
    extra = sorted(int(k) for k in class_weight if int(k) >= classes)
    if extra:
        raise ValueError(f"class_weight has weights for classes {extra} that the model does not have: its output "
                         f"scores {classes} classes, so keys must be in 0..{classes - 1}; got keys "
                         f"{sorted(int(k) for k in class_weight)}")


def class_weight_to_sample_weight(y: Any, class_weight: dict[int, float]) -> np.ndarray:
    """Per-sample weights from a {class index: weight} dict; keys must be exactly 0..n-1."""
    table = np.asarray(check_class_weight(class_weight), dtype=np.float32)
    if y is None or isinstance(y, list | tuple | dict):
        raise ValueError("class_weight needs a single target array y")
    labels = np.asarray(y.numpy() if isinstance(y, tf.Tensor) else y)
    if labels.ndim > 1:
        labels = np.argmax(labels, axis=-1) if labels.shape[-1] != 1 else np.squeeze(labels, axis=-1)
    labels = np.round(labels).astype(np.int64)
    if labels.size and (labels.min() < 0 or labels.max() >= len(table)):
        raise ValueError(
            f"class_weight has weights for classes 0..{len(table) - 1}, but y holds class {int(labels.max())}"
        )
    return table[labels]


def _tfnet_class_weights(x: Any, y: Any, sample_weight: Any, class_weight: dict, batch_size: int | None
                         ) -> tuple[Any, Any, Any, FitLevelClassWeights | None]:
    """TF.NET's class-weight map: per-batch class weights as the sample weights (a dataset's own are dropped);
    with a fit-level sample_weight, each batch's class weights times that whole array."""
    if isinstance(x, tf.data.Dataset):
        table = tf.constant(check_class_weight(class_weight), tf.float32)

        def weigh(*element: Any) -> tuple[Any, Any, Any]:
            if len(element) < 2:
                raise ValueError("class_weight needs a dataset of (x, y) elements")
            return element[0], element[1], tf.gather(table, _class_ids(element[1]))

        return x.map(weigh), None, None, None
    weights = class_weight_to_sample_weight(y, class_weight)
    if sample_weight is None:
        return x, y, weights, None
    fit_level = FitLevelClassWeights(class_weight, sample_weight, num_samples=len(weights),
                                     batch_size=batch_size or 32)
    return x, y, None, fit_level


class FitLevelClassWeights:
    """semantics='tfnet' with class_weight and sample_weight: each batch's weights are its class weights times the
    WHOLE fit-level sample_weight array, as TF.NET's class-weight map reads the fit argument, not the batch's rows.

    That product broadcasts only for batches of one row or of every row; other batch sizes are a ValueError here
    (TF.NET fails inside TensorFlow with incompatible shapes at the first step).
    """

    def __init__(self, class_weight: dict, fit_weights: Any, num_samples: int, batch_size: int) -> None:
        n = num_samples
        fit_weights = tf.cast(tf.reshape(tf.convert_to_tensor(fit_weights), [-1]), tf.float32)
        if int(fit_weights.shape[0]) != n:
            raise ValueError(f"x and sample_weight must have the same number of samples, got x: {n}, "
                             f"sample_weight: {int(fit_weights.shape[0])}")
        if not (batch_size >= n or batch_size == 1):
            raise ValueError(
                f"class_weight with sample_weight under semantics='tfnet' needs batch_size 1 or >= the {n} "
                f"samples, got batch_size={batch_size}: TensorFlow.NET multiplies each batch's class weights by "
                f"the whole sample_weight array ({n} values), which fails for batches of {batch_size} rows"
            )
        self._table = tf.constant(check_class_weight(class_weight), tf.float32)
        self._fit_weights = fit_weights

    def wrap(self, batches: ArrayBatches) -> _Weighted:
        return _Weighted(batches, self)

    def weigh(self, batch: Batch | None, batch_dims: int = 1) -> Batch | None:
        if batch is None:
            return None
        x, y, _ = unpack_x_y_sample_weight(batch)
        return x, y, tf.gather(self._table, _class_ids(y, batch_dims)) * self._fit_weights


class _Weighted:
    """ArrayBatches whose sample weights are replaced by FitLevelClassWeights."""

    def __init__(self, batches: ArrayBatches, weights: FitLevelClassWeights) -> None:
        self._batches, self._weights = batches, weights

    def __iter__(self) -> _Weighted:
        return self

    def __next__(self) -> Batch:
        return self._weights.weigh(next(self._batches))
