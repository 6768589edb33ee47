"""The base model of csharp/FineTune.cs: a tf.keras 2 digits classifier for 0-4, saved as a whole-model .h5.

Run:  .venv/bin/python interop_examples/python/digits04_tf_keras.py digits04.h5 [--epochs 30]

Written with the tf-keras package (TensorFlow 2.x's Keras, `pip install "tfnet-train[legacy]"`) as a Python
pipeline of that era would: Dense layers compiled with a loss object, trained, `model.save("digits04.h5")`. The
digits are tfnet_train.demo.digits_split's training set, keeping the labels 0 to 4.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tf_keras  # noqa: E402

from tfnet_train.demo import digits_split  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", help="the .h5 file to write")
    parser.add_argument("--epochs", type=int, default=30)
    args = parser.parse_args()
    x_train, y_train, x_test, y_test = digits_split()
    keep, keep_test = y_train < 5, y_test < 5
    tf_keras.utils.set_random_seed(0)
    inputs = tf_keras.Input(shape=(64,), name="pixels")
    h = tf_keras.layers.Dense(64, activation="relu", name="hidden1")(inputs)
    h = tf_keras.layers.Dense(32, activation="relu", name="hidden2")(h)
    outputs = tf_keras.layers.Dense(5, name="head")(h)
    model = tf_keras.Model(inputs, outputs, name="digits04")
    model.compile(optimizer=tf_keras.optimizers.Adam(0.005),
                  loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    model.fit(x_train[keep], y_train[keep], batch_size=32, epochs=args.epochs, verbose=0)
    _, accuracy = model.evaluate(x_test[keep_test], y_test[keep_test], verbose=0)
    model.save(args.path)
    print(f"tf.keras {tf_keras.__version__}: digits 0-4, test accuracy {accuracy:.4f}, saved to {args.path}")
    print(f"weights: {sum(int(np.prod(w.shape)) for w in model.get_weights())} values")


if __name__ == "__main__":
    main()
