"""Writes tf.keras SavedModel folders that carry code, for the safe_mode tests (run in a subprocess:
``python safe_mode_writer.py FOLDER``).

``residual_savedmodel`` and ``dropout_savedmodel`` hold an RNN whose cell wrapper (tf_keras's ``ResidualWrapper``,
``DropoutWrapper``) carries a Python lambda that writes ``FOLDER/<name>.ran`` when it runs (the path is the lambda's
default argument); the writer deletes the file its own tracing wrote. ``custom_savedmodel`` holds a layer whose class
a reader does not have (legacy_writer's ``Scaled``), which only the folder's graph can run. ``functional_savedmodel``
holds built-in layers only, with the writer's weights and predictions in ``functional.npz``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import tf_keras
from legacy_writer import Scaled
from tf_keras.src.layers.rnn.cell_wrappers import DropoutWrapper, ResidualWrapper


def main(folder: Path) -> None:
    tf_keras.utils.set_random_seed(5)
    residual_marker, dropout_marker = str(folder / "residual.ran"), str(folder / "dropout.ran")
    cells = {
        "residual": ResidualWrapper(tf_keras.layers.GRUCell(3), residual_fn=lambda i, o, p=residual_marker: (
            __import__("pathlib").Path(p).write_text("ran"), o)[1]),
        "dropout": DropoutWrapper(tf_keras.layers.GRUCell(3), state_keep_prob=0.9,
                                  dropout_state_filter_visitor=lambda s, p=dropout_marker: (
                                      __import__("pathlib").Path(p).write_text("ran"), True)[1]),
    }
    for name, cell in cells.items():
        inputs = tf_keras.Input((4, 3))
        tf_keras.Model(inputs, tf_keras.layers.RNN(cell)(inputs)).save(folder / f"{name}_savedmodel", save_format="tf")
        (folder / f"{name}.ran").unlink(missing_ok=True)

    inputs = tf_keras.Input(shape=(6,), name="features")
    outputs = tf_keras.layers.Dense(3, name="head")(Scaled(5, name="scaled")(inputs))
    tf_keras.Model(inputs, outputs, name="custom").save(folder / "custom_savedmodel", save_format="tf")

    x = np.random.default_rng(2).normal(size=(8, 6)).astype("float32")
    inputs = tf_keras.Input(shape=(6,), name="features")
    hidden = tf_keras.layers.BatchNormalization(name="norm")(tf_keras.layers.Dense(4, name="dense")(inputs))
    functional = tf_keras.Model(inputs, tf_keras.layers.Dense(2, name="head")(hidden), name="functional")
    functional.compile(optimizer=tf_keras.optimizers.Adam(0.01), loss="mse")
    functional.fit(x, x[:, :2], epochs=2, verbose=0)
    functional.save(folder / "functional_savedmodel", save_format="tf")
    np.savez(folder / "functional.npz", x=x, predictions=functional.predict(x, verbose=0),
             **{f"w{i}": w for i, w in enumerate(functional.get_weights())})


if __name__ == "__main__":
    main(Path(sys.argv[1]))
