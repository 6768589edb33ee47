"""What a crossing of the bridge costs: the XOR program from C# against Python, and a call that does nothing.

  XOR fit         the XOR program of TensorFlow.NET's tracker (4 samples, 2-8-1 network, SGD, MSE):
                  C# `Model.Fit(x, y, epochs: 1000, verbose: 0)` against the same `model.fit` in Python, the first
                  fit of a new model (tracing included), and the best of 3 later fits; C# / Python
                                                                                          target <= 1.05x
  no-op call      C#: a hop to the Python thread (`PythonRuntime.Run(() => 0)`), a cached Python `lambda: None`
                  called through it, and a model property read (`Model.StopTraining`), microseconds per call

C# (dotnet/bin/TfNetTrain.Bench.exe, modes "xor" and "noop") and Python run in separate processes, one after the
other, alternating for --rounds rounds; the best of the rounds is printed (the machine is shared: the best is the
run least disturbed by others). Nothing is judged (this machine is shared and noisy).

Run: .venv/bin/python benchmarks/bench_bridge_calls.py [--rounds 2] [--epochs 1000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_bridge import _csharp, _result, run_results  # noqa: E402


def python_xor(epochs: int, later: int) -> None:
    """The Python half of the XOR measure: what the C# "xor" mode does."""
    import keras
    import numpy as np

    import tfnet_train
    from tfnet_train import optimizers

    x = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], "float32")
    y = np.array([0, 1, 1, 0], "float32")
    keras.utils.set_random_seed(0)
    model = tfnet_train.Sequential([keras.Input((2,)), keras.layers.Dense(8, activation="tanh"),
                                    keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizers.SGD(learning_rate=0.1), keras.losses.MeanSquaredError(), metrics=["accuracy"])
    start = time.perf_counter()
    model.fit(x, y, epochs=epochs, verbose=0)
    first = time.perf_counter() - start
    best = float("inf")
    for _ in range(later):
        start = time.perf_counter()
        history = model.fit(x, y, epochs=epochs, verbose=0)
        best = min(best, time.perf_counter() - start)
    _result("xor", first_fit_s=first, later_fit_s=best, epochs=epochs, final_loss=float(history.history["loss"][-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=1000)
    parser.add_argument("--later", type=int, default=3, help="later fits per process (the best is kept)")
    parser.add_argument("--quick", action="store_true", help="one round of 200 epochs (a smoke run)")
    parser.add_argument("--python-xor", type=int, nargs=2, metavar=("EPOCHS", "LATER"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.python_xor is not None:
        python_xor(*args.python_xor)
        return
    if args.quick:
        args.rounds, args.epochs, args.later = 1, 200, 1

    print(f"bridge calls: XOR {args.epochs} one-step epochs, C# and Python processes alternating, "
          f"best of {args.rounds}\n")
    cs, py = [], []
    counts = (str(args.epochs), str(args.later))
    for _ in range(args.rounds):
        cs += run_results(_csharp("xor", *counts))
        py += run_results([sys.executable, str(Path(__file__).resolve()), "--python-xor", *counts])
    for key, label in (("first_fit_s", "XOR first fit"), ("later_fit_s", "XOR later fit")):
        c, p = min(r[key] for r in cs), min(r[key] for r in py)
        print(f"{label:<22} C# {c:.3f} s, Python {p:.3f} s{'':<16} C#/Python {c / p:6.3f}   target <= 1.05")
    print(f"{'':<22} final loss C# {cs[-1]['final_loss']:.6f}, Python {py[-1]['final_loss']:.6f}")

    noop = run_results(_csharp("noop"))[0]
    print(f"\n{'no-op bridge call':<22} hop to the Python thread {noop['hop_us']:.2f} us, cached Python no-op "
          f"{noop['call_us']:.2f} us, model property {noop['property_us']:.2f} us (per call)")


if __name__ == "__main__":
    main()
