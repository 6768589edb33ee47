"""tfnet_train.Trainer mixed into a Keras layer, as Keras's own tests mix its backend trainer into layers."""

from __future__ import annotations

import keras
import numpy as np
import pytest
from keras.src.backend.tensorflow.trainer import TensorFlowTrainer

import tfnet_train
from tfnet_train.tolerances import assert_close


def dense_model(trainer: type) -> keras.layers.Layer:
    class DenseModel(trainer, keras.layers.Dense):
        def __init__(self) -> None:
            keras.layers.Dense.__init__(self, units=2, kernel_initializer=keras.initializers.Constant(0.5))
            trainer.__init__(self)

    return DenseModel()


def test_a_dense_layer_with_the_engine_trainer_trains_as_with_keras_trainer() -> None:
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=(32, 3)).astype("float32"), rng.normal(size=(32, 2)).astype("float32")
    reference, model = dense_model(TensorFlowTrainer), dense_model(tfnet_train.Trainer)
    reference.compile(keras.optimizers.SGD(0.1, momentum=0.9), "mse", metrics=["mae"])
    model.compile(tfnet_train.optimizers.SGD(0.1, momentum=0.9), "mse", metrics=["mae"])
    expected = reference.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0).history
    history = model.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0).history
    for name, values in expected.items():
        assert_close(history[name], values, what=name)
    for ours, theirs in zip(model.get_weights(), reference.get_weights(), strict=True):
        assert_close(ours, theirs, what="weights")
    assert int(model._train_counter.numpy()) == 12  # the engine's TF.NET counter: 4 steps x 3 epochs
    assert_close(model.evaluate(x, y, verbose=0), reference.evaluate(x, y, verbose=0), what="evaluate")
    trace = model.train_step_traced(x[:8], y[:8])
    assert trace.clipped_gradients[0].shape == (3, 2)


def test_the_engine_trainer_checks_compile_first() -> None:
    model = dense_model(tfnet_train.Trainer)
    with pytest.raises(ValueError, match=r"fit\(\) needs a compiled model"):
        model.fit(np.ones((4, 3), "float32"), np.ones((4, 2), "float32"), verbose=0)
