"""host_code: host delegates, layers, models, losses and metrics traced into TensorFlow, driven by Python stand-ins
for the C# objects (the C# side runs the same protocol in dotnet/tests/TfNetTrain.Tests/HostCodeTests.cs)."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import tfnet_train
from tfnet_train import optimizers
from tfnet_train.bridge import host_code, tensors


class Delegate:
    """What HostCode.Invoke does for a C# delegate: the tensors in, tensors back."""

    def __init__(self, body):
        self.body = body
        self.calls = 0

    def Invoke(self, args):  # noqa: N802 (the C# method name)
        self.calls += 1
        return self.body(*args)


def test_a_host_function_runs_once_per_signature() -> None:
    host = Delegate(lambda x: x * 2.0 + 1.0)
    f = host_code.host_function(host, "twice", 1)
    np.testing.assert_array_equal(f([tf.constant([1.0, 2.0])]).numpy(), [3.0, 5.0])
    np.testing.assert_array_equal(f([tf.constant([0.0, -1.0])]).numpy(), [1.0, -1.0])
    assert (host.calls, f.host_calls, f.traces) == (1, 1, 1)
    f([tf.constant([[1.0]])])
    assert (host.calls, f.traces) == (2, 2)


def test_a_signature_fixes_the_accepted_inputs() -> None:
    host = Delegate(lambda x: x + 1.0)
    f = host_code.host_function(host, "rows_of_three", 1, [([-1, 3], "float32")])
    f([tf.zeros((2, 3))])
    f([tf.zeros((5, 3))])
    assert host.calls == 1
    expected = r"'rows_of_three' was called with \(\(2, 4\) float32\).*\(\(None, 3\) float32\)"
    with pytest.raises(ValueError, match=expected):
        f([tf.zeros((2, 4))])
    unknown = host_code.host_function(Delegate(lambda x: x * x), "square", 1, [(None, "float32")])
    unknown([tf.constant(2.0)])
    unknown([tf.ones((2, 2))])
    assert unknown.host_calls == 1


def test_results_of_the_wrong_structure_name_the_function() -> None:
    with pytest.raises(TypeError, match=r"'pair' must return 1 tensor\(s\); it returned 2"):
        host_code.host_function(Delegate(lambda x: [x, x]), "pair", 1)([tf.constant(1.0)])
    with pytest.raises(TypeError, match=r"'none' must return tensors; item 0 of its result is null"):
        host_code.host_function(Delegate(lambda x: None), "none", -1)([tf.constant(1.0)])


def test_numpy_of_a_symbolic_tensor_names_the_traced_function() -> None:
    def body(x):
        tensors.tensor_numpy(x)
        return x

    with pytest.raises(TypeError, match=r"tensor\.numpy\(\) needs an eager tensor.*while 'reads' is traced"):
        host_code.host_function(Delegate(body), "reads", 1)([tf.constant(1.0)])
    assert tensors.tensor_numpy(tf.constant(3.0)) == 3.0


def test_a_failed_trace_keeps_no_graph() -> None:
    calls = []

    def body(x):
        calls.append(1)
        raise RuntimeError("boom")

    f = host_code.host_function(Delegate(body), "fails", 1)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="boom"):
            f([tf.constant(1.0)])
    assert len(calls) == 2 and f.traces == 0


class HostDense:
    """What HostCode does for a C# Layer subclass that owns a kernel and a bias."""

    def __init__(self, units: int):
        self.units = units
        self.layer = None

    def Build(self, input_shape):  # noqa: N802
        self.kernel = host_code.layer_add_weight(self.layer, "kernel", [input_shape[-1], self.units], "float32",
                                                 "glorot_uniform", True)
        self.bias = host_code.layer_add_weight(self.layer, "bias", [self.units], "float32", "zeros", True)

    def Call(self, inputs, training):  # noqa: N802
        return tf.nn.relu(tf.matmul(inputs, self.kernel) + self.bias)


class HostMlp:
    """What HostCode does for a C# Model subclass whose Call applies the layers it owns."""

    def __init__(self, hidden, out):
        self.hidden, self.out = hidden, out

    def Call(self, inputs, training):  # noqa: N802
        return self.out(self.hidden(inputs))


class PyDense(keras.layers.Layer):
    def __init__(self, units, name=None):
        super().__init__(name=name)
        self.units = units

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), initializer="glorot_uniform", name="kernel")
        self.bias = self.add_weight(shape=(self.units,), initializer="zeros", name="bias")

    def call(self, x):
        return tf.nn.relu(tf.matmul(x, self.kernel) + self.bias)


class PyMlp(tfnet_train.Model):
    def __init__(self):
        super().__init__()
        self.hidden = PyDense(8)
        self.out = keras.layers.Dense(3)

    def call(self, x, training=None):
        return self.out(self.hidden(x))


def _host_mlp(has_train_step: bool = False, host=None) -> host_code.HostModel:
    dense = HostDense(8)
    dense.layer = host_code.host_layer(dense, "hidden", True, "float32", True, [])
    host = host or HostMlp(None, None)
    host.hidden, host.out = dense.layer, keras.layers.Dense(3, name="logits")
    return host_code.host_model(host, "host_mlp", True, has_train_step, [host.hidden, host.out])


@pytest.mark.parametrize("semantics", ["keras", "tfnet"])
def test_a_host_model_fits_like_its_python_twin(semantics: str) -> None:
    x = np.random.default_rng(1).random((40, 4), dtype=np.float32)
    y = np.random.default_rng(2).integers(0, 3, 40)
    host, twin = _host_mlp(), PyMlp()
    for model in (host, twin):
        model.compile(optimizers.SGD(0.05, momentum=0.9), keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"], semantics=semantics)
        model(x[:1])
    assert [w.shape for w in host.get_weights()] == [(4, 8), (8,), (8, 3), (3,)]
    twin.set_weights(host.get_weights())
    h1 = host.fit(x, y, batch_size=16, epochs=3, verbose=0, shuffle=False)
    calls = host.host_calls
    h2 = twin.fit(x, y, batch_size=16, epochs=3, verbose=0, shuffle=False)
    assert h1.history == h2.history
    for a, b in zip(host.get_weights(), twin.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert calls < 9, "the host's Call runs while tracing, not per step"
    host.fit(x, y, batch_size=16, epochs=1, verbose=0, shuffle=False)
    assert host.host_calls == calls
    trace = host.train_step_traced(x[:16], y[:16])
    assert len(trace.clipped_gradients) == 4


class HostScaledMlp(HostMlp):
    """A C# Model subclass that overrides build: a weight of its own (a scale per output) from add_weight."""

    def Build(self, input_shape):  # noqa: N802
        self.scale = host_code.layer_add_weight(self.model, "scale", [3], "float32", "ones", True)

    def Call(self, inputs, training):  # noqa: N802
        return self.out(self.hidden(inputs)) * self.scale


class PyScaledMlp(PyMlp):
    def build(self, input_shape):
        self.scale = self.add_weight(shape=(3,), initializer="ones", name="scale")

    def call(self, x, training=None):
        return self.out(self.hidden(x)) * self.scale


def test_a_host_model_that_overrides_build_owns_its_weights_and_fits_like_its_twin() -> None:
    x = np.random.default_rng(3).random((32, 4), dtype=np.float32)
    y = np.random.default_rng(4).integers(0, 3, 32)
    dense = HostDense(8)
    dense.layer = host_code.host_layer(dense, "hidden", True, "float32", True, [])
    host = HostScaledMlp(dense.layer, keras.layers.Dense(3, name="logits"))
    model = host_code.host_model(host, "scaled", True, False, [host.hidden, host.out], has_build=True)
    host.model = model
    assert isinstance(model, host_code.HostBuiltModel)
    twin = PyScaledMlp()
    for m in (model, twin):
        m.compile(optimizers.Adam(0.01), keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        m(x[:1])
    assert [w.shape for w in model.get_weights()] == [(3,), (4, 8), (8,), (8, 3), (3,)], "its own weight first"
    np.testing.assert_array_equal(model.get_weights()[0], np.ones(3, np.float32))
    twin.set_weights(model.get_weights())
    h1 = model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    h2 = twin.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    assert h1.history == h2.history
    for a, b in zip(model.get_weights(), twin.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(model.get_weights()[0], np.ones(3, np.float32)), "the scale trains"


class HostOwnStep(HostMlp):
    """A C# train_step override, as HostCode.TrainStep runs it."""

    def __init__(self):
        self.model = None

    def TrainStep(self, x, y, sample_weight):  # noqa: N802
        model = self.model
        with tf.GradientTape() as tape:
            y_pred = model(x, training=True)
            loss = host_code.compute_loss(model, x, y, y_pred, sample_weight)
        grads = tape.gradient(loss, model.trainable_variables)
        model.optimizer.apply_gradients(zip(grads, model.trainable_variables))
        model.metrics[0].update_state(loss)
        return host_code.compute_metrics(model, x, y, y_pred, sample_weight)


def test_a_host_train_step_trains_like_the_engines_default() -> None:
    x = np.random.default_rng(3).random((32, 4), dtype=np.float32)
    y = np.random.default_rng(4).integers(0, 3, 32)
    owner = HostOwnStep()
    host, plain = _host_mlp(True, owner), _host_mlp()
    owner.model = host
    for model in (host, plain):
        model.compile(optimizers.SGD(0.1), keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
        model(x[:1])
    plain.set_weights(host.get_weights())
    h1 = host.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    h2 = plain.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(h1.history["loss"], h2.history["loss"], rtol=1e-6)
    assert h1.history["accuracy"] == h2.history["accuracy"]


class HostSquaredError:
    def Apply(self, y_true, y_pred):  # noqa: N802
        return tf.reduce_mean(tf.square(y_pred - y_true), axis=-1)


class HostMae:
    def __init__(self):
        self.metric = None

    def UpdateState(self, y_true, y_pred, sample_weight):  # noqa: N802
        e = tf.abs(y_pred - y_true)
        self.total.assign_add(tf.reduce_sum(e))
        self.count.assign_add(tf.cast(tf.size(e), tf.float32))

    def Result(self):  # noqa: N802
        return self.total / tf.maximum(self.count, 1.0)

    def ResetStates(self):  # noqa: N802
        host_code.metric_reset_default(self.metric)


def test_host_losses_and_metrics_give_keras_numbers() -> None:
    x = np.random.default_rng(5).random((24, 4), dtype=np.float32)
    y = np.random.default_rng(6).random((24, 3), dtype=np.float32)
    mae = HostMae()
    mae.metric = host_code.host_metric(mae, "host_mae", None)
    mae.total = host_code.metric_add_weight(mae.metric, "total", [], None, "zeros")
    mae.count = host_code.metric_add_weight(mae.metric, "count", [], None, "zeros")
    loss = host_code.host_loss(HostSquaredError(), "host_se", "auto")
    assert loss.reduction == "sum_over_batch_size"
    a = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    b = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    b.set_weights(a.get_weights())
    a.compile(optimizers.SGD(0.1), loss, metrics=[mae.metric])
    b.compile(optimizers.SGD(0.1), "mse", metrics=["mae"])
    h1 = a.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    h2 = b.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(h1.history["loss"], h2.history["loss"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h1.history["host_mae"], h2.history["mae"], rtol=1e-5, atol=1e-6)
    mae.metric.reset_state()
    assert float(mae.metric.result()) == 0.0


def test_keras_variables_update_like_tf_variables_and_check_the_shape_first() -> None:
    v = keras.metrics.Mean().add_variable(shape=(2,), initializer="zeros", name="state")  # what C# add_weight gives
    tensors.variable_assign(v, "assign_add", [1.0, 1.0])
    np.testing.assert_array_equal(np.asarray(v), [1.0, 1.0])
    with pytest.raises(ValueError, match=r"assign: value shape \(3,\) does not match variable .* shape \(2,\)"):
        tensors.variable_assign(v, "assign", [1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="variable must be a tf.Variable or a Keras variable; got list"):
        tensors.variable_assign([1.0], "assign", [1.0])
    np.testing.assert_array_equal(np.asarray(v), [1.0, 1.0])


def test_cells_step_and_wrap_as_keras_builds_them() -> None:
    cell = keras.layers.LSTMCell(4)
    out = host_code.cell_call(cell, [tf.ones((2, 3))], [tf.zeros((2, 4)), tf.zeros((2, 4))])
    assert [tuple(t.shape) for t in out] == [(2, 4), (2, 4), (2, 4)]
    stacked = host_code.composed_layer("StackedRNNCells", {}, ["cells"], [[keras.layers.SimpleRNNCell(4),
                                                                           keras.layers.SimpleRNNCell(5)]])
    rnn = host_code.composed_layer("RNN", {"return_sequences": True}, ["cell"], [stacked])
    assert tuple(rnn(tf.ones((3, 6, 2))).shape) == (3, 6, 5)
    assert len(host_code.layer_variables(rnn, "trainable_weights")) == 6
    with pytest.raises(ValueError, match="which must be"):
        host_code.layer_variables(rnn, "variables")


def test_model_shapes_read_the_first_of_several() -> None:
    a, b = keras.Input((3,)), keras.Input((2,))
    model = tfnet_train.Model([a, b], keras.layers.Dense(4)(keras.layers.Concatenate()([a, b])))
    assert host_code.model_shape(model, "output_shape") == (None, 4)
    assert host_code.model_shape(model, "input_shape") == (None, 3)
    with pytest.raises(ValueError, match="name must be"):
        host_code.model_shape(model, "shape")
