"""One worker of a multi-worker fit for tests/test_distributed.py (run by tfnet_train.launch), or the one-device
reference when TF_CONFIG is absent. Writes OUT_<index>.npz: final weights, history and evaluate for arrays and a
tf.data dataset; with FILES, the arrays fit also checkpoints and saves there (the chief's files alone land).

``distributed_worker.py --fault OUT BACKUP MARKER`` (for tests/test_distributed_faults.py) runs
``distributed_cases.resumable`` with BackupAndRestore(BACKUP) under the launcher's collective timeout
(``tfnet_train.launch.communication_options()``), first writing its pid to OUT.pid<index>. Unless MARKER exists,
worker 1 after step 1 of epoch 2 writes its pid and the time to MARKER and waits (at most 60 s) for MARKER.injected,
which the test writes once it has done the fault to it (stopped it, cut its link, ...). With TFNET_TEST_LATE="I:S",
worker I waits S seconds before it joins the cluster (a worker that comes back late to a restarted job). A failed
step prints its traceback and exits at once with status 1."""

from __future__ import annotations

import gc
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

rng = np.random.default_rng(0)
X = rng.standard_normal((64, 4)).astype("float32")
Y = (X @ np.array([[1.0], [-2.0], [0.5], [3.0]]) + 0.1 * rng.standard_normal((64, 1))).astype("float32")
INIT = [(0.5 * rng.standard_normal(s)).astype("float32") for s in [(4, 8), (8,), (8, 1), (1,)]]


def main(out: str, files: str | None = None) -> None:
    multi = "TF_CONFIG" in os.environ
    strategy = tf.distribute.MultiWorkerMirroredStrategy() if multi else tf.distribute.get_strategy()
    index = json.loads(os.environ["TF_CONFIG"])["task"]["index"] if multi else 0
    import keras

    import tfnet_train

    results = {}
    for mode in ("arrays", "dataset"):
        with strategy.scope():
            model = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="tanh"),
                                            keras.layers.Dense(1)])
            model.set_weights(INIT)
            model.compile(tfnet_train.optimizers.SGD(0.1, momentum=0.9, clipnorm=1.0), "mse", metrics=["mae"])
        if mode == "arrays":
            callbacks = [] if files is None else [keras.callbacks.ModelCheckpoint(f"{files}/e{{epoch}}.weights.h5",
                                                                                  save_weights_only=True)]
            history = model.fit(X, Y, batch_size=16, epochs=2, shuffle=False, verbose=0,
                                callbacks=callbacks).history
            if files is not None:
                model.save(f"{files}/model.keras")
            evaluated = model.evaluate(X, Y, batch_size=16, verbose=0, return_dict=True)
        else:
            dataset = tf.data.Dataset.from_tensor_slices((X, Y)).batch(16)
            history = model.fit(dataset, epochs=2, verbose=0, shuffle=False).history
            evaluated = model.evaluate(dataset, verbose=0, return_dict=True)
        for i, w in enumerate(model.get_weights()):
            results[f"{mode}/w{i}"] = w
        for key, values in history.items():
            results[f"{mode}/history/{key}"] = np.asarray(values)
        for key, value in evaluated.items():
            results[f"{mode}/evaluate/{key}"] = np.asarray(value)
        results[f"{mode}/counter"] = np.asarray(int(model._train_counter.numpy()))
    np.savez(f"{out}_{index}.npz", **results)
    gc.disable()
    gc.freeze()


def fault_main(out: str, backup: str, marker: str) -> None:
    import time

    import distributed_cases
    import keras

    from tfnet_train.launch import communication_options

    index = json.loads(os.environ["TF_CONFIG"])["task"]["index"]
    with open(f"{out}.pid{index}", "w") as file:
        file.write(str(os.getpid()))
    late = os.environ.get("TFNET_TEST_LATE")
    if late and int(late.split(":")[0]) == index:
        time.sleep(float(late.split(":")[1]))
    strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=communication_options())
    print("cluster ready", flush=True)

    class Fault(keras.callbacks.Callback):
        def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
            self.epoch = epoch
            print(f"epoch {epoch} begins at {time.time():.2f}", flush=True)

        def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
            print(f"epoch {self.epoch} step {batch} at {time.time():.2f}", flush=True)
            if index != 1 or self.epoch != 2 or batch != 1 or os.path.exists(marker):
                return
            with open(marker + ".tmp", "w") as file:
                json.dump({"pid": os.getpid(), "time": time.time()}, file)
            os.replace(marker + ".tmp", marker)
            deadline = time.monotonic() + 60
            while not os.path.exists(marker + ".injected") and time.monotonic() < deadline:
                time.sleep(0.02)
            print("fault injected", flush=True)

    try:
        results = distributed_cases.resumable(strategy, backup, None, index, callbacks=[Fault()])
    except Exception as error:  # as docs/distributed.md advises: report, then exit at once (TensorFlow's own exit
        import traceback  # path waits to reach the coordination service and the lost peer)

        traceback.print_exc()
        print(f"step failed at {time.time():.2f}: {type(error).__name__}", flush=True)
        sys.stderr.flush()
        os._exit(1)
    np.savez(f"{out}_{index}.npz", **results)
    gc.disable()
    gc.freeze()


if __name__ == "__main__":
    if sys.argv[1] == "--fault":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        fault_main(*sys.argv[2:5])
    else:
        main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
