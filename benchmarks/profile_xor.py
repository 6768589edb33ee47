"""Where the XOR program's per-epoch time goes: 1000 one-step epochs timed, then 300 under cProfile.

Run: .venv/bin/python benchmarks/profile_xor.py [--rows 25]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402

import tfnet_train  # noqa: E402
from tfnet_train import optimizers  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=25, help="profile rows to print")
    parser.add_argument("--sort", default="tottime", help="pstats sort key (tottime, cumtime, ...)")
    args = parser.parse_args()
    x = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], "float32")
    y = np.array([0, 1, 1, 0], "float32")
    keras.utils.set_random_seed(0)
    layers = [keras.Input((2,)), keras.layers.Dense(4, activation="tanh"), keras.layers.Dense(4, activation="tanh"),
              keras.layers.Dense(1, activation="sigmoid")]
    model = tfnet_train.Sequential(layers)
    model.compile(optimizers.SGD(0.1), "binary_crossentropy", metrics=["accuracy"])
    model.fit(x, y, epochs=5, verbose=0)  # traces
    start = time.perf_counter()
    model.fit(x, y, epochs=1000, verbose=0)
    print(f"XOR 1000 one-step epochs: {time.perf_counter() - start:.2f} s")
    profile = cProfile.Profile()
    profile.enable()
    model.fit(x, y, epochs=300, verbose=0)
    profile.disable()
    pstats.Stats(profile).sort_stats(args.sort).print_stats(args.rows)


if __name__ == "__main__":
    main()
