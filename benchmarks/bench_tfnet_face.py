"""The TensorFlow.NET-shaped C# surface (TfNetTrain.TensorFlowNet) against the same work done in Python.

MLP 784-128-10, batch 128, SGD, CPU. The C# half is dotnet/bin/TfNetTrain.FaceBench.exe (source in
dotnet/src/TfNetTrain.FaceBench, built by dotnet/build.sh) on Mono, and its .NET build when there is one; the
Python half runs in a subprocess of this script. Prints each measurement and its ratio (speed, higher is better)
against the target; it never judges (this machine is shared and noisy: compare ratios from one run).

  eager tape loop    C# tf.GradientTape step (Apply, loss Call, gradient, apply_gradients)
                     vs the same eager loop in Python                                   target >= 0.8x
  dataset fit        C# model.fit(tf.data from_tensor_slices) vs Python fit, same data  target >= 0.95x
  C# batches         C# from_generator batches vs C# array Fit of the same rows         target >= 0.8x
                     (held: Mono's default; streamed: Mono with MONO_THREADS_SUSPEND=preemptive, and .NET;
                     "new arrays": the producer allocates each batch; "refilled": it writes every batch into
                     the same arrays, which the stream allows as it copies a batch before asking for the next)

Run: .venv/bin/python benchmarks/bench_tfnet_face.py [--repeats 3] [--steps 60] [--epochs 2] [--quick]  (about 80 s;
the Python tape loop is measured beside each C# one, as the machine's speed drifts between them)
     .venv/bin/python benchmarks/bench_tfnet_face.py --stream [--repeats 5]   (the streamed C# batches rows only)
     .venv/bin/python benchmarks/bench_tfnet_face.py --alternate 5   (the tape loop only, in rounds of Python, .NET,
     Python, Mono; each C# loop against the mean of the two Python runs around it; about 4 minutes)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench_bridge import BATCH, CLASSES, FEATURES, HIDDEN, SAMPLES, _python_model  # the same model and data sizes

ROOT = Path(__file__).resolve().parents[1]
BIN = ROOT / "dotnet" / "bin"
FACE_EXE = BIN / "TfNetTrain.FaceBench.exe"
FACE_CORECLR = BIN / "coreclr" / "TfNetTrain.FaceBench.dll"
ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}


# ----- the Python half (runs in a subprocess: `bench_tfnet_face.py --python MODE REPEATS SIZE`) ------------------


def python_tape(repeats: int, steps: int) -> None:
    """The eager loop the C# tape mode runs: variables read once, batches made tensors once."""
    import keras
    import numpy as np
    import tensorflow as tf

    rng = np.random.default_rng(0)
    batches = [(tf.constant(rng.random((BATCH, FEATURES), dtype=np.float32)),
                tf.constant(rng.integers(0, CLASSES, BATCH))) for _ in range(8)]
    model = _python_model()
    optimizer = keras.optimizers.SGD(learning_rate=0.01)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    variables = model.trainable_variables

    def run(count: int) -> None:
        for step in range(count):
            x, y = batches[step % len(batches)]
            with tf.GradientTape() as tape:
                logits = model(x, training=True)
                loss = loss_fn(y, logits)
            grads = tape.gradient(loss, variables)
            optimizer.apply_gradients(zip(grads, variables))

    run(20)
    for _ in range(repeats):
        start = time.perf_counter()
        run(steps)
        _result("tape", seconds=time.perf_counter() - start, steps=steps)


def python_dataset(repeats: int, epochs: int) -> None:
    """What the C# dataset mode does, from Python."""
    import numpy as np
    import tensorflow as tf

    rng = np.random.default_rng(1)
    x = rng.random((SAMPLES, FEATURES), dtype=np.float32)
    y = rng.integers(0, CLASSES, SAMPLES)
    model = _python_model()
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(BATCH)
    model.fit(dataset, epochs=1, verbose=0)
    for _ in range(repeats):
        start = time.perf_counter()
        model.fit(dataset, epochs=epochs, verbose=0)
        _result("dataset_fit", seconds=time.perf_counter() - start, steps=epochs * SAMPLES // BATCH)


def _result(name: str, **values: float) -> None:
    print("RESULT " + json.dumps({"name": name, **values}), flush=True)


# ----- the driver ------------------------------------------------------------------------------------------------


def run_results(command: list[str], env: dict[str, str] | None = None) -> list[dict]:
    """Run a benchmark process (bounded to two minutes) and collect its RESULT lines."""
    proc = subprocess.run(command, capture_output=True, text=True, env=env or ENV, cwd=ROOT, check=False, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr[-3000:]}")
    return [json.loads(line[7:]) for line in proc.stdout.splitlines() if line.startswith("RESULT ")]


def _per_step(results: list[dict], name: str) -> float:
    return statistics.median(r["seconds"] / r["steps"] for r in results if r["name"] == name)


def _line(label: str, detail: str, ratio: float, target: str) -> None:
    print(f"{label:<24} {detail:<58} ratio {ratio:6.3f}   target {target}")


def _coreclr_command() -> tuple[list[str], dict[str, str]] | None:
    """`dotnet TfNetTrain.FaceBench.dll` and its environment, when the .NET build and a runtime are there."""
    if not FACE_CORECLR.exists():
        return None
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        import coreclr  # the tests' helper: which .NET runs here and the environment it needs
        return [str(coreclr.dotnet_executable()), str(FACE_CORECLR)], coreclr.environment()
    except Exception as error:  # noqa: BLE001 (no usable .NET: the Mono rows stand alone)
        print(f"(.NET rows skipped: {error})")
        return None
    finally:
        sys.path.pop(0)


def _streamed_lines(runtime: str, stream: list[dict]) -> None:
    arrays = _per_step(stream, "array_fit")
    for name, label in (("stream_fit", "new arrays"), ("stream_refill_fit", "refilled")):
        streamed = _per_step(stream, name)
        _line(f"C# batches (streamed{runtime}, {label})",
              f"from_generator {streamed * 1e3:.3f} ms/step, array Fit {arrays * 1e3:.3f} ms/step",
              arrays / streamed, ">= 0.8x")


def alternate_tape(rounds: int, me: list[str], mono: list[str], reps: str, steps: str) -> None:
    """The eager tape loop in rounds of Python, .NET, Python, Mono: the machine's drift shows in both Python runs."""
    dotnet = _coreclr_command()
    ratios: dict[str, list[float]] = {"Mono": [], ".NET": []}
    for r in range(rounds):
        python = _per_step(run_results([*me, "tape", reps, steps]), "tape")
        net = None
        if dotnet is not None:
            command, env = dotnet
            net = _per_step(run_results([*command, "tape", reps, steps], env={**env, "TF_CPP_MIN_LOG_LEVEL": "3"}),
                            "tape")
        python = (python + _per_step(run_results([*me, "tape", reps, steps]), "tape")) / 2
        cs = _per_step(run_results([*mono, "tape", reps, steps]), "tape")
        ratios["Mono"].append(python / cs)
        if net is not None:
            ratios[".NET"].append(python / net)
        print(f"round {r}: Python {python * 1e3:.2f}, Mono {cs * 1e3:.2f}"
              + (f", .NET {net * 1e3:.2f}" if net is not None else "") + " ms/step", flush=True)
    for runtime, values in ratios.items():
        if values:
            _line(f"eager tape loop ({runtime})", "rounds " + " ".join(f"{v:.3f}" for v in values),
                  statistics.median(values), ">= 0.8x")


def stream_only(mono: list[str], reps: str, epochs: str) -> None:
    """The streamed C# batches rows alone: Mono with preemptive suspension, then .NET when built."""
    streamed = {**ENV, "MONO_THREADS_SUSPEND": "preemptive", "TFNET_BENCH_MATERIALIZE": "false"}
    _streamed_lines("", run_results([*mono, "stream", reps, epochs], env=streamed))
    dotnet = _coreclr_command()
    if dotnet is not None:
        command, env = dotnet
        _streamed_lines(", .NET", run_results([*command, "stream", reps, epochs],
                                              env={**env, "TF_CPP_MIN_LOG_LEVEL": "3"}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--steps", type=int, default=60, help="tape steps per repeat")
    parser.add_argument("--epochs", type=int, default=2, help="epochs of 64 batches per fit")
    parser.add_argument("--quick", action="store_true", help="one repeat, fewer steps (a smoke run)")
    parser.add_argument("--alternate", type=int, metavar="ROUNDS", help="the tape loop only, in alternating rounds")
    parser.add_argument("--stream", action="store_true", help="the streamed C# batches only (Mono and .NET)")
    parser.add_argument("--python", nargs=3, metavar=("MODE", "REPEATS", "SIZE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.python:
        mode, repeats, size = args.python[0], int(args.python[1]), int(args.python[2])
        {"tape": python_tape, "dataset": python_dataset}[mode](repeats, size)
        return
    if args.quick:
        args.repeats, args.steps, args.epochs = 1, 20, 1
    if not FACE_EXE.exists():
        raise SystemExit(f"build first (dotnet/build.sh): missing {FACE_EXE}")
    me = [sys.executable, str(Path(__file__).resolve()), "--python"]
    mono = ["mono", str(FACE_EXE)]
    reps = str(args.repeats)
    if args.alternate:
        alternate_tape(args.alternate, me, mono, reps, str(args.steps))
        return

    print(f"MLP {FEATURES}-{HIDDEN}-{CLASSES}, batch {BATCH}; medians of {args.repeats}; C# on Mono unless marked .NET")
    if args.stream:
        stream_only(mono, reps, str(args.epochs))
        return
    cs_tape = _per_step(run_results([*mono, "tape", reps, str(args.steps)]), "tape")
    py_tape = _per_step(run_results([*me, "tape", reps, str(args.steps)]), "tape")
    _line("eager tape loop", f"C# {cs_tape * 1e3:.3f} ms/step, Python {py_tape * 1e3:.3f} ms/step",
          py_tape / cs_tape, ">= 0.8x")
    cs_data = _per_step(run_results([*mono, "dataset", reps, str(args.epochs)]), "dataset_fit")
    py_data = _per_step(run_results([*me, "dataset", reps, str(args.epochs)]), "dataset_fit")
    _line("dataset fit", f"C# {cs_data * 1e3:.3f} ms/step, Python {py_data * 1e3:.3f} ms/step",
          py_data / cs_data, ">= 0.95x")
    stream = run_results([*mono, "stream", reps, str(args.epochs)])
    held, arrays = _per_step(stream, "stream_fit"), _per_step(stream, "array_fit")
    _line("C# batches (held)", f"from_generator {held * 1e3:.3f} ms/step, array Fit {arrays * 1e3:.3f} ms/step",
          arrays / held, ">= 0.8x")
    stream = run_results([*mono, "stream", reps, str(args.epochs)],
                         env={**ENV, "MONO_THREADS_SUSPEND": "preemptive", "TFNET_BENCH_MATERIALIZE": "false"})
    _streamed_lines("", stream)
    dotnet = _coreclr_command()
    if dotnet is not None:
        command, env = dotnet
        stream = run_results([*command, "stream", reps, str(args.epochs)], env={**env, "TF_CPP_MIN_LOG_LEVEL": "3"})
        _streamed_lines(", .NET", stream)
        py_tape = _per_step(run_results([*me, "tape", reps, str(args.steps)]), "tape")  # measured again beside it
        tape = _per_step(run_results([*command, "tape", reps, str(args.steps)],
                                     env={**env, "TF_CPP_MIN_LOG_LEVEL": "3"}), "tape")
        _line("eager tape loop (.NET)", f"C# {tape * 1e3:.3f} ms/step, Python {py_tape * 1e3:.3f} ms/step",
              py_tape / tape, ">= 0.8x")


if __name__ == "__main__":
    main()
