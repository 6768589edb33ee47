"""Writes tf.keras 2 model files with the tf-keras package (run in a subprocess: ``python legacy_writer.py FOLDER``).

Beside each model it stores, in ``FOLDER/<name>.npz``, the writer's weights (``w0``, ``w1``, ...) and its
predictions on ``x``, so a reader can be checked against the writer and not against itself.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import tensorflow as tf
import tf_keras


def _base(name: str) -> tf_keras.Model:
    inputs = tf_keras.Input(shape=(6,), name="features")
    hidden = tf_keras.layers.Dense(8, activation="relu", name="base_dense")(inputs)
    hidden = tf_keras.layers.BatchNormalization(name="base_norm")(hidden)
    outputs = tf_keras.layers.Dense(3, name="head")(hidden)
    return tf_keras.Model(inputs, outputs, name=name)


class Scaled(tf_keras.layers.Layer):
    """A custom layer the reader has no class for: a regularized kernel, a non-trainable scale, an activity loss
    and a factor applied in training only."""

    def __init__(self, units: int, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape: tf.TensorShape) -> None:
        self.kernel = self.add_weight(name="kernel", shape=(input_shape[-1], self.units),
                                      initializer="glorot_uniform", regularizer=tf_keras.regularizers.l2(0.01))
        self.scale = self.add_weight(name="scale", shape=(self.units,), initializer="ones", trainable=False)

    def call(self, inputs: tf.Tensor, training: bool | None = None) -> tf.Tensor:
        outputs = tf.matmul(inputs, self.kernel) * self.scale
        self.add_loss(0.001 * tf.reduce_mean(tf.square(outputs)))
        return outputs * 0.9 if training else outputs

    def get_config(self) -> dict[str, object]:
        return {**super().get_config(), "units": self.units}


class TwoLayers(tf_keras.Model):
    """A subclassed model the reader has no class for (no get_config): it is revived whole."""

    def __init__(self) -> None:
        super().__init__(name="two_layers")
        self.hidden = tf_keras.layers.Dense(4, activation="relu", name="hidden")
        self.out = tf_keras.layers.Dense(2, name="out")

    def call(self, inputs: tf.Tensor, training: bool | None = None) -> tf.Tensor:
        return self.out(self.hidden(inputs))


def main(folder: Path) -> None:
    rng = np.random.default_rng(7)
    x = rng.normal(size=(16, 6)).astype("float32")
    y = rng.integers(0, 3, size=16)
    tf_keras.utils.set_random_seed(3)

    def store(model: tf_keras.Model, name: str) -> None:
        arrays = {f"w{i}": w for i, w in enumerate(model.get_weights())}
        np.savez(folder / f"{name}.npz", x=x, y=y, predictions=model.predict(x, verbose=0), **arrays)

    functional = _base("functional")
    functional.compile(optimizer=tf_keras.optimizers.Adam(0.01),
                       loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                       metrics=["accuracy", tf_keras.metrics.SparseTopKCategoricalAccuracy(k=2, name="top2")])
    functional.fit(x, y, epochs=2, verbose=0)
    functional.save(folder / "functional.h5")
    functional.save(folder / "functional_savedmodel", save_format="tf")
    functional.save_weights(folder / "functional_weights.h5")
    store(functional, "functional")

    sequential = tf_keras.Sequential([tf_keras.layers.Dense(4, activation="tanh", input_shape=(6,), name="d"),
                                      tf_keras.layers.Dense(1, name="out")], name="sequential")
    sequential.compile(optimizer=tf_keras.optimizers.SGD(0.05, momentum=0.9), loss="mse", metrics=["mae"])
    sequential.fit(x, y.astype("float32"), epochs=2, verbose=0)
    sequential.save(folder / "sequential.h5")
    store(sequential, "sequential")

    decayed = _base("decayed")
    decayed.compile(optimizer=tf_keras.optimizers.legacy.SGD(0.1, decay=0.01),
                    loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    decayed.save(folder / "decayed.h5")
    store(decayed, "decayed")

    with_lambda = tf_keras.Sequential([tf_keras.layers.Dense(2, input_shape=(6,)),
                                       tf_keras.layers.Lambda(lambda t: t * 2.0)])
    with_lambda.save(folder / "lambda.h5")
    with_lambda.save(folder / "lambda_savedmodel", save_format="tf")

    inputs = tf_keras.Input(shape=(6,), name="features")
    outputs = tf_keras.layers.Dense(3, name="head")(Scaled(5, name="scaled")(inputs))
    custom = tf_keras.Model(inputs, outputs, name="custom")
    custom.compile(optimizer=tf_keras.optimizers.SGD(0.05),
                   loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    custom.save(folder / "custom_savedmodel", save_format="tf")
    store(custom, "custom")
    history = custom.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0).history  # what a reader's fit gives
    np.savez(folder / "custom_trained.npz", loss=np.array(history["loss"]),
             **{f"w{i}": w for i, w in enumerate(custom.get_weights())})

    subclassed = TwoLayers()
    subclassed.compile(optimizer=tf_keras.optimizers.SGD(0.1), loss="mse")
    targets = x[:, :2] * 0.5
    subclassed.fit(x, targets, epochs=1, verbose=0)
    subclassed.save(folder / "subclassed_savedmodel", save_format="tf")
    store(subclassed, "subclassed")
    history = subclassed.fit(x, targets, batch_size=4, epochs=2, shuffle=False, verbose=0).history
    np.savez(folder / "subclassed_trained.npz", loss=np.array(history["loss"]), targets=targets,
             **{f"w{i}": w for i, w in enumerate(subclassed.get_weights())})


if __name__ == "__main__":
    main(Path(sys.argv[1]))
