"""Models from other writers: tf.keras 2 and Keras 3 ``.h5`` whole-model files with their training configuration,
tf.keras SavedModel directories (through tf-keras), and clear errors for everything else. The files are written by
tf-keras itself in a subprocess (tests/legacy_writer.py), with the writer's weights and predictions beside them."""

from __future__ import annotations

import warnings
from pathlib import Path

import keras
import numpy as np
import pytest
import tensorflow as tf
from writers import write_with

import tfnet_train
from tfnet_train.engine.legacy import translate_training_config
from tfnet_train.tolerances import ATOL, RTOL

WRITER = Path(__file__).with_name("legacy_writer.py")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_with(WRITER, tmp_path_factory.mktemp("legacy"))


def loaded(path: Path, **kwargs: object) -> tuple[keras.Model, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = tfnet_train.load_model(path, **kwargs)
    return model, [str(w.message) for w in caught if "training configuration" in str(w.message)]


def assert_same_as_writer(model: keras.Model, record: Path) -> None:
    expected = np.load(record)
    weights = model.get_weights()
    assert len(weights) == len([k for k in expected.files if k.startswith("w")])
    for i, value in enumerate(weights):
        assert value.dtype == expected[f"w{i}"].dtype
        assert np.array_equal(value, expected[f"w{i}"]), f"weight {i} differs from the writer's"
    predictions = model.predict(expected["x"], verbose=0)
    assert predictions.shape == expected["predictions"].shape
    np.testing.assert_allclose(predictions, expected["predictions"], rtol=RTOL, atol=ATOL)


def test_tf_keras_2_h5_loads_with_its_training_configuration(files: Path) -> None:
    model, messages = loaded(files / "functional.h5")
    assert messages == []
    assert isinstance(model, tfnet_train.Model) and type(model).__name__ == "Functional"
    assert_same_as_writer(model, files / "functional.npz")
    assert isinstance(model.optimizer, keras.optimizers.Adam)
    assert float(model.optimizer.learning_rate.numpy()) == pytest.approx(0.01)
    assert isinstance(model.loss, keras.losses.SparseCategoricalCrossentropy)
    assert model.loss.get_config()["from_logits"] is True
    data = np.load(files / "functional.npz")
    assert isinstance(model.predict(data["x"], verbose=0), np.ndarray)  # one output, not a list of one
    stacked = tfnet_train.Sequential([keras.Input((6,)), model, keras.layers.Dense(10)])
    assert stacked.output_shape == (None, 10)
    before = model.get_weights()
    history = model.fit(data["x"], data["y"], epochs=1, verbose=0).history
    assert set(history) == {"loss", "accuracy", "top2"}
    assert any(not np.array_equal(a, b) for a, b in zip(before, model.get_weights()))


def test_tf_keras_2_sequential_h5_loads_sgd_momentum_and_string_loss(files: Path) -> None:
    model, messages = loaded(files / "sequential.h5")
    assert messages == []
    assert isinstance(model, tfnet_train.Sequential)
    assert_same_as_writer(model, files / "sequential.npz")
    assert isinstance(model.optimizer, keras.optimizers.SGD)
    assert model.optimizer.momentum == pytest.approx(0.9)
    data = np.load(files / "sequential.npz")
    assert set(model.fit(data["x"], data["y"].astype("float32"), verbose=0).history) == {"loss", "mae"}


def test_untranslatable_training_configuration_is_named_in_one_warning(files: Path) -> None:
    model, messages = loaded(files / "decayed.h5")
    assert len(messages) == 1
    assert "decay=0.01" in messages[0] and "decayed.h5" in messages[0] and "uncompiled" in messages[0]
    assert not model.compiled
    assert_same_as_writer(model, files / "decayed.npz")


def test_compile_false_loads_layers_only(files: Path) -> None:
    model, _ = loaded(files / "functional.h5", compile=False)
    assert not model.compiled
    assert_same_as_writer(model, files / "functional.npz")


@pytest.mark.parametrize("safe_mode", [True, False])  # from its config and variables alone, or by tf.keras's loader
def test_tf_keras_saved_model_directory_is_rebuilt_as_an_engine_model(files: Path, safe_mode: bool) -> None:
    model, messages = loaded(files / "functional_savedmodel", safe_mode=safe_mode)
    assert messages == []
    assert isinstance(model, tfnet_train.Model)
    assert isinstance(model.layers[1], keras.layers.Dense) and model.layers[1].name == "base_dense"
    assert_same_as_writer(model, files / "functional.npz")
    assert isinstance(model.optimizer, keras.optimizers.Adam)
    data = np.load(files / "functional.npz")
    assert "loss" in model.fit(data["x"], data["y"], verbose=0).history


def test_keras_3_h5_loads_compiled(tmp_path: Path) -> None:
    keras.utils.set_random_seed(0)
    model = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    model.compile(optimizer=keras.optimizers.RMSprop(0.02), loss=keras.losses.MeanSquaredError(), metrics=["mae"])
    x = np.random.default_rng(0).normal(size=(8, 4)).astype("float32")
    model.fit(x, x[:, :3], verbose=0)
    model.save(tmp_path / "k3.h5")
    again, messages = loaded(tmp_path / "k3.h5")
    assert messages == [] and isinstance(again, tfnet_train.Sequential)
    assert isinstance(again.optimizer, keras.optimizers.RMSprop)
    for a, b in zip(model.get_weights(), again.get_weights()):
        assert np.array_equal(a, b)
    np.testing.assert_allclose(again.predict(x, verbose=0), model.predict(x, verbose=0), rtol=RTOL, atol=ATOL)


def test_safe_mode_refuses_lambda_layers_in_every_format(files: Path) -> None:
    for name in ("lambda.h5", "lambda_savedmodel"):
        with pytest.raises(ValueError, match="Lambda") as raised:
            tfnet_train.load_model(files / name)
        assert name in str(raised.value)
    model = tfnet_train.load_model(files / "lambda.h5", safe_mode=False)
    assert isinstance(model.layers[-1], keras.layers.Lambda)


def test_weights_only_h5_is_refused_with_the_way_to_load_it(files: Path) -> None:
    with pytest.raises(ValueError, match="weights only.*load_weights") as raised:
        tfnet_train.load_model(files / "functional_weights.h5")
    assert "functional_weights.h5" in str(raised.value)


def test_truncated_and_foreign_files_are_refused(files: Path, tmp_path: Path) -> None:
    whole = (files / "functional.h5").read_bytes()
    (tmp_path / "cut.h5").write_bytes(whole[: len(whole) // 2])
    with pytest.raises(ValueError, match="cut.h5.*truncated or damaged"):
        tfnet_train.load_model(tmp_path / "cut.h5")
    model = tfnet_train.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.save(tmp_path / "m.keras")
    archive = (tmp_path / "m.keras").read_bytes()
    (tmp_path / "cut.keras").write_bytes(archive[: len(archive) // 2])
    with pytest.raises(ValueError, match="cut.keras.*truncated or damaged"):
        tfnet_train.load_model(tmp_path / "cut.keras")
    (tmp_path / "notes.keras").write_text("not a model")
    with pytest.raises(ValueError, match="notes.keras.*none of the model formats.*expected"):
        tfnet_train.load_model(tmp_path / "notes.keras")
    with pytest.raises(FileNotFoundError, match="missing.h5"):
        tfnet_train.load_model(tmp_path / "missing.h5")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="empty.*without saved_model.pb"):
        tfnet_train.load_model(tmp_path / "empty")


def test_saved_model_without_keras_metadata_is_refused(tmp_path: Path) -> None:
    module = tf.Module()
    module.v = tf.Variable(1.0)
    module.f = tf.function(lambda x: x * module.v, input_signature=[tf.TensorSpec([], tf.float32)])
    tf.saved_model.save(module, str(tmp_path / "plain"))
    with pytest.raises(ValueError, match="plain.*without Keras metadata.*keras_metadata.pb"):
        tfnet_train.load_model(tmp_path / "plain")


def test_translation_of_tf_keras_2_configs() -> None:
    config = {
        "loss": {"class_name": "CategoricalCrossentropy",
                 "config": {"reduction": "sum", "name": "cce", "from_logits": False, "label_smoothing": 0.1,
                            "axis": -1, "fn": "categorical_crossentropy"}},
        "metrics": [[{"class_name": "MeanMetricWrapper",
                      "config": {"name": "acc", "dtype": "float32", "fn": "categorical_accuracy"}},
                     {"class_name": "AUC", "config": {"name": "auc", "num_thresholds": 50}}]],
        "optimizer_config": {"class_name": "Custom>Adam",
                             "config": {"name": "Adam", "learning_rate": {
                                 "class_name": "ExponentialDecay",
                                 "config": {"initial_learning_rate": 0.1, "decay_steps": 10, "decay_rate": 0.5,
                                            "staircase": False, "name": None}},
                                 "is_legacy_optimizer": False, "jit_compile": True, "beta_1": 0.8}},
    }
    problems: list[str] = []
    kwargs = translate_training_config(config, None, 1, problems)
    assert problems == []
    loss = kwargs["loss"]
    assert isinstance(loss, keras.losses.CategoricalCrossentropy)
    assert loss.reduction == "sum" and loss.get_config()["label_smoothing"] == 0.1
    acc, auc = kwargs["metrics"]
    assert isinstance(acc, keras.metrics.CategoricalAccuracy) and acc.name == "acc"
    assert isinstance(auc, keras.metrics.AUC) and auc.num_thresholds == 50
    optimizer = kwargs["optimizer"]
    assert isinstance(optimizer, keras.optimizers.Adam) and optimizer.beta_1 == pytest.approx(0.8)
    assert isinstance(optimizer._learning_rate, keras.optimizers.schedules.ExponentialDecay)
    problems = []
    translate_training_config({"loss": {"class_name": "NoSuchLoss", "config": {}},
                               "optimizer_config": {"class_name": "Adam", "config": {"amsgrad": False, "foo": 1}}},
                              None, 1, problems)
    assert len(problems) == 2 and "NoSuchLoss" in problems[1] and "foo=1" in problems[0]


def test_conformance_case_recorded_from_a_loaded_tf_keras_2_model_replays(files: Path, tmp_path: Path) -> None:
    from tfnet_train.conformance import implementations
    from tfnet_train.conformance.case import load
    from tfnet_train.conformance.compare import compare_traces
    from tfnet_train.conformance.record import record
    from tfnet_train.conformance.runner import run_case

    model = tfnet_train.load_model(files / "sequential.h5")
    data = np.load(files / "sequential.npz")
    record(model, data["x"], data["y"].astype("float32"), 4, tmp_path / "legacy_case")
    case = load(tmp_path / "legacy_case.json")
    assert case.metrics == ("mae",) and case.loss.name == "mse"
    for saved, writer in zip(case.arrays.weights, [data[f"w{i}"] for i in range(4)], strict=True):
        assert np.array_equal(saved, writer)
    live = [model.train_step_traced(*case.batch(i)).flat() for i in range(4)]
    for implementation in ("engine", "keras"):
        result = compare_traces(live, implementations.run(implementation, case), case.tolerance,
                                ("live", implementation))
        assert result.first_divergence is None, result.first_divergence.describe("live", implementation)
    assert [(p.a, p.b, p.verdict) for p in run_case(case, ["engine", "keras"]).pairs] == [("engine", "keras", "pass")]


def test_settings_keras_3_lacks_are_named_and_unset_ones_ignored() -> None:
    from tfnet_train.engine import legacy

    problems: list[str] = []
    assert legacy._loss({"class_name": "MeanSquaredError", "config": {"bogus": 1}}, {}, problems) is None
    assert legacy._metric({"class_name": "Mean", "config": {"bogus": 2}}, {}, problems) is None
    assert legacy._optimizer({"class_name": "SGD", "config": {"learning_rate": 0.1, "bogus": 3}}, {}, problems) is None
    assert problems == ["loss MeanSquaredError settings ['bogus'] have no Keras 3 counterpart",
                        "metric Mean settings ['bogus'] have no Keras 3 counterpart",
                        "optimizer SGD settings ['bogus=3'] have no Keras 3 counterpart"]
    sgd = legacy._optimizer({"class_name": "SGD", "config": {"learning_rate": 0.25, "bogus": None}}, {}, problems)
    assert isinstance(sgd, keras.optimizers.SGD) and float(sgd.learning_rate) == 0.25 and len(problems) == 3


def test_saved_model_custom_layer_is_revived_from_its_saved_graph(files: Path) -> None:
    from tfnet_train.engine.revived import RevivedLayer

    model, messages = loaded(files / "custom_savedmodel", safe_mode=False)
    assert messages == []
    revived = model.get_layer("scaled")
    assert isinstance(revived, RevivedLayer) and revived.revived_class == "Scaled"
    assert revived.revived_config["units"] == 5
    assert [w.trainable for w in revived.weights] == [True, False]  # the kernel trains, the scale does not
    assert isinstance(model.get_layer("head"), keras.layers.Dense)
    assert_same_as_writer(model, files / "custom.npz")


def test_revived_layer_trains_as_its_writer_trained(files: Path) -> None:
    model, _ = loaded(files / "custom_savedmodel", safe_mode=False)
    data, trained = np.load(files / "custom.npz"), np.load(files / "custom_trained.npz")
    model(data["x"][:4], training=True)
    assert len(model.losses) == 2  # the layer's activity loss and its kernel's l2 penalty, as tf.keras adds them
    history = model.fit(data["x"], data["y"], batch_size=4, epochs=2, shuffle=False, verbose=0).history
    np.testing.assert_allclose(history["loss"], trained["loss"], rtol=RTOL, atol=ATOL)
    for i, value in enumerate(model.get_weights()):
        np.testing.assert_allclose(value, trained[f"w{i}"], rtol=RTOL, atol=ATOL, err_msg=f"weight {i}")


def test_revived_layer_in_a_keras_file_loads_only_outside_safe_mode(files: Path, tmp_path: Path) -> None:
    model, _ = loaded(files / "custom_savedmodel", safe_mode=False)
    data = np.load(files / "custom.npz")
    model.fit(data["x"], data["y"], batch_size=4, epochs=1, shuffle=False, verbose=0)
    model.save(tmp_path / "revived.keras")
    with pytest.raises(ValueError, match=r"revived.keras.*'scaled' \(Scaled\).*safe_mode=False"):
        tfnet_train.load_model(tmp_path / "revived.keras")
    again = tfnet_train.load_model(tmp_path / "revived.keras", safe_mode=False)
    assert int(again._train_counter.numpy()) == int(model._train_counter.numpy()) == 4
    np.testing.assert_array_equal(again.predict(data["x"], verbose=0), model.predict(data["x"], verbose=0))
    for resumed in (model, again):
        resumed.fit(data["x"], data["y"], batch_size=4, epochs=1, shuffle=False, verbose=0)
    for a, b in zip(model.get_weights(), again.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)  # the saved graph and optimizer state resume bit for bit


def test_revived_layer_ships_as_a_saved_model_and_refuses_h5(files: Path, tmp_path: Path) -> None:
    model, _ = loaded(files / "custom_savedmodel", safe_mode=False)
    data = np.load(files / "custom.npz")
    with pytest.raises(ValueError, match=r"m.h5.*\['scaled'\].*\.keras"):
        model.save(tmp_path / "m.h5")
    assert not (tmp_path / "m.h5").exists()
    model.export(tmp_path / "served", format="tf_saved_model", keras_model=True)
    served = tf.saved_model.load(str(tmp_path / "served"))
    np.testing.assert_allclose(served.serve(data["x"]).numpy(), data["predictions"], rtol=RTOL, atol=ATOL)
    with pytest.raises(ValueError, match=r"served.*model.keras.*'scaled' \(Scaled\).*safe_mode=False"):
        tfnet_train.load_model(tmp_path / "served")  # the .keras it carries, refused as anywhere else
    again = tfnet_train.load_model(tmp_path / "served", safe_mode=False)
    np.testing.assert_array_equal(again.predict(data["x"], verbose=0), model.predict(data["x"], verbose=0))


def test_revived_layer_refuses_inputs_it_has_no_graph_for(files: Path) -> None:
    model, _ = loaded(files / "custom_savedmodel", safe_mode=False)
    before = model.get_weights()
    with pytest.raises(ValueError, match=r"'scaled'.*float32\[2, 7\].*saved inputs.*6"):
        model.get_layer("scaled")(np.zeros((2, 7), "float32"))
    with pytest.raises(ValueError, match=r"'scaled'.*float64"):
        model.get_layer("scaled")(np.zeros((2, 6), "float64"))
    for a, b in zip(before, model.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_subclassed_tf_keras_model_without_its_class_is_revived_whole(files: Path, tmp_path: Path) -> None:
    from tfnet_train.engine.revived import RevivedLayer

    model, messages = loaded(files / "subclassed_savedmodel", safe_mode=False)
    assert messages == [] and isinstance(model, tfnet_train.Model)
    assert [type(layer) for layer in model.layers[1:]] == [RevivedLayer]
    assert model.layers[1].revived_class == "TwoLayers" and model.input_shape == (None, 6)
    assert_same_as_writer(model, files / "subclassed.npz")
    assert isinstance(model.optimizer, keras.optimizers.SGD)
    data, trained = np.load(files / "subclassed.npz"), np.load(files / "subclassed_trained.npz")
    history = model.fit(data["x"], trained["targets"], batch_size=4, epochs=2, shuffle=False, verbose=0).history
    np.testing.assert_allclose(history["loss"], trained["loss"], rtol=RTOL, atol=ATOL)
    for i, value in enumerate(model.get_weights()):
        np.testing.assert_allclose(value, trained[f"w{i}"], rtol=RTOL, atol=ATOL, err_msg=f"weight {i}")
    model.save(tmp_path / "whole.keras")
    again = tfnet_train.load_model(tmp_path / "whole.keras", safe_mode=False)
    np.testing.assert_array_equal(again.predict(data["x"], verbose=0), model.predict(data["x"], verbose=0))


@pytest.fixture(scope="module")
def mirrored() -> tf.distribute.MirroredStrategy:
    """One strategy for the module: several over the same devices in one process can collide."""
    return tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"],
                                          cross_device_ops=tf.distribute.ReductionToOneDevice())


@pytest.mark.parametrize("name, targets", [("custom", "y"), ("subclassed", "targets")])
def test_revived_models_train_under_mirrored_strategy_as_their_writer_trained(
        files: Path, tmp_path: Path, mirrored: tf.distribute.MirroredStrategy, name: str, targets: str) -> None:
    """Loaded in a MirroredStrategy's scope (two CPU replicas), the saved graph runs on each replica's copy of the
    variables and the fit ends where tf.keras's single-device fit ended; the .keras copy loads there too."""
    data, trained = np.load(files / f"{name}.npz"), np.load(files / f"{name}_trained.npz")
    with mirrored.scope():
        model, _ = loaded(files / f"{name}_savedmodel", safe_mode=False)
    assert_same_as_writer(model, files / f"{name}.npz")
    labels = data[targets] if targets in data.files else trained[targets]
    history = model.fit(data["x"], labels, batch_size=4, epochs=2, shuffle=False, verbose=0).history
    np.testing.assert_allclose(history["loss"], trained["loss"], rtol=RTOL, atol=ATOL)
    for i, value in enumerate(model.get_weights()):
        np.testing.assert_allclose(value, trained[f"w{i}"], rtol=RTOL, atol=ATOL, err_msg=f"weight {i}")
    model.save(tmp_path / "whole.keras")
    with mirrored.scope():
        again = tfnet_train.load_model(tmp_path / "whole.keras", safe_mode=False)
    np.testing.assert_array_equal(again.predict(data["x"], verbose=0), model.predict(data["x"], verbose=0))


def test_subclassed_tf_keras_model_with_its_class_is_refused(files: Path) -> None:
    import tf_keras

    class TwoLayers(tf_keras.Model):  # the writer's class, given: tf.keras rebuilds it, Keras 3 cannot
        def __init__(self, **kwargs: object) -> None:
            super().__init__(name="two_layers")
            self.hidden = tf_keras.layers.Dense(4, activation="relu", name="hidden")
            self.out = tf_keras.layers.Dense(2, name="out")

        def call(self, inputs: tf.Tensor) -> tf.Tensor:
            return self.out(self.hidden(inputs))

    with pytest.raises(ValueError, match=r"subclassed_savedmodel.*subclassed tf.keras model \(TwoLayers\).*without "
                                         r"its class in custom_objects"):
        tfnet_train.load_model(files / "subclassed_savedmodel", custom_objects={"TwoLayers": TwoLayers})
