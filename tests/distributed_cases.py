"""Training cases run on one device, under MirroredStrategy and on launched MultiWorkerMirroredStrategy workers, for
tests/test_distributed.py. Run as a script under TF_CONFIG, it trains the named cases (``OUT NAME...``) or the
resumable fit (``OUT --resume BACKUP MARKER``) and writes OUT_<index>.npz.

Every case trains 20 steps from the same initial weights. Each worker seeds NumPy and Keras with SEED + its index
before fit: a shuffled case agrees with one device only if every worker uses the chief's seed.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

SEED = 11
_rng = np.random.default_rng(3)
X = _rng.standard_normal((67, 4)).astype("float32")
Y = (X @ np.array([[1.0], [-2.0], [0.5], [3.0]]) + 0.1 * _rng.standard_normal((67, 1))).astype("float32")
INIT = [(0.5 * _rng.standard_normal(s)).astype("float32") for s in [(4, 8), (8,), (8, 1), (1,)]]
BATCH = 16

OPTIMIZERS = {
    "sgd_momentum_clipnorm": ("SGD", {"learning_rate": 0.05, "momentum": 0.9, "clipnorm": 0.5}),
    "adam_global_clipnorm": ("Adam", {"learning_rate": 0.02, "global_clipnorm": 0.5}),
    "sgd_no_clipping": ("SGD", {"learning_rate": 0.05}),
}


@dataclass(frozen=True)
class Case:
    """``inputs``: "arrays" (fit(x, y)) or "per_worker" (a dataset each input pipeline shards and batches itself,
    through ``strategy.distribute_datasets_from_function``). ``samples`` 67 leaves a last batch of 3 rows."""

    optimizer: str = "sgd_momentum_clipnorm"
    inputs: str = "arrays"
    samples: int = 67
    shuffle: bool | str = False
    steps_per_execution: int = 1

    @property
    def epochs(self) -> int:
        return 20 // -(-self.samples // BATCH)


CASES: dict[str, Case] = {
    "shuffle": Case(samples=64, shuffle=True),
    "shuffle_batch": Case(optimizer="adam_global_clipnorm", samples=64, shuffle="batch"),
    "partial": Case(),
    "spe4": Case(optimizer="adam_global_clipnorm", shuffle=True, steps_per_execution=4),
    "spe4_per_worker": Case(inputs="per_worker", steps_per_execution=4),
}
# The matrix: every optimizer setting with shuffled arrays and with per-worker input, each with a partial last batch.
MATRIX = [f"{opt}-{inputs}" for opt in OPTIMIZERS for inputs in ("arrays", "per_worker")]
CASES.update({name: Case(optimizer=name.split("-")[0], inputs=name.split("-")[1],
                         shuffle=name.endswith("-arrays")) for name in MATRIX})


def worker_index() -> int:
    return json.loads(os.environ["TF_CONFIG"])["task"]["index"] if "TF_CONFIG" in os.environ else 0


def run(name: str, strategy: tf.distribute.Strategy | None = None, index: int = 0) -> dict[str, np.ndarray]:
    """Train case ``name`` (under ``strategy`` when given); its weights and loss history by name."""
    import keras

    import tfnet_train

    case = CASES[name]
    x, y = X[:case.samples], Y[:case.samples]
    scope = strategy.scope() if strategy is not None else tf.distribute.get_strategy().scope()
    with scope:
        model = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="tanh"),
                                        keras.layers.Dense(1)])
        model.set_weights(INIT)
        kind, config = OPTIMIZERS[case.optimizer]
        model.compile(getattr(tfnet_train.optimizers, kind)(**config), "mse",
                      steps_per_execution=case.steps_per_execution)
    keras.utils.set_random_seed(SEED + index)
    if case.inputs == "arrays":
        history = model.fit(x, y, batch_size=BATCH, epochs=case.epochs, shuffle=case.shuffle, verbose=0)
    else:
        history = model.fit(per_worker_dataset(x, y, strategy), epochs=case.epochs, shuffle=False, verbose=0)
    out = {f"{name}/w{i}": w for i, w in enumerate(model.get_weights())}
    out[f"{name}/loss"] = np.asarray(history.history["loss"])
    out[f"{name}/steps"] = np.asarray(int(model.optimizer.iterations.numpy()))
    return out


def per_worker_dataset(x: np.ndarray, y: np.ndarray, strategy: tf.distribute.Strategy | None) -> Any:
    """TensorFlow's per-worker input: each input pipeline reads every n-th row and batches its replicas' share of
    the global batch. Global batch k then holds rows k*BATCH .. (k+1)*BATCH - 1, as ``batch(BATCH)`` on one
    device."""
    if strategy is None:
        return tf.data.Dataset.from_tensor_slices((x, y)).batch(BATCH)

    def dataset(context: tf.distribute.InputContext) -> tf.data.Dataset:
        rows = tf.data.Dataset.from_tensor_slices((x, y))
        rows = rows.shard(context.num_input_pipelines, context.input_pipeline_id)
        return rows.batch(context.get_per_replica_batch_size(BATCH))

    return strategy.distribute_datasets_from_function(dataset)


def resumable(strategy: tf.distribute.Strategy | None = None, backup: str | None = None, marker: str | None = None,
              index: int = 0, callbacks: list | None = None) -> dict[str, np.ndarray]:
    """Four shuffled epochs with the engine's BackupAndRestore in ``backup``; with ``marker``, worker 1 dies
    (``os._exit(3)``) in the middle of epoch 2 unless ``marker`` exists, which it creates first. ``callbacks`` run
    too (after the backup's)."""
    import keras

    import tfnet_train

    epochs_run: list[int] = []

    class DieOnce(keras.callbacks.Callback):
        def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
            self.epoch = epoch
            epochs_run.append(epoch)

        def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
            if marker and index == 1 and self.epoch == 2 and batch == 1 and not os.path.exists(marker):
                open(marker, "w").close()
                os._exit(3)

    scope = strategy.scope() if strategy is not None else tf.distribute.get_strategy().scope()
    with scope:
        model = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="tanh"),
                                        keras.layers.Dense(1)])
        model.set_weights(INIT)
        model.compile(tfnet_train.optimizers.SGD(0.05, momentum=0.9, clipnorm=0.5), "mse")
    keras.utils.set_random_seed(SEED + index)
    extra = list(callbacks or [])
    callbacks = [DieOnce()]
    if backup is not None:
        callbacks.append(tfnet_train.callbacks.BackupAndRestore(backup))
    callbacks += extra
    model.fit(X[:64], Y[:64], batch_size=BATCH, epochs=4, shuffle=True, verbose=0, callbacks=callbacks)
    return {**{f"resume/w{i}": w for i, w in enumerate(model.get_weights())}, "resume/epochs": np.asarray(epochs_run)}


def main(out: str, names: list[str]) -> None:
    import gc

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    index = worker_index()
    results: dict[str, np.ndarray] = {}
    if names[0] == "--resume":  # --resume BACKUP MARKER
        results.update(resumable(strategy, names[1], names[2], index))
    else:
        for name in names:
            results.update(run(name, strategy, index))
    np.savez(f"{out}_{index}.npz", **results)
    gc.disable()
    gc.freeze()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
