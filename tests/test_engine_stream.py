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


def test_pool_memory_is_written_again_only_when_no_tensor_holds_it() -> None:
    from tfnet_train.engine.data.stream import BufferPool

    pool = BufferPool()
    first = pool.block([X[:8], X[8:16]])
    second = pool.block([X[16:24], X[24:32]])  # `first` still holds its memory: a second buffer
    np.testing.assert_array_equal(first.numpy(), X[:16])
    np.testing.assert_array_equal(second.numpy(), X[16:32])
    del first
    gc.collect()
    third = pool.block([X[32:40], X[40:48]])  # the first buffer again, now that no tensor holds it
    np.testing.assert_array_equal(second.numpy(), X[16:32])
    np.testing.assert_array_equal(third.numpy(), X[32:48])
    assert pool.allocated == 2
    assert pool.block([np.array(["a"]), np.array(["b"])]).numpy().tolist() == [b"a", b"b"]  # no DLPack: copied


def test_pool_keeps_a_bounded_number_of_free_buffers_whatever_shapes_pass() -> None:
    from tfnet_train.engine.data.stream import BufferPool

    pool = BufferPool()
    for rows in range(1, 3 * BufferPool.KEEP):  # a block shape per size: a buffer for each, each released
        np.testing.assert_array_equal(pool.block([X[:rows], X[rows:2 * rows]]).numpy(), X[:2 * rows])
    gc.collect()
    assert len(pool._free) <= BufferPool.KEEP


def test_batches_back_to_back_in_a_lease_are_the_block_itself_and_others_are_copied_aligned() -> None:
    from tfnet_train.engine.data.stream import BufferPool

    pool = BufferPool()
    lease = pool.lease(4 * 8 * 6 * 4 + 4)  # four batches of 8 rows, 6 float32 features
    rows = lease[:4 * 8 * 6 * 4].view(np.float32).reshape(32, 6)
    rows[:] = X[:32]
    batches = [rows[i:i + 8] for i in range(0, 32, 8)]
    block = pool.block(batches)
    assert np.from_dlpack(block).ctypes.data == rows.ctypes.data  # no copy: the lease's own memory
    np.testing.assert_array_equal(block.numpy(), X[:32])
    assert pool.allocated == 1
    for parts in ([batches[0], batches[2]], [batches[1], batches[2]], [batches[0].copy(), batches[1]]):
        copied = pool.block(parts)  # a gap, an unaligned start, another memory: each copied into a new lease
        assert np.from_dlpack(copied).ctypes.data % BufferPool.ALIGNMENT == 0
        np.testing.assert_array_equal(copied.numpy(), np.concatenate(parts))
    unaligned = lease[4:4 + 8 * 6 * 4].view(np.float32).reshape(8, 6)  # one batch, 4 bytes into the lease
    assert np.from_dlpack(pool.block([unaligned])).ctypes.data % BufferPool.ALIGNMENT == 0
    del block, batches, rows, lease
    gc.collect()
    assert len(pool._free) <= BufferPool.KEEP
