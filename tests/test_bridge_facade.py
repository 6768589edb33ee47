"""The Python facade the C# library calls (tfnet_train.bridge), tested from Python."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import keras
import numpy as np
import pytest

import tfnet_train
from tfnet_train import bridge, optimizers
from tfnet_train.callbacks import Callback, CallbackList

# ----- arrays ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", bridge.EXCHANGE_DTYPES)
def test_exchange_arrays_pass_through_without_copy(dtype: str) -> None:
    a = np.arange(6, dtype=dtype).reshape(2, 3)
    assert bridge.exchange_array(a) is a


@pytest.mark.parametrize(
    ("source", "target"),
    [("float16", "float32"), ("bool", "int32"), ("uint8", "int32"), ("int16", "int32"), ("uint32", "int64")],
)
def test_narrow_dtypes_widen(source: str, target: str) -> None:
    a = np.array([[1, 0], [1, 1]], dtype=source)
    out = bridge.exchange_array(a)
    assert out.dtype == np.dtype(target)
    np.testing.assert_array_equal(out, a.astype(target))


def test_scalars_stay_rank_zero_and_views_become_contiguous() -> None:
    scalar = bridge.exchange_array(np.float16(2.5))
    assert scalar.shape == () and scalar.dtype == np.float32 and float(scalar) == 2.5
    view = np.arange(12, dtype=np.float32).reshape(3, 4).T
    out = bridge.exchange_array(view)
    assert out.flags.c_contiguous
    np.testing.assert_array_equal(out, view)


def test_tensors_and_variables_are_exchanged_as_arrays() -> None:
    import tensorflow as tf

    out = bridge.exchange_array(tf.Variable([[1.0, 2.0]]))
    assert isinstance(out, np.ndarray) and out.dtype == np.float32 and out.shape == (1, 2)


@pytest.mark.parametrize("dtype", ["complex64", "uint64", "object"])
def test_unsupported_dtypes_raise_type_error(dtype: str) -> None:
    with pytest.raises(TypeError, match=f"got {dtype}"):
        bridge.exchange_array(np.zeros(2, dtype=dtype))


def test_empty_echo_and_describe() -> None:
    e = bridge.empty([2, 3], "int64")
    assert e.shape == (2, 3) and e.dtype == np.int64 and e.flags.c_contiguous
    with pytest.raises(TypeError, match="dtype must be one of"):
        bridge.empty([1], "float16")
    a = np.array([1.5, 2.5], dtype=np.float32)
    echoed = bridge.echo(a)
    assert echoed is not a and echoed.tobytes() == a.tobytes()
    assert bridge.describe(a) == {"dtype": "float32", "shape": [2], "sum": 4.0, "c_contiguous": True}


# ----- specs ----------------------------------------------------------------------------------------------------


def test_build_layer_and_input() -> None:
    dense = bridge.build_layer("Dense", {"units": 3, "activation": "relu"})
    assert isinstance(dense, keras.layers.Dense) and dense.units == 3
    tensor = bridge.build_layer("Input", {"shape": (4,)})
    assert tuple(tensor.shape) == (None, 4)
    with pytest.raises(ValueError, match="did you mean Dense"):
        bridge.build_layer("Dense2", {})
    with pytest.raises(TypeError, match="must be a dict"):
        bridge.build_layer("Dense", [3])  # type: ignore[arg-type]


def test_build_optimizer_any_case_with_schedule() -> None:
    sgd = bridge.build_optimizer("sgd", {"learning_rate": 0.5, "momentum": 0.9, "clipnorm": 1.0})
    assert isinstance(sgd, optimizers.SGD) and sgd.momentum == 0.9 and sgd.clipnorm == 1.0
    scheduled = bridge.build_optimizer("Adam", {"learning_rate": ("ExponentialDecay", {
        "initial_learning_rate": 0.1, "decay_steps": 10.0, "decay_rate": 0.5})})
    assert isinstance(scheduled._learning_rate, optimizers.ExponentialDecay)
    with pytest.raises(ValueError, match="optimizer must name.*did you mean Adagrad"):
        bridge.build_optimizer("Adagrad2", {})
    adagrad = bridge.build_optimizer("adagrad", {"learning_rate": 0.5})
    assert type(adagrad) is keras.optimizers.Adagrad and float(adagrad.learning_rate) == 0.5
    assert type(bridge.build_optimizer("Adam", {})) is optimizers.Adam
    with pytest.raises(ValueError, match="schedule must name"):
        bridge.build_schedule("Nope", {})


def test_build_loss() -> None:
    loss = bridge.build_loss("SparseCategoricalCrossentropy", {"from_logits": True})
    assert isinstance(loss, keras.losses.SparseCategoricalCrossentropy)
    with pytest.raises(ValueError, match="loss must name"):
        bridge.build_loss("Loss", {})


# ----- models ---------------------------------------------------------------------------------------------------

SPECS = [("Input", {"shape": (4,)}), ("Dense", {"units": 6, "activation": "relu"}), ("Dense", {"units": 3})]


def _twins(optimizer: tuple[str, dict[str, Any]] = ("SGD", {"learning_rate": 0.1, "momentum": 0.9})) -> tuple[Any, Any]:
    """A bridge-built model and an engine model built directly, with the same weights and configuration."""
    ours = bridge.sequential(SPECS)
    bridge.compile_model(ours, optimizer, ("SparseCategoricalCrossentropy", {"from_logits": True}), ["accuracy"])
    theirs = tfnet_train.Sequential(
        [keras.Input((4,)), keras.layers.Dense(6, activation="relu"), keras.layers.Dense(3)])
    theirs.set_weights(ours.get_weights())
    theirs.compile(bridge.build_optimizer(*optimizer),
                   keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    return ours, theirs


def _batch(seed: int, n: int = 8) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 4)).astype(np.float32), rng.integers(0, 3, n)


def test_sequential_needs_layers() -> None:
    with pytest.raises(ValueError, match="at least one layer"):
        bridge.sequential([])
    with pytest.raises(TypeError, match="tfnet_train Model"):
        bridge.train_counter(object())


def test_set_random_seed_fixes_initial_weights_and_checks_its_argument() -> None:
    def initial() -> list[np.ndarray]:
        return bridge.sequential([("Input", {"shape": [4]}), ("Dense", {"units": 3})]).get_weights()

    bridge.set_random_seed(11)
    first = initial()
    keras.utils.set_random_seed(11)
    for a, b in zip(first, initial()):
        np.testing.assert_array_equal(a, b)
    bridge.set_random_seed(12)
    assert not np.array_equal(first[0], initial()[0])
    for bad in (-1, 2**32, True, 1.5, "3"):
        with pytest.raises(ValueError, match=rf"seed must be an int in \[0, 2\*\*32\); got {bad!r}"):
            bridge.set_random_seed(bad)


def test_train_on_batch_is_the_models_train_on_batch() -> None:
    ours, theirs = _twins()
    for seed in range(3):
        x, y = _batch(seed)
        assert bridge.train_on_batch(ours, x, y) == theirs.train_on_batch(x, y, return_dict=True)
    assert bridge.train_counter(ours) == 3
    for a, b in zip(bridge.get_weights(ours), theirs.get_weights(), strict=True):
        assert a.tobytes() == b.tobytes()


def test_train_step_traced_is_plain_data_matching_the_trace() -> None:
    ours, theirs = _twins()
    x, y = _batch(7)
    record = bridge.train_step_traced(ours, x, y)
    trace = theirs.train_step_traced(x, y)
    expected = trace.flat()
    assert record["flat"].keys() == expected.keys()
    for key, value in expected.items():
        assert record["flat"][key].tobytes() == np.asarray(value).astype(record["flat"][key].dtype).tobytes(), key
    assert set(record) == {"step", "variable_names", "weight_names", "flat"}, "each array crosses once"
    assert float(record["flat"]["loss"]) == trace.loss
    assert {k: float(v) for k, v in record["flat"].items() if k.startswith("metrics/")} == {
        f"metrics/{name}": value for name, value in trace.metrics.items()}
    assert record["step"] == 0 and int(record["flat"]["optimizer_state/iterations"]) == 1
    assert {k.split("/")[1] for k in record["flat"] if k.startswith("optimizer_state/")} == {
        "iterations", "learning_rate", "momentum"}
    assert len(record["variable_names"]) == len(trace.variable_names) == 4
    assert [n.rsplit("/", 1)[-1] for n in record["weight_names"]] == [
        n.rsplit("/", 1)[-1] for n in trace.weight_names]


def test_fit_evaluate_predict_return_plain_types() -> None:
    ours, theirs = _twins()
    x, y = _batch(11, 24)
    result = bridge.fit(ours, x, y, batch_size=8, epochs=2, shuffle=False)
    history = theirs.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    assert result == {"history": history.history, "epoch": [0, 1]}
    assert bridge.evaluate(ours, x, y) == theirs.evaluate(x, y, verbose=0, return_dict=True)
    outputs = bridge.predict(ours, x, batch_size=5)
    assert isinstance(outputs, list) and len(outputs) == 1
    assert outputs[0].tobytes() == theirs.predict(x, batch_size=5, verbose=0).tobytes()


def test_weight_layout_and_summary() -> None:
    model = bridge.sequential(SPECS)
    layout = bridge.weight_layout(model)
    assert layout["shapes"] == [[4, 6], [6], [6, 3], [3]]
    assert layout["dtypes"] == ["float32"] * 4
    assert layout["names"][0].endswith("kernel")
    assert "Total params" in bridge.summary(model)


def test_set_weights_and_stop_training() -> None:
    model = bridge.sequential(SPECS)
    zeros = [np.zeros(s, np.float32) for s in bridge.weight_layout(model)["shapes"]]
    bridge.set_weights(model, zeros)
    assert all(not w.any() for w in bridge.get_weights(model))
    for bad, pattern in (
        (zeros[:1], r"^weights: the model has 4 weights; got 1 arrays$"),
        ([np.ones((4, 7), np.float32), *zeros[1:]],
         r"^weights\[0\] \(.*kernel\) must be float32 \(4, 6\); got float32 \(4, 7\)$"),
        ([zeros[0], np.ones(6, np.float64), *zeros[2:]],
         r"^weights\[1\] \(.*bias\) must be float32 \(6,\); got float64"),
    ):
        with pytest.raises(ValueError, match=pattern):
            bridge.set_weights(model, bad)
    assert all(not w.any() for w in bridge.get_weights(model)), "a refused set_weights changes nothing"
    assert bridge.get_stop_training(model) is False
    bridge.set_stop_training(model, True)
    assert bridge.get_stop_training(model) is True


def test_save_and_load_weights(tmp_path: Path) -> None:
    ours, _ = _twins()
    path = tmp_path / "m.weights.h5"
    bridge.save_weights(ours, str(path))
    before = bridge.get_weights(ours)
    bridge.train_on_batch(ours, *_batch(1))
    bridge.load_weights(ours, str(path))
    for a, b in zip(before, bridge.get_weights(ours), strict=True):
        assert a.tobytes() == b.tobytes()


# ----- host callbacks -------------------------------------------------------------------------------------------


class _Host:
    """Stands in for the C# dispatcher: records Dispatch calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, dict]] = []

    def Dispatch(self, hook: str, index: int, logs: dict) -> None:  # noqa: N802 (the C# method name)
        self.calls.append((hook, index, dict(logs)))


def test_host_callback_forwards_only_its_hooks() -> None:
    host = _Host()
    callback = bridge.host_callback(host, ["on_epoch_end", "on_train_begin"])
    assert isinstance(callback, Callback)
    assert not callback.needs_batch_hooks("train")
    callback.on_train_begin()
    callback.on_train_batch_end(0, {"loss": 1.0})
    callback.on_epoch_end(2, {"loss": 0.5})
    assert host.calls == [("on_train_begin", -1, {}), ("on_epoch_end", 2, {"loss": 0.5})]
    batch_watcher = bridge.host_callback(host, ["on_train_batch_end"])
    assert batch_watcher.needs_batch_hooks("train")
    assert not batch_watcher.needs_batch_hooks("test") and not batch_watcher.needs_batch_hooks("predict")
    with pytest.raises(ValueError, match="hooks must be among"):
        bridge.host_callback(host, ["on_test_end"])


def test_host_callback_sees_every_fit_hook_in_order() -> None:
    ours, _ = _twins()
    host = _Host()
    x, y = _batch(5, 16)
    bridge.fit(ours, x, y, batch_size=8, epochs=1, shuffle=False, callbacks=[bridge.host_callback(host)])
    assert [c[0] for c in host.calls] == [
        "on_train_begin", "on_epoch_begin", "on_train_batch_begin", "on_train_batch_end",
        "on_train_batch_begin", "on_train_batch_end", "on_epoch_end", "on_train_end"]
    assert set(host.calls[3][2]) == {"loss", "accuracy"}
    assert CallbackList([bridge.host_callback(host, [])]).needs_batch_hooks("train") is False


# ----- functional models ----------------------------------------------------------------------------------------


def test_functional_models_from_applied_specs() -> None:
    x = bridge.build_layer("Input", {"shape": (4,)})
    h = bridge.apply_layer(("Dense", {"units": 5}), [x])
    merged = bridge.apply_layer(("Concatenate", {}), [h, x])
    assert bridge.tensor_shape(merged) == [-1, 9]
    model = bridge.functional([x], [bridge.apply_layer(("Dense", {"units": 2}), [merged])])
    assert isinstance(model, tfnet_train.Model)
    assert [bridge.tensor_shape(t) for t in model.inputs] == [[-1, 4]]
    assert bridge.predict(model, np.ones((3, 4), np.float32))[0].shape == (3, 2)
    with pytest.raises(ValueError, match="at least one symbolic tensor"):
        bridge.apply_layer(("Dense", {"units": 1}), [])
    with pytest.raises(ValueError, match="non-empty"):
        bridge.functional([x], [])
