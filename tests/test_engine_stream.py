"""BatchStream: batches read as they come, a block per compiled call, with the numbers of in-memory arrays."""

from __future__ import annotations

import gc

import keras
import numpy as np
import pytest

import tfnet_train
from tfnet_train import optimizers
from tfnet_train.engine.data.stream import STREAM_BLOCK, BatchStream
from tfnet_train.tolerances import assert_close

RNG = np.random.default_rng(7)
N, B = 40 * 8 + 5, 8  # more batches than one block, and a partial last batch
X = RNG.random((N, 6), dtype=np.float32)
Y = RNG.integers(0, 3, N)


def model(semantics: str = "keras") -> tfnet_train.Sequential:
    keras.utils.set_random_seed(3)
    m = tfnet_train.Sequential([keras.Input((6,)), keras.layers.Dense(5, activation="tanh"), keras.layers.Dense(3)])
    m.compile(optimizers.Adam(0.01), keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"], semantics=semantics)
    return m


def passes(sizes: list[int] | None = None):  # noqa: ANN201
    def one_pass():  # noqa: ANN202
        start = 0
        for size in sizes or [B] * (N // B) + [N % B]:
            yield X[start:start + size], Y[start:start + size]
            start += size
    return one_pass


class BatchCounter(keras.callbacks.Callback):
    def __init__(self) -> None:
        super().__init__()
        self.batches = 0

    def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
        self.batches += 1


@pytest.mark.parametrize("semantics", ["keras", "tfnet"])
@pytest.mark.parametrize("batch_hooks", [False, True])
def test_a_stream_trains_exactly_as_the_same_arrays(semantics: str, batch_hooks: bool) -> None:
    arrays, streamed = model(semantics), model(semantics)
    want = arrays.fit(X, Y, batch_size=B, epochs=3, shuffle=False, verbose=0).history
    counter = BatchCounter()
    got = streamed.fit(BatchStream(passes()), epochs=3, verbose=0, callbacks=[counter] if batch_hooks else None).history
    assert got == want
    for a, b in zip(arrays.get_weights(), streamed.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
    assert int(streamed._train_counter.numpy()) == int(arrays._train_counter.numpy()) == 3 * (N // B + 1)
    assert counter.batches == (3 * (N // B + 1) if batch_hooks else 0)
    assert streamed.evaluate(BatchStream(passes()), verbose=0, return_dict=True) == arrays.evaluate(
        X, Y, batch_size=B, verbose=0, return_dict=True)


def test_batches_of_any_size_train_one_step_each() -> None:
    sizes = [8] * 18 + [5, 8, 12, 12, 3] + [8] * (STREAM_BLOCK + 1)  # blocks end at a partial and a larger batch
    stepped, streamed = model(), model()
    start = 0
    for size in sizes:
        stepped.train_on_batch(X[start:start + size], Y[start:start + size])
        start += size
    streamed.fit(BatchStream(passes(sizes)), epochs=1, verbose=0)
    assert int(streamed._train_counter.numpy()) == len(sizes)
    for a, b in zip(stepped.get_weights(), streamed.get_weights(), strict=True):
        assert_close(b, a, what="weights")


def test_each_epoch_is_one_pass_and_nothing_is_traced_again() -> None:
    made = []

    def counted():  # noqa: ANN202
        made.append(1)
        return passes()()

    m = model()
    m.fit(BatchStream(counted), epochs=1, verbose=0)
    traced = dict(m._train_rows_function._concrete)
    m.fit(BatchStream(counted), epochs=3, verbose=0)
    assert len(made) == 4
    assert m._train_rows_function._concrete == traced


@pytest.mark.parametrize(("kwargs", "name"), [({"y": Y}, "y"), ({"sample_weight": np.ones(N)}, "sample_weight"),
                                              ({"class_weight": {0: 1.0}}, "class_weight"),
                                              ({"steps_per_epoch": 3}, "steps_per_epoch")])
def test_arguments_a_stream_does_not_take(kwargs: dict, name: str) -> None:
    m = model()
    before = [w.copy() for w in m.get_weights()]
    with pytest.raises(ValueError, match=rf"{name} must be None when x is a BatchStream"):
        m.fit(BatchStream(passes()), verbose=0, **kwargs)
    for a, b in zip(m.get_weights(), before, strict=True):
        np.testing.assert_array_equal(a, b)


def test_an_empty_stream_an_empty_batch_and_a_non_callable_are_errors() -> None:
    with pytest.raises(ValueError, match="yielded no batch"):
        model().fit(BatchStream(lambda: iter([])), verbose=0)
    with pytest.raises(ValueError, match="0 rows"):
        model().fit(BatchStream(passes([8, 8, 0])), verbose=0)
    with pytest.raises(TypeError, match="passes must be a callable"):
        BatchStream([(X, Y)])


def test_block_buffers_are_written_again_only_when_no_tensor_holds_them() -> None:
    from tfnet_train.engine.data.stream import BlockBuffers

    buffers = BlockBuffers()
    first = buffers.gather([X[:8], X[8:16]])
    second = buffers.gather([X[16:24], X[24:32]])  # `first` still holds its memory: a second buffer
    np.testing.assert_array_equal(first.numpy(), X[:16])
    np.testing.assert_array_equal(second.numpy(), X[16:32])
    del first
    gc.collect()
    third = buffers.gather([X[32:40], X[40:48]])  # the first buffer again, now that no tensor holds it
    np.testing.assert_array_equal(second.numpy(), X[16:32])
    np.testing.assert_array_equal(third.numpy(), X[32:48])
    assert buffers.allocated == 2
    assert buffers.gather([np.array(["a"]), np.array(["b"])]).numpy().tolist() == [b"a", b"b"]  # no DLPack: copied


def test_block_buffers_keep_a_bounded_number_of_free_buffers_whatever_shapes_pass() -> None:
    from tfnet_train.engine.data.stream import BlockBuffers

    buffers = BlockBuffers()
    for rows in range(1, 3 * BlockBuffers.KEEP):  # a block shape per size: a buffer for each, each released
        np.testing.assert_array_equal(buffers.gather([X[:rows], X[rows:2 * rows]]).numpy(), X[:2 * rows])
    gc.collect()
    assert len(buffers._free) <= BlockBuffers.KEEP


def test_an_iterator_gets_each_batch_back_once_its_rows_are_copied() -> None:
    class Recycling:
        def __init__(self) -> None:
            self.batches = passes()()
            self.given: list[int] = []
            self.back: list[int] = []

        def __iter__(self):  # noqa: ANN204
            return self

        def __next__(self):  # noqa: ANN204
            batch = next(self.batches)
            self.given.append(id(batch))
            return batch

        def recycle(self, batch) -> None:  # noqa: ANN001
            self.back.append(id(batch))

    iterators: list[Recycling] = []

    def one_pass() -> Recycling:
        iterators.append(Recycling())
        return iterators[-1]

    streamed, arrays = model(), model()
    streamed.fit(BatchStream(one_pass), epochs=2, verbose=0)
    arrays.fit(X, Y, batch_size=B, epochs=2, shuffle=False, verbose=0)
    for a, b in zip(streamed.get_weights(), arrays.get_weights()):
        assert_close(a, b)
    assert len(iterators) == 2 and all(it.given == it.back for it in iterators)
