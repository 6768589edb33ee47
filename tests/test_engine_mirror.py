"""The Model.Train.cs mirror: counters, order of work, expand_1d, eager == graph, steps_per_execution,
MirroredStrategy, the guides' custom loop, and StepTrace."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf
from parity import assert_weights_equal, dense_layers, twin_sequential

import tfnet_train
from tfnet_train import optimizers
from tfnet_train.engine import STAGES
from tfnet_train.engine.data import expand_1d
from tfnet_train.tolerances import assert_close


def small_model(n_out: int = 1, seed: int = 0) -> tfnet_train.Sequential:
    keras.utils.set_random_seed(seed)
    return tfnet_train.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="relu"),
                                   keras.layers.Dense(n_out)])


def data(n: int = 20, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 3)).astype("float32"), rng.normal(size=(n, 1)).astype("float32")


def test_train_counter_resets_at_fit_and_counts_steps() -> None:
    model = small_model()
    model.compile(optimizers.SGD(0.01), "mse")
    x, y = data(20)
    assert model._train_counter.dtype == tf.int64
    model.fit(x, y, batch_size=6, epochs=2, verbose=0)  # 4 steps per epoch (last partial)
    assert int(model._train_counter.numpy()) == 8
    assert int(model.optimizer.iterations.numpy()) == 8
    model.fit(x, y, batch_size=10, epochs=1, verbose=0)
    assert int(model._train_counter.numpy()) == 2  # reset to 0 when fit starts
    assert int(model.optimizer.iterations.numpy()) == 10  # the optimizer keeps counting


def test_minimize_order_is_aggregate_clip_apply() -> None:
    calls: list[str] = []

    class Recording(optimizers.SGD):
        def _aggregate_gradients(self, grads_and_vars):
            calls.append("aggregate")
            return super()._aggregate_gradients(grads_and_vars)

        def _clip_gradients(self, grads):
            calls.append("clip")
            return super()._clip_gradients(grads)

        def apply_gradients(self, grads_and_vars, experimental_aggregate_gradients=True):
            calls.append(f"apply(aggregate={experimental_aggregate_gradients})")
            return super().apply_gradients(grads_and_vars, experimental_aggregate_gradients)

    model = small_model()
    model.compile(Recording(0.01, clipnorm=1.0), "mse", run_eagerly=True)
    x, y = data(8)
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    assert calls == ["aggregate", "clip", "apply(aggregate=False)"]


def test_expand_1d_turns_rank_1_into_columns() -> None:
    x, y, sw, m = expand_1d((tf.zeros([5]), tf.zeros([5, 2]), tf.ones([5]), None))
    assert x.shape == (5, 1) and y.shape == (5, 2) and sw.shape == (5, 1) and m is None
    traces = {}
    for semantics in ("tfnet", "keras"):
        keras.utils.set_random_seed(0)
        model = tfnet_train.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
        model.compile(optimizers.SGD(0.01), "mse", semantics=semantics)
        traces[semantics] = model.train_step_traced(
            np.arange(4, dtype="float32"), np.ones(4, "float32"), np.ones(4, "float32"))
    for kind in ("x", "y", "sample_weight"):  # the trace shows columns under both profiles
        assert [a.shape for a in traces["tfnet"].inputs[kind]] == [(4, 1)]
        assert [a.shape for a in traces["keras"].inputs[kind]] == [(4, 1)]
    for a, b in zip(traces["tfnet"].weights, traces["keras"].weights, strict=True):
        assert_close(a, b, what="weights after one step")


@pytest.mark.parametrize("setting", [{"run_eagerly": True}, {"steps_per_execution": 3}, {"jit_compile": True}])
def test_execution_modes_give_the_same_numbers(setting: dict) -> None:
    x, y = data(26)
    base = small_model()
    base.compile(optimizers.Adam(0.01), "mse", metrics=["mae"])
    other = small_model()
    other.compile(optimizers.Adam(0.01), "mse", metrics=["mae"], **setting)
    h1 = base.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False).history
    h2 = other.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False).history
    assert_weights_equal(other.get_weights(), base.get_weights())
    for k in h1:
        assert_close(h2[k], h1[k], what=k)
    assert int(other._train_counter.numpy()) == int(base._train_counter.numpy()) == 14
    assert int(other.optimizer.iterations.numpy()) == 14


@pytest.fixture(scope="module")
def strategy() -> tf.distribute.MirroredStrategy:
    """One strategy for the module: several over the same devices in one process can collide."""
    return tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"],
                                          cross_device_ops=tf.distribute.ReductionToOneDevice())


@pytest.mark.parametrize("clip", [{}, {"clipnorm": 0.05}, {"global_clipnorm": 0.05}, {"clipvalue": 0.01}])
def test_mirrored_strategy_matches_one_device(clip: dict, strategy: tf.distribute.MirroredStrategy) -> None:
    x, y = data(32, seed=4)
    single = small_model(seed=5)
    single.compile(optimizers.SGD(0.1, **clip), "mse")
    single.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    with strategy.scope():
        mirrored = small_model(seed=5)
        mirrored.compile(optimizers.SGD(0.1, **clip), "mse")
    mirrored.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    assert_weights_equal(mirrored.get_weights(), single.get_weights())


def test_guides_custom_loop_ends_with_fit_weights() -> None:
    reference, model = twin_sequential(dense_layers(4, 3, "linear"))
    loop_model = keras.models.clone_model(reference)
    loop_model.set_weights(reference.get_weights())
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=(64, 4)).astype("float32"), rng.integers(0, 3, size=64)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    optimizer = optimizers.Adam(0.01)
    optimizer.build(loop_model.trainable_variables)

    @tf.function
    def train_step(xb: tf.Tensor, yb: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            loss = loss_fn(yb, loop_model(xb, training=True))
        grads = tape.gradient(loss, loop_model.trainable_variables)
        optimizer.apply_gradients(zip(grads, loop_model.trainable_variables))
        return loss

    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(16)
    for _ in range(3):
        for xb, yb in dataset:
            train_step(xb, yb)
    model.compile(optimizers.Adam(0.01), loss_fn)
    model.fit(x, y, batch_size=16, epochs=3, verbose=0, shuffle=False)
    assert_weights_equal(model.get_weights(), loop_model.get_weights())


def test_step_trace_has_every_stage_and_matches_a_tape() -> None:
    model = small_model(n_out=2)
    model.compile(optimizers.SGD(0.1, momentum=0.9, clipnorm=0.01), "mse", metrics=["mae"])
    x, y = data(6)
    y = np.concatenate([y, -y], axis=1)
    before = model.get_weights()
    with tf.GradientTape() as tape:
        loss = keras.losses.MeanSquaredError()(y, model(x, training=True))
    expected_grads = tape.gradient(loss, model.trainable_variables)
    trace = model.train_step_traced(x, y)
    assert [s for s in STAGES if getattr(trace, s) is None] == []
    assert_close(trace.loss, float(loss), what="loss")
    for g, e in zip(trace.gradients, expected_grads, strict=True):
        assert_close(g, e.numpy(), what="gradient")
    for clipped, g in zip(trace.clipped_gradients, trace.gradients, strict=True):
        norm = np.linalg.norm(g)
        assert_close(clipped, g * min(1.0, 0.01 / norm), what="clipnorm")
    for w, b, c in zip(trace.weights, before, trace.clipped_gradients, strict=True):
        assert_close(w, b - 0.1 * c, what="weights after SGD")  # first momentum step: v = -lr * g
    assert trace.optimizer_state["iterations"] == 1
    assert set(trace.optimizer_state["slots"]) == {"momentum"}
    assert trace.metrics["loss"] == pytest.approx(trace.loss, rel=1e-6)
    assert trace.step == 0 and int(model._train_counter.numpy()) == 1
    flat = trace.flat()
    assert "clipped_gradients/0" in flat and "optimizer_state/momentum/0" in flat and "metrics/mae" in flat


class _WithUnusedWeight(keras.layers.Layer):
    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], 2), name="kernel")
        self.unused = self.add_weight(shape=(2,), name="unused")

    def call(self, x):
        return tf.matmul(x, self.kernel)


def test_step_trace_gives_none_for_no_gradient_and_dense_arrays_for_sparse_ones() -> None:
    model = tfnet_train.Sequential([keras.Input((4,), dtype="int32"), keras.layers.Embedding(10, 3),
                                    keras.layers.Flatten(), _WithUnusedWeight()])
    model.compile(optimizers.SGD(0.1), "mse")
    x = np.random.default_rng(5).integers(0, 10, (5, 4)).astype("int32")
    y = np.random.default_rng(6).normal(size=(5, 2)).astype("float32")
    with tf.GradientTape() as tape:
        loss = keras.losses.MeanSquaredError()(y, model(x, training=True))
    sparse, dense, missing = tape.gradient(loss, model.trainable_variables)
    assert isinstance(sparse, tf.IndexedSlices) and missing is None
    with pytest.warns(UserWarning, match="Gradients do not exist"):
        trace = model.train_step_traced(x, y)
    for stage in ("gradients", "aggregated_gradients", "clipped_gradients"):
        grads = getattr(trace, stage)
        assert grads[2] is None, stage
        assert_close(grads[0], tf.convert_to_tensor(sparse).numpy(), what=f"{stage}: the Embedding's, dense")
        assert_close(grads[1], dense.numpy(), what=stage)
    flat = trace.flat()
    assert "gradients/1" in flat and "gradients/2" not in flat and flat["gradients/0"].dtype == np.float32


def test_fit_validation_reaches_user_test_hooks_and_on_train_end() -> None:
    from tfnet_train.callbacks import Callback

    seen: list[str] = []

    class Recorder(Callback):
        def on_train_begin(self, logs=None):
            seen.append("train_begin")

        def on_test_begin(self, logs=None):
            seen.append("test_begin")

        def on_test_end(self, logs=None):
            seen.append("test_end")

        def on_epoch_end(self, epoch, logs=None):
            seen.append(f"epoch_end:{sorted(logs)}")

        def on_train_end(self, logs=None):
            seen.append("train_end")

    model = small_model()
    model.compile(optimizers.SGD(0.01), "mse")
    x, y = data(20)
    model.fit(x, y, batch_size=5, epochs=2, verbose=0, validation_split=0.25, callbacks=[Recorder()])
    epoch_end = "epoch_end:['loss', 'val_loss']"
    assert seen == ["train_begin", "test_begin", "test_end", epoch_end, "test_begin", "test_end", epoch_end,
                    "train_end"]
