"""Writes tf.keras 2 model files with the tf-keras package (run in a subprocess: ``python legacy_writer.py FOLDER``).

Beside each model it stores, in ``FOLDER/<name>.npz``, the writer's weights (``w0``, ``w1``, ...) and its
predictions on ``x``, so a reader can be checked against the writer and not against itself.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import tf_keras


def _base(name: str) -> tf_keras.Model:
    inputs = tf_keras.Input(shape=(6,), name="features")
    hidden = tf_keras.layers.Dense(8, activation="relu", name="base_dense")(inputs)
    hidden = tf_keras.layers.BatchNormalization(name="base_norm")(hidden)
    outputs = tf_keras.layers.Dense(3, name="head")(hidden)
    return tf_keras.Model(inputs, outputs, name=name)


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


if __name__ == "__main__":
    main(Path(sys.argv[1]))
