"""A training process for the saving tests: each command runs in a fresh Python, as a resumed job would.

  training_worker.py resume-first DIR STEPS   every config: STEPS steps, then model.save(DIR/<config>.keras)
  training_worker.py resume-rest DIR STEPS    every config: tfnet_train.load_model, train up to STEPS, write .rest.npz
  training_worker.py whole DIR STEPS          every config: STEPS steps uninterrupted, write .whole.npz
  training_worker.py save-loop PATH KIND      save (KIND model or weights) again and again, printing "saving i" first
  training_worker.py fit-backup DIR OUT       fit with BackupAndRestore(save_freq=1) and shuffle=True, printing
                                              "step i" after each step; OUT (.npz) holds the final state
"""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402

import tfnet_train  # noqa: E402
from tfnet_train import optimizers  # noqa: E402

BATCH = 8


def configs() -> dict[str, tuple[str, object]]:
    """Name -> (profile, optimizer factory): every optimizer option the resume guarantee names."""
    schedule = keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=2, decay_rate=0.5)
    keras_side = {
        "sgd_momentum": lambda: optimizers.SGD(0.05, momentum=0.9),
        "sgd_nesterov": lambda: optimizers.SGD(0.05, momentum=0.9, nesterov=True),
        "adam": lambda: optimizers.Adam(0.01),
        "adam_amsgrad": lambda: optimizers.Adam(0.01, amsgrad=True),
        "adamw": lambda: optimizers.AdamW(0.01, weight_decay=0.05),
        "rmsprop_centered_momentum": lambda: optimizers.RMSprop(0.01, momentum=0.5, centered=True),
        "sgd_schedule": lambda: optimizers.SGD(schedule, momentum=0.5),
    }
    tfnet_side = {
        "sgd_momentum": lambda: optimizers.SGD(0.05, momentum=0.9),
        "sgd_nesterov": lambda: optimizers.SGD(0.05, momentum=0.9, nesterov=True),
        "adam": lambda: optimizers.Adam(0.01),
        "adamw": lambda: optimizers.AdamW(0.01, weight_decay=0.05),
        "rmsprop_momentum": lambda: optimizers.RMSprop(0.01, momentum=0.5),
    }
    out = {f"keras_{k}": ("keras", v) for k, v in keras_side.items()}
    out.update({f"tfnet_{k}": ("tfnet", v) for k, v in tfnet_side.items()})
    return out


def data(n: int = 48) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    return rng.normal(size=(n, 4)).astype("float32"), rng.integers(0, 3, n)


def model(profile: str, optimizer: object) -> tfnet_train.Sequential:
    keras.utils.set_random_seed(0)
    m = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(6, activation="tanh"),
                                keras.layers.Dense(3)])
    m.compile(optimizer, keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"],
              semantics=profile)
    return m


def state(m: tfnet_train.Model) -> dict[str, np.ndarray]:
    out = {f"w{i}": w for i, w in enumerate(m.get_weights())}
    out.update({f"o{i}": np.asarray(v) for i, v in enumerate(m.optimizer.variables)})
    out["counter"] = np.asarray(int(m._train_counter.numpy()))
    return out


def steps(m: tfnet_train.Model, start: int, stop: int) -> None:
    x, y = data()
    for i in range(start, stop):
        rows = slice((i * BATCH) % len(x), (i * BATCH) % len(x) + BATCH)
        m.train_on_batch(x[rows], y[rows])


def main(argv: list[str]) -> None:
    command, where, arg = argv[1], Path(argv[2]), argv[3]
    if command in ("resume-first", "resume-rest", "whole"):
        total = int(arg)
        for name, (profile, make) in configs().items():
            if command == "resume-first":
                m = model(profile, make())
                steps(m, 0, total)
                m.save(where / f"{name}.keras")
            elif command == "resume-rest":
                m = tfnet_train.load_model(where / f"{name}.keras")
                done = int(m.optimizer.iterations.numpy())
                steps(m, done, total)
                np.savez(where / f"{name}.rest.npz", **state(m))
            else:
                m = model(profile, make())
                steps(m, 0, total)
                np.savez(where / f"{name}.whole.npz", **state(m))
    elif command == "save-loop":
        m = model("keras", optimizers.Adam(0.01))
        steps(m, 0, 2)
        for i in range(100000):
            print(f"saving {i}", flush=True)
            if arg == "model":
                m.save(where)
            else:
                m.save_weights(where)
    elif command == "fit-backup":
        keras.utils.set_random_seed(1)
        m = model("keras", optimizers.SGD(0.05, momentum=0.9))
        x, y = data(64)

        class Report(keras.callbacks.Callback):
            def on_train_batch_end(self, batch, logs=None):
                print(f"step {batch}", flush=True)

        backup = tfnet_train.callbacks.BackupAndRestore(str(where), save_freq=1)
        m.fit(x, y, batch_size=BATCH, epochs=3, shuffle=True, verbose=0, callbacks=[backup, Report()])
        np.savez(arg, **state(m))
    else:
        raise SystemExit(f"unknown command {command!r}")
    gc.disable()
    gc.freeze()


if __name__ == "__main__":
    main(sys.argv)
