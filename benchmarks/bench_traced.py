"""C# code inside compiled TensorFlow, against the same code written in Python.

For each model (a small MLP 20-64-5 with batches of 64, and MLP 784-256-10 with batches of 128; SGD, sparse
categorical cross-entropy from logits), in rounds of Python, Mono, .NET (each its own process, same sizes):

  traced loop      a C# GradientTape step (Apply, loss Call, gradient, apply_gradients) wrapped in tf.function
                   vs the same step in Python under @tf.function (the TensorFlow guide's fast loop)  target >= 0.9x
  vs eager C#      the traced C# loop vs the same C# step run eagerly (op by op through the bridge)  target >= 10x
  subclass fit     fit of a C# Model subclass (Call over two Dense layers) vs fit of its Python twin target >= 0.95x
  Python fit       fit of the Python Sequential, printed beside them
  host calls       how often C# was entered: the traced step once per input signature (TensorFlow traces twice when
                   the first call creates variables), the subclassed model a few times per fit

Each figure is the best of its timed runs over all rounds (load on a shared machine only ever slows a run down, so
the fastest run is the least disturbed one), rounds interleaved Python, Mono, .NET; ratios are speeds (higher is
better), each C# figure against the Python figure of the same run. The Python eager loop (the same step without
@tf.function) is printed as TensorFlow's own graph/eager ratio: the bound the traced/eager C# ratio meets on a
model whose step is dominated by its matrix products. The script prints, it never judges.

Run: .venv/bin/python benchmarks/bench_traced.py [--rounds 3] [--steps 400] [--repeats 3] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = ROOT / "dotnet" / "bin"
EXE = BIN / "TfNetTrain.TracedBench.exe"
CORECLR = BIN / "coreclr" / "TfNetTrain.TracedBench.dll"
ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
MODELS = {"small 20-64-5": (20, 64, 5, 64), "mlp 784-256-10": (784, 256, 10, 128)}


def python_half(features: int, hidden: int, classes: int, batch: int, steps: int, repeats: int) -> dict[str, float]:
    """The Python twin of TfNetTrain.TracedBench: the @tf.function loop, the subclass fit and Sequential fit."""
    import keras
    import numpy as np
    import tensorflow as tf

    import tfnet_train
    from tfnet_train import optimizers

    rng = np.random.default_rng(0)
    batches = [(tf.constant(rng.random((batch, features), dtype=np.float32)),
                tf.constant(rng.integers(0, classes, batch))) for _ in range(8)]
    model = tfnet_train.Sequential([keras.Input((features,)), keras.layers.Dense(hidden, activation="relu"),
                                    keras.layers.Dense(classes)])
    optimizer = optimizers.SGD(0.01)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    variables = model.trainable_variables

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss

    def loop(count: int, run_step=step) -> int:
        loss = None
        for i in range(count):
            loss = run_step(*batches[i % len(batches)])
        loss.numpy()
        return count

    class Mlp(tfnet_train.Model):
        def __init__(self):
            super().__init__(name="mlp")
            self.hidden = keras.layers.Dense(hidden, activation="relu")
            self.out = keras.layers.Dense(classes)

        def call(self, x, training=None):
            return self.out(self.hidden(x))

    samples = batch * 16
    x0 = rng.random((samples, features), dtype=np.float32)
    y0 = rng.integers(0, classes, samples)
    epochs = max(1, steps // 16)

    def fit_rate(m) -> float:
        m.compile(optimizers.SGD(0.01), keras.losses.SparseCategoricalCrossentropy(from_logits=True))

        def run() -> int:
            m.fit(x0, y0, batch_size=batch, epochs=epochs, verbose=0, shuffle=False)
            return 16 * epochs

        return _best(repeats, lambda: m.fit(x0, y0, batch_size=batch, epochs=1, verbose=0, shuffle=False), run)

    sequential = tfnet_train.Sequential([keras.Input((features,)), keras.layers.Dense(hidden, activation="relu"),
                                         keras.layers.Dense(classes)])
    eager, eager_steps = step.python_function, max(10, steps // 20)  # the same step, op by op
    return {"traced": _best(repeats, lambda: loop(20), lambda: loop(steps)),
            "eager": _best(repeats, lambda: loop(3, eager), lambda: loop(eager_steps, eager)),
            "subclass_fit": fit_rate(Mlp()), "sequential_fit": fit_rate(sequential)}


def _best(repeats: int, warm_up, run) -> float:
    """Steps per second of the fastest of ``repeats`` timed runs after one warm-up run."""
    warm_up()
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        count = run()
        rates.append(count / (time.perf_counter() - start))
    return max(rates)


def _run(command: list[str], env: dict[str, str]) -> dict[str, float]:
    proc = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, check=False, timeout=900)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _coreclr() -> tuple[list[str], dict[str, str]] | None:
    if not CORECLR.exists():
        return None
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        import coreclr  # the tests' helper: which .NET runs here and the environment it needs
        return [str(coreclr.dotnet_executable()), str(CORECLR)], {**ENV, **coreclr.environment()}
    except Exception as error:  # noqa: BLE001 (no usable .NET: the Mono rows stand alone)
        print(f"(.NET rows skipped: {error})")
        return None
    finally:
        sys.path.pop(0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="one short round (a smoke run)")
    parser.add_argument("--python", nargs=6, type=int, metavar="N", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.python:
        print(json.dumps(python_half(*args.python)))
        return
    if args.quick:
        args.rounds, args.steps, args.repeats = 1, 80, 1
    if not EXE.exists():
        raise SystemExit(f"{EXE} missing: build with dotnet/build.sh (make build)")
    runtimes = {"Mono": (["mono", str(EXE)], {**ENV, "MONO_THREADS_SUSPEND": "preemptive"})}
    dotnet = _coreclr()
    if dotnet:
        runtimes[".NET"] = dotnet
    print(f"C# code in compiled TensorFlow; {args.rounds} rounds of Python, " + ", ".join(runtimes)
          + f"; {args.steps} steps per timed run, best of {args.repeats} per round and of all rounds; steps/s")
    for label, sizes in MODELS.items():
        numbers = [str(n) for n in (*sizes, args.steps, args.repeats)]
        python, csharp = [], {name: [] for name in runtimes}
        for _ in range(args.rounds):
            python.append(_run([sys.executable, __file__, "--python", *numbers], ENV))
            for name, (command, env) in runtimes.items():
                csharp[name].append(_run([*command, *numbers], env))
        py = {k: max(r[k] for r in python) for k in python[0]}
        print(f"\n{label} (batch {sizes[3]})")
        print(f"  Python @tf.function loop {py['traced']:9.0f}   Python subclass fit {py['subclass_fit']:8.0f}   "
              f"Python Sequential fit {py['sequential_fit']:8.0f}")
        print(f"  Python eager loop {py['eager']:9.0f}   Python traced/eager {py['traced'] / py['eager']:6.1f}x "
              "(TensorFlow's own graph/eager ratio for this step)")
        for name, results in csharp.items():
            cs = {k: max(r[k] for r in results) for k in results[0]}
            print(f"  {name:<5} traced loop {cs['traced']:9.0f}  ratio {cs['traced'] / py['traced']:6.3f}  (>= 0.9)   "
                  f"eager loop {cs['eager']:7.0f}  traced/eager {cs['traced'] / cs['eager']:6.1f}x  (>= 10)")
            fit_ratio = cs["subclass_fit"] / py["subclass_fit"]
            print(f"        subclass fit {cs['subclass_fit']:8.0f}  ratio {fit_ratio:6.3f}  "
                  f"(>= 0.95)   C# entered: traced step {int(cs['traced_host_calls'])} times in "
                  f"{int(cs['traced_steps'])} steps, subclass Call {int(cs['subclass_host_calls'])} times")


if __name__ == "__main__":
    main()
