"""keras.callbacks.TensorBoard under the engine: the event files it writes are read back and compared with History
and with the files the same callback writes under Keras's own fit of the same model."""

from __future__ import annotations

from pathlib import Path

import keras
import numpy as np
import pytest
import tensorflow as tf

import tfnet_train
from tfnet_train.callbacks.tensorboard import Events, read_events
from tfnet_train.engine.data import DataHandler
from tfnet_train.tolerances import assert_close


def data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(25)
    return rng.normal(size=(40, 4)).astype("float32"), rng.integers(0, 3, 40)


def twins(semantics: str) -> tuple[keras.Model, tfnet_train.Model]:
    """The same classifier as Keras's Sequential and the engine's, same names and weights, compiled alike."""

    def build(cls: type) -> keras.Model:
        return cls([keras.Input((4,)), keras.layers.Dense(8, activation="tanh", name="hidden"),
                    keras.layers.Dense(3, name="logits")], name="net")

    reference, model = build(keras.Sequential), build(tfnet_train.Sequential)
    model.set_weights(reference.get_weights())
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    reference.compile(keras.optimizers.SGD(0.1, momentum=0.9), loss, metrics=["accuracy"])
    model.compile(tfnet_train.optimizers.SGD(0.1, momentum=0.9), loss, metrics=["accuracy"], semantics=semantics)
    return reference, model


def run(model: keras.Model, folder: Path, **tensorboard: object) -> tuple[dict[str, list[float]], Events]:
    """fit with validation, then evaluate, both with a TensorBoard callback writing into ``folder``."""
    x, y = data()
    history = model.fit(x, y, batch_size=8, epochs=3, verbose=0, shuffle=False, validation_data=(x[:16], y[:16]),
                        callbacks=[keras.callbacks.TensorBoard(str(folder), **tensorboard)])
    model.evaluate(x, y, batch_size=8, verbose=0, callbacks=[keras.callbacks.TensorBoard(str(folder))])
    return history.history, read_events(folder)


def assert_epochs_are_history(events: Events, history: dict[str, list[float]], every_epoch: bool = True) -> None:
    """Each epoch scalar written equals History's value for that epoch; with ``every_epoch`` all are written (with
    a numeric update_freq Keras records only when the batch count is a multiple of it, epoch scalars included)."""
    for name, values in history.items():
        folder, tag = ("validation", name[4:]) if name.startswith("val_") else ("train", name)
        written = events.scalars.get((folder, f"epoch_{tag}"), {})
        steps = sorted(written)
        assert steps == list(range(len(values))) if every_epoch else set(steps) <= set(range(len(values))), written
        assert_close([written[i] for i in steps], [values[i] for i in steps], what=f"epoch_{tag} vs {name!r}")


@pytest.mark.parametrize("semantics", ["keras", "tfnet"])
@pytest.mark.parametrize("update_freq", ["epoch", 2])
def test_event_files_hold_history_and_match_keras(tmp_path: Path, semantics: str, update_freq: object) -> None:
    reference, model = twins(semantics)
    options = dict(histogram_freq=1, update_freq=update_freq, profile_batch=0)
    expected_history, expected = run(reference, tmp_path / "keras", **options)
    history, got = run(model, tmp_path / "engine", **options)

    assert got.tags() == expected.tags()
    if semantics == "keras" or update_freq == "epoch":  # tfnet validates arrays in batches of 32: fewer test steps
        assert {k: sorted(v) for k, v in got.scalars.items()} == {k: sorted(v) for k, v in expected.scalars.items()}
    assert got.tensors == expected.tensors  # histograms per epoch, the model summary
    assert ("train", "net/hidden/kernel/histogram") in got.tensors
    assert_epochs_are_history(got, history, every_epoch=update_freq == "epoch")
    assert_epochs_are_history(expected, expected_history, every_epoch=update_freq == "epoch")
    assert ("train", "epoch_loss") in got.scalars
    batch_steps = sorted(got.scalars.get(("train", "batch_loss"), {}))
    assert batch_steps == ([] if update_freq == "epoch" else list(range(2, 16, 2)))
    if update_freq == "epoch":  # at the optimizer's step: each validation, the last with evaluate's
        assert sorted(got.scalars[("validation", "evaluation_loss_vs_iterations")]) == [5, 10, 15]
    if semantics == "keras":  # the same numbers as Keras's fit writes
        for key, values in expected.scalars.items():
            assert_close([got.scalars[key][s] for s in sorted(values)], [values[s] for s in sorted(values)],
                         what=f"{key}")
    # Keras 3.15's callback finds no tf.function on its own trainer to draw; the engine's compiled call is drawn.
    assert got.graphs == {"train": 1}
    assert any("hidden" in node for node in got.graph_nodes["train"])
    assert any("logits" in node for node in got.graph_nodes["train"])


def test_epoch_only_logging_keeps_the_whole_epoch_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole: list[bool] = []
    original = DataHandler.run_whole_epochs

    def spy(self: DataHandler, training: bool = False) -> None:
        original(self, training=training)
        whole.append(self.whole_epochs)

    monkeypatch.setattr(DataHandler, "run_whole_epochs", spy)
    _, model = twins("keras")
    history, events = run(model, tmp_path / "epoch", histogram_freq=1)
    assert whole and all(whole), "fit and evaluate ran whole epochs with an epoch-level TensorBoard"
    assert_epochs_are_history(events, history)
    whole.clear()
    run(model, tmp_path / "batch", update_freq=1)
    assert whole == [True]  # the evaluate only: training and its validation went batch by batch


@pytest.mark.parametrize("semantics", ["keras", "tfnet"])
def test_profiled_batch_range_matches_keras(tmp_path: Path, semantics: str) -> None:
    reference, model = twins(semantics)
    _, expected = run(reference, tmp_path / "keras", profile_batch=(2, 3))
    _, got = run(model, tmp_path / "engine", profile_batch=(2, 3))
    assert got.tags() == expected.tags()
    assert ("train", "batch_3") in got.tensors  # the trace of batches 2-3
    profiles = list((tmp_path / "engine" / "train" / "plugins" / "profile").rglob("*.xplane.pb"))
    assert len(profiles) == 1, profiles


@pytest.mark.parametrize(("run_eagerly", "update_freq"), [(False, "epoch"), (False, 1), (True, "epoch")])
def test_a_dataset_fit_draws_its_compiled_step(tmp_path: Path, run_eagerly: bool, update_freq: object) -> None:
    """Whole passes in one compiled call (epoch logging) or one step per call (batch logging): either is drawn."""
    _, model = twins("keras")
    model.compile(tfnet_train.optimizers.SGD(0.1), keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  run_eagerly=run_eagerly)
    x, y = data()
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
    board = keras.callbacks.TensorBoard(str(tmp_path), update_freq=update_freq)
    history = model.fit(dataset, epochs=2, verbose=0, callbacks=[board])
    events = read_events(tmp_path)
    assert_epochs_are_history(events, history.history)
    if run_eagerly:  # nothing compiled, nothing drawn (as Keras)
        assert events.graphs == {}
    else:
        assert events.graphs == {"train": 1} and any("hidden" in n for n in events.graph_nodes["train"])


def test_read_events_names_a_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="log_dir must be a folder"):
        read_events(tmp_path / "nowhere")
