"""Canaries for keras_internals.py: one per private Keras or TensorFlow name the engine uses.

Each fails with "Keras X.Y moved <name>: <what the engine uses it for>" the day an upgrade moves, renames or stops
calling it. They test Keras itself (and TensorFlow), not the engine: the fence module is read only for its tables.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as tf

from tfnet_train import keras_internals
from tfnet_train.tolerances import assert_close


def moved(name: str, use: str, library: str = "Keras") -> str:
    version = {"Keras": keras.__version__, "TensorFlow": tf.__version__}.get(library) or _tf_keras_version()
    return f"{library} {version} moved {name}: {use}"


def _tf_keras_version() -> str:
    import tf_keras

    return tf_keras.__version__


def canary(condition: bool, name: str, use: str, library: str = "Keras") -> None:
    if not condition:
        pytest.fail(moved(name, use, library), pytrace=False)


def keras_name(module: str, name: str, use: str) -> Any:
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        pytest.fail(moved(f"{module}.{name}", use), pytrace=False)


IMPORTS = [
    ("keras.src.backend.tensorflow.trainer", "TensorFlowTrainer", "the engine's Trainer extends it"),
    ("keras.src.backend.tensorflow.trainer", "TFEpochIterator", "the DataHandler's step counting"),
    ("keras.src.backend.tensorflow.trainer", "convert_to_np_if_not_ragged", "predict's outputs as NumPy"),
    ("keras.src.backend.tensorflow.trainer", "potentially_ragged_concat", "predict joins batch outputs"),
    ("keras.src.losses.loss", "unscale_loss_for_distribution", "the loss tracker's unscaled loss"),
    ("keras.src.losses.losses", "LossFunctionWrapper", "a loss given as a function"),
    ("keras.src.models.functional", "Functional", "the engine's Functional extends it"),
    ("keras.src.models.model", "functional_init_arguments", "Model(...) picks functional construction"),
    ("keras.src.trainers.data_adapters", "get_data_adapter", "adapters for tf.data, generators, PyDataset"),
    ("keras.src.trainers.data_adapters.data_adapter_utils", "class_weight_to_sample_weights",
     "class_weight under the keras profile"),
    ("keras.src.trainers.data_adapters.array_data_adapter", "ArrayDataAdapter", "the fast path's adapter base"),
    ("keras.src.trainers.data_adapters.array_slicing", "can_slice_array", "validation_split's check"),
    ("keras.src.trainers.data_adapters.array_slicing", "convert_to_sliceable", "validation_split and the fast path"),
    ("keras.src.trainers.trainer", "Trainer", "a functional-style subclass runs Trainer.__init__ first"),
    ("keras.src.utils.python_utils", "is_default", "batch hooks left as defaults are skipped"),
    ("keras.src.utils.python_utils", "pythonify_logs", "logs as Python floats"),
    ("keras.src.legacy.saving.saving_utils", "compile_args_from_training_config", "legacy .h5 compile arguments"),
    ("keras.src.legacy.saving.saving_utils", "model_from_config", "legacy .h5 model config"),
    ("keras.src.legacy.saving.json_utils", "decode", "legacy .h5 model config"),
    ("keras.src.legacy.saving.legacy_h5_format", "load_weights_from_hdf5_group", "legacy .h5 weights"),
    ("keras.src.legacy.saving.saving_options", "keras_option_scope", "legacy .h5 config scope"),
    ("keras.src.saving.serialization_lib", "SafeModeScope", "legacy .h5 safe_mode"),
]


@pytest.mark.parametrize(("module", "name", "use"), IMPORTS, ids=[f"{m}.{n}" for m, n, _ in IMPORTS])
def test_private_imports_exist(module: str, name: str, use: str) -> None:
    keras_name(module, name, use)


# ----- behaviour of the imported helpers --------------------------------------------------------------------------


def test_keras_model_is_the_tensorflow_trainer_and_builds_functional_models() -> None:
    use = "the engine's Trainer and Functional stand where keras.Model's do"
    canary(issubclass(keras.Model, keras_internals.TensorFlowTrainer), "TensorFlowTrainer", use)
    canary(issubclass(keras_internals.TensorFlowTrainer, keras_internals.KerasTrainer), "Trainer", use)
    inputs = keras.Input((2,))
    model = keras.Model(inputs, keras.layers.Dense(1)(inputs))
    canary(isinstance(model, keras_internals.KerasFunctional), "Functional", use)
    canary(keras_internals.functional_init_arguments((inputs, model.outputs), {}), "functional_init_arguments", use)
    canary(keras_internals.functional_init_arguments((), {"inputs": inputs, "outputs": model.outputs}),
           "functional_init_arguments", use)
    canary(not keras_internals.functional_init_arguments((), {}), "functional_init_arguments", use)


def test_python_utils_behave() -> None:
    logs = keras_internals.pythonify_logs({"loss": np.float32(0.5), "acc": tf.constant(0.25)})
    canary(logs == {"loss": 0.5, "acc": 0.25} and all(type(v) is float for v in logs.values()), "pythonify_logs",
           "logs handed to callbacks are Python floats")

    class Listening(keras.callbacks.Callback):
        def on_train_batch_end(self, batch: int, logs: Any = None) -> None:
            pass

    use = "batch hooks left as Keras's defaults are skipped"
    canary(keras_internals.is_default(keras.callbacks.Callback().on_train_batch_end), "is_default", use)
    canary(not keras_internals.is_default(Listening().on_train_batch_end), "is_default", use)


def test_loss_helpers_behave() -> None:
    loss = tf.constant(3.0)
    canary(float(keras_internals.unscale_loss_for_distribution(loss)) == 3.0, "unscale_loss_for_distribution",
           "the loss tracker records the loss as given on one device")
    wrapper = keras_internals.LossFunctionWrapper(keras.losses.mean_squared_error, name="mse_fn")
    value = wrapper(np.array([[1.0], [3.0]], np.float32), np.array([[0.0], [0.0]], np.float32))
    canary(abs(float(value) - 5.0) < 1e-6 and wrapper.name == "mse_fn", "LossFunctionWrapper",
           "a loss given as a function is wrapped as compile wraps it")


def test_data_helpers_behave() -> None:
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    y = np.array([0, 1, 1, 0, 1, 1])
    adapter = keras_internals.get_data_adapter(x, y=y, batch_size=4)
    canary(isinstance(adapter, keras_internals.ArrayDataAdapter) and adapter.num_batches == 2, "get_data_adapter",
           "Keras's adapter for inputs the fast path does not take")
    weights = np.asarray(keras_internals.class_weight_to_sample_weights(y, {0: 1.0, 1: 3.0}))
    canary(weights.tolist() == [1.0, 3.0, 3.0, 1.0, 3.0, 3.0], "class_weight_to_sample_weights",
           "class_weight under the keras profile")
    canary(keras_internals.can_slice_array(x) and keras_internals.can_slice_array(tf.constant(x)), "can_slice_array",
           "validation_split checks its arrays")
    sliceable = keras_internals.convert_to_sliceable([x, None], target_backend="tensorflow")
    canary(sliceable[1] is None and np.array_equal(np.asarray(sliceable[0][1:3]), x[1:3]), "convert_to_sliceable",
           "validation_split and the fast path slice arrays")
    joined = keras_internals.potentially_ragged_concat([tf.constant(x[:2]), tf.constant(x[2:])])
    out = keras_internals.convert_to_np_if_not_ragged(joined)
    canary(isinstance(out, np.ndarray) and np.array_equal(out, x), "potentially_ragged_concat",
           "predict joins per-batch outputs")
    ragged = keras_internals.potentially_ragged_concat([tf.ragged.constant([[1.0]]), tf.ragged.constant([[2.0, 3.0]])])
    canary(isinstance(keras_internals.convert_to_np_if_not_ragged(ragged), tf.RaggedTensor),
           "convert_to_np_if_not_ragged", "ragged predict outputs stay ragged")


# ----- TensorFlow and Python ------------------------------------------------------------------------------------


def test_concrete_function_call_flat_matches_the_public_call() -> None:
    scale = tf.Variable(2.0)

    @tf.function
    def f(a: tf.Tensor, b: tf.Tensor) -> tf.Tensor:
        return a * scale + b

    concrete = f.get_concrete_function(tf.TensorSpec([None], tf.float32), tf.TensorSpec([None], tf.float32))
    use = "the per-rank step skips the public call's re-binding"
    canary(hasattr(concrete, "_call_flat") and hasattr(concrete, "captured_inputs"), "ConcreteFunction._call_flat",
           use, "TensorFlow")
    args = [tf.constant([1.0, 2.0]), tf.constant([0.5, 0.5])]
    got = keras_internals.call_concrete(concrete, args)
    got = got[0] if isinstance(got, list | tuple) else got
    canary(np.allclose(np.asarray(got), [2.5, 4.5]), "ConcreteFunction._call_flat", use, "TensorFlow")


def test_concrete_function_call_flat_takes_other_captures() -> None:
    scale, other = tf.Variable(2.0), tf.Variable(10.0)

    @tf.function
    def f(a: tf.Tensor) -> tf.Tensor:
        return a * scale

    concrete = f.get_concrete_function(tf.TensorSpec([None], tf.float32))
    got = keras_internals.call_concrete_with_captures(concrete, [tf.constant([1.0, 2.0])], [other.handle])
    canary(np.allclose(np.asarray(got), [10.0, 20.0]), "ConcreteFunction._call_flat(captured_inputs)",
           "a revived layer runs its saved graph on its own variables", "TensorFlow")


def test_safe_mode_is_readable_while_keras_deserializes() -> None:
    use = "a revived layer in a .keras file is refused under safe_mode, as TFSMLayer's config is"
    seen: list[Any] = []

    @keras.saving.register_keras_serializable(package="tfnet_train_canary")
    class Probe(keras.layers.Layer):
        @classmethod
        def from_config(cls, config: dict[str, Any]) -> Any:
            seen.append(keras_internals.in_safe_mode())
            return cls(**config)

    for safe_mode in (True, False):
        keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(Probe()), safe_mode=safe_mode)
    canary(seen == [True, False], "serialization_lib.in_safe_mode", use)


def test_tf_keras_safe_mode_scope_governs_its_lambdas() -> None:
    import tf_keras

    use = "a tf.keras SavedModel's config is rebuilt in tf.keras's safe-mode scope, which refuses its lambdas"
    config = tf_keras.layers.serialize(tf_keras.layers.Lambda(lambda t: t * 2.0))
    try:
        with keras_internals.tf_keras_safe_mode(True):
            tf_keras.layers.deserialize(config)
        refused = False
    except ValueError as error:
        refused = "lambda" in str(error)
    canary(refused, "tf_keras.src.saving.serialization_lib.SafeModeScope(True)", use, "tf-keras")
    with keras_internals.tf_keras_safe_mode(False):
        layer = tf_keras.layers.deserialize(config)
    canary(float(layer(tf.constant([1.5]))[0]) == 3.0, "tf_keras.src.saving.serialization_lib.SafeModeScope(False)",
           use, "tf-keras")


def test_tf_keras_builtin_layers_are_found_by_name() -> None:
    import tf_keras

    use = "a tf.keras SavedModel refused under safe_mode names the classes not at hand"
    found = [keras_internals.tf_keras_builtin_layer(n) for n in ("Dense", "ResidualWrapper", "NoSuchLayerHere")]
    canary(found[0] is tf_keras.layers.Dense and isinstance(found[1], type) and found[2] is None,
           "tf_keras.src.layers.serialization.get_builtin_layer", use, "tf-keras")


def test_tf_keras_revived_layers_are_told_apart(tmp_path: Path) -> None:
    import tf_keras

    class Doubler(tf_keras.layers.Layer):
        def call(self, inputs: tf.Tensor) -> tf.Tensor:
            return inputs * 2.0

    inputs = tf_keras.Input((2,))
    tf_keras.Model(inputs, tf_keras.layers.Dense(1)(Doubler()(inputs))).save(tmp_path / "m", save_format="tf")
    loaded = tf_keras.models.load_model(tmp_path / "m")  # Doubler is unknown to the loader: revived
    use = "layers of unknown classes in a tf.keras SavedModel become RevivedLayers"
    canary([keras_internals.is_tf_keras_revived(layer) for layer in loaded.layers] == [False, True, False],
           "tf_keras.src.saving.legacy.saved_model.load.RevivedLayer", use, "tf-keras")
    canary(hasattr(loaded.layers[1], "keras_api") and
           hasattr(loaded.layers[1].keras_api, "call_and_return_conditional_losses"), "RevivedLayer.keras_api", use,
           "tf-keras")


def test_rebase_rewrites_the_bases() -> None:
    class A:
        pass

    class B:
        pass

    class C(A):
        pass

    keras_internals.rebase(C, lambda base: B if base is A else base)
    assert C.__bases__ == (B,) and issubclass(C, B) and not issubclass(C, A)


# ----- Keras's trainer ------------------------------------------------------------------------------------------


def _keras_model() -> keras.Model:
    inputs = keras.Input((2,))
    return keras.Model(inputs, keras.layers.Dense(1)(inputs))


def test_trainer_privates() -> None:
    model = _keras_model()
    canary(keras_internals.compile_loss(model) is None, "Trainer._compile_loss", "a model without a loss needs no y")
    model.compile("sgd", "mse", metrics=["mae"])
    canary(callable(keras_internals.compile_loss(model)), "Trainer._compile_loss",
           "compute_loss under tfnet calls the compiled loss alone")
    tracker = keras_internals.loss_tracker(model)
    canary(isinstance(tracker, keras.metrics.Mean) and tracker in model.metrics, "Trainer._loss_tracker",
           "the train and test steps record the loss log")
    wrapped = keras_internals.autoconvert_optionals(model, lambda data: data)
    canary(callable(wrapped) and wrapped(3) == 3, "Trainer._autoconvert_optionals",
           "the step function takes Optional batches")
    use = "validation_freq is read as Keras reads it"
    canary([keras_internals.should_eval(model, e, 2) for e in range(4)] == [False, True, False, True],
           "Trainer._should_eval", use)
    canary(keras_internals.should_eval(model, 2, [3]) and not keras_internals.should_eval(model, 1, [3]),
           "Trainer._should_eval", use)
    model.fit(np.ones((4, 2), np.float32), np.ones((4, 1), np.float32), verbose=0)
    logs = keras_internals.metrics_result_or_logs(model, {"loss": 0.0, "mae": 0.0})
    canary(set(logs) == {"loss", "mae"} and isinstance(logs["loss"], tf.Tensor | np.ndarray | float),
           "Trainer._get_metrics_result_or_logs", "a distributed fit's epoch logs read the metric variables")
    canary(hasattr(model, "_initial_epoch"), "Trainer._initial_epoch", "fit starts where a backup left off")


def test_compile_config_carries_a_set_option_into_both_saved_formats() -> None:
    model = _keras_model()
    model.compile("sgd", "mse", metrics=[keras.metrics.MeanAbsoluteError()])
    use = "the semantics profile is saved with the compile configuration"
    given = keras_internals.compile_options(model)
    canary(isinstance(given, dict) and isinstance(given["metrics"][0], keras.metrics.MeanAbsoluteError),
           "Trainer._compile_config.config", "conformance reads compile's metric objects as given")
    keras_internals.set_compile_option(model, "semantics", "tfnet")
    canary(model.get_compile_config().get("semantics") == "tfnet", "Trainer._compile_config.config", use)
    metadata = keras_internals.legacy_saving().saving_utils.model_metadata(model)
    canary(metadata["training_config"].get("semantics") == "tfnet", "legacy saving_utils.model_metadata", use)


# ----- the epoch iterator ---------------------------------------------------------------------------------------


class _Owner:
    """What the DataHandler gives Keras's epoch iterator: the passes and the ran-out warning."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.epochs: Any = None

    def next_pass(self) -> Any:
        self.calls.append("pass")
        return self.epochs.keras_pass()

    def warn_interrupted(self) -> None:
        self.calls.append("interrupted")


def _epochs(x: np.ndarray, steps_per_epoch: int | None, pipeline: bool = True) -> tuple[Any, _Owner]:
    owner = _Owner()
    adapter = keras_internals.get_data_adapter(x, batch_size=2, steps_per_epoch=steps_per_epoch)
    owner.epochs = keras_internals.KerasEpochs(owner, adapter, steps_per_epoch, 1, tf.distribute.get_strategy(),
                                               pipeline=pipeline)
    return owner.epochs, owner


def _keras_made(x: np.ndarray) -> Any:
    adapter = keras_internals.get_data_adapter(x, batch_size=2)
    return keras_internals.TFEpochIterator(distribute_strategy=tf.distribute.get_strategy(), x=adapter)


@pytest.mark.parametrize("pipeline", [True, False])
def test_epoch_iterator_sets_the_fields_keras_sets(pipeline: bool) -> None:
    x = np.ones((6, 2), np.float32)
    keras_made = _keras_made(x)
    ours, _ = _epochs(x, None, pipeline=pipeline)
    for field in ("steps_per_epoch", "steps_per_execution", "_current_iterator", "_epoch_iterator", "_steps_seen",
                  "data_adapter", "_num_batches", "_distribute_strategy", "_distributed_dataset"):
        canary(field in vars(keras_made), f"EpochIterator.{field}", "KerasEpochs sets the iterator's state itself")
        assert field in vars(ours)
    extra = set(vars(keras_made)) - set(vars(ours))
    canary(not extra, f"EpochIterator fields {sorted(extra)}", "KerasEpochs sets every field Keras's __init__ sets")
    canary(keras_made.num_batches == ours.num_batches == 3, "EpochIterator._num_batches", "a block's step count")


def test_a_pipelined_epoch_iterator_distributes_its_dataset_on_the_first_pass_as_keras_does_at_once() -> None:
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    keras_made = _keras_made(x)
    canary(isinstance(keras_made._distributed_dataset, tf.distribute.DistributedDataset)
           or isinstance(keras_made._distributed_dataset, tf.data.Dataset),
           "TFEpochIterator._distributed_dataset", "KerasEpochs distributes the adapter's dataset on first use")
    ours, _ = _epochs(x, None)
    assert ours._distributed_dataset is None
    ours_batches = [b[0].numpy() for b in ours.keras_pass()]
    keras_batches = [b[0].numpy() for b in keras_made._get_iterator()]
    canary(len(keras_batches) == 3, "TFEpochIterator._get_iterator", "Keras's pass is its distributed dataset")
    np.testing.assert_array_equal(np.stack(ours_batches), np.stack(keras_batches))
    assert ours.keras_pass() is ours._distributed_dataset  # distributed once


def test_epoch_iterator_makes_passes_and_warns_through_its_owner() -> None:
    x = np.ones((4, 2), np.float32)
    epochs, owner = _epochs(x, None)
    steps = [(begin, end) for begin, end, _ in epochs]
    canary(owner.calls == ["pass", "pass"] and steps == [(0, 0), (1, 1)], "EpochIterator._get_iterator",
           "the DataHandler makes each pass (fast path, agreed shuffle order, lazy distributed passes)")
    canary(epochs.known_batches == 2 and epochs.strategy is tf.distribute.get_strategy(), "EpochIterator._num_batches",
           "the DataHandler's steps and strategy")
    short, owner = _epochs(x, 3)
    for _ in short:
        pass
    canary("interrupted" in owner.calls, "EpochIterator._interrupted_warning",
           "a stream's pass ends without Keras's ran-out-of-data warning")
    iter(short)
    canary(short.steps_of_pass is not None, "EpochIterator._epoch_iterator", "the DataHandler's blocks")


# ----- optimizers -----------------------------------------------------------------------------------------------


def _built(optimizer: keras.optimizers.Optimizer) -> tuple[keras.optimizers.Optimizer, list[keras.Variable]]:
    variables = [keras.Variable(np.ones((2,), np.float32), name="a"), keras.Variable(np.ones((3,), np.float32),
                                                                                     name="b")]
    optimizer.build(variables)
    return optimizer, variables


@pytest.mark.parametrize(("optimizer", "table"), [
    (keras.optimizers.SGD(momentum=0.9), keras_internals.SGD_SLOTS),
    (keras.optimizers.Adam(amsgrad=True), keras_internals.ADAM_SLOTS),
    (keras.optimizers.AdamW(amsgrad=True), keras_internals.ADAM_SLOTS),
    (keras.optimizers.RMSprop(centered=True, momentum=0.5), keras_internals.RMSPROP_SLOTS),
], ids=["SGD", "Adam", "AdamW", "RMSprop"])
def test_optimizer_slot_lists(optimizer: keras.optimizers.Optimizer, table: dict[str, str]) -> None:
    optimizer, variables = _built(optimizer)
    for attribute in table.values():
        slots = keras_internals.slot_list(optimizer, attribute)
        canary(isinstance(slots, list) and len(slots) == 2, f"{type(optimizer).__name__}.{attribute}",
               "the trace's optimizer slots and TF.NET's update kernels")
        for i, variable in enumerate(variables):
            canary(keras_internals.variable_index(optimizer, variable) == i, "Optimizer._get_variable_index",
                   "a variable's slot")
            canary(tuple(keras_internals.slot_of(optimizer, attribute, variable).shape) == tuple(variable.shape),
                   f"{type(optimizer).__name__}.{attribute}", "a variable's slot has its shape")
    canary(keras_internals.trainable_variables_of(optimizer) == variables, "Optimizer._trainable_variables",
           "apply without a variable list")


def test_optimizer_learning_rate_and_weight_decay_privates() -> None:
    schedule = keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=1, decay_rate=0.5)
    optimizer, variables = _built(keras.optimizers.AdamW(schedule))
    canary(keras_internals.configured_learning_rate(optimizer) is schedule, "Optimizer._learning_rate",
           "tfnet refuses a schedule")
    optimizer.iterations.assign(2)
    canary(abs(float(keras_internals.current_learning_rate(optimizer)) - 0.025) < 1e-7,
           "Optimizer._get_current_learning_rate", "the trace's next learning rate")
    optimizer.exclude_from_weight_decay(var_list=[variables[1]])
    canary(not keras_internals.excluded_from_weight_decay(optimizer, variables[0])
           and keras_internals.excluded_from_weight_decay(optimizer, variables[1]),
           "Optimizer._var_key / _exclude_from_weight_decay", "tfnet's AdamW skips excluded variables")


def _apply_once(optimizer: keras.optimizers.Optimizer, grad: float) -> float:
    variable = keras.Variable(np.zeros((1,), np.float32))
    optimizer.apply([tf.constant([grad])], [variable])
    return float(np.asarray(variable)[0])


def test_apply_clips_decays_and_all_reduces_through_the_patched_hooks() -> None:
    calls: list[str] = []
    optimizer = keras.optimizers.SGD(1.0)

    def record(name: str) -> Any:
        def hook(items: Any) -> Any:
            calls.append(name)
            return items
        return hook

    # preprocessed replaces these on the instance: were one renamed, apply would clip or all-reduce a second time.
    for name in ("_clip_gradients", "_all_reduce_sum_gradients"):
        object.__setattr__(optimizer, name, record(name))
    _apply_once(optimizer, 1.0)
    for name in ("_clip_gradients", "_all_reduce_sum_gradients"):
        canary(name in calls, f"Optimizer.{name}",
               "preprocessed makes it identity so the engine's clipped, all-reduced gradients are applied as given")

    class Decaying(keras.optimizers.SGD):
        def _apply_weight_decay(self, variables: Any) -> None:
            calls.append("_apply_weight_decay")
            super()._apply_weight_decay(variables)

    _apply_once(Decaying(1.0), 1.0)
    canary("_apply_weight_decay" in calls, "Optimizer._apply_weight_decay", "tfnet applies no decoupled weight decay")


def test_preprocessed_applies_gradients_as_given() -> None:
    use = "inside preprocessed apply neither divides by loss_scale_factor nor clips"
    canary(abs(_apply_once(keras.optimizers.SGD(1.0, loss_scale_factor=2.0), 3.0) + 1.5) < 1e-6,
           "Optimizer.loss_scale_factor", use)
    canary(abs(_apply_once(keras.optimizers.SGD(1.0, clipvalue=0.1), 3.0) + 0.1) < 1e-6,
           "Optimizer._clip_gradients", use)
    optimizer = keras.optimizers.SGD(1.0, clipvalue=0.1, loss_scale_factor=2.0)
    with keras_internals.preprocessed(optimizer):
        canary(keras_internals.loss_scale_factor(optimizer) == 2.0, "Optimizer.loss_scale_factor", use)
        got = _apply_once(optimizer, 3.0)
    canary(abs(got + 3.0) < 1e-6, "Optimizer._clip_gradients / loss_scale_factor", use)
    assert optimizer.loss_scale_factor == 2.0 and "_clip_gradients" not in vars(optimizer)  # restored
    assert_close(keras_internals.keras_clip_gradients(optimizer, [tf.constant([3.0])])[0], [0.1])


# ----- callbacks ------------------------------------------------------------------------------------------------


def test_backup_and_restore_saves_and_loads_through_its_hooks(tmp_path: Path) -> None:
    calls: list[str] = []

    class Recording(keras_internals.BackupAndRestoreHooks):
        def save_backup(self) -> None:
            calls.append(f"save epoch={self.current_epoch} batch={self.last_batch_seen}")
            super().save_backup()

        def load_backup(self) -> None:
            calls.append("load")
            super().load_backup()

    x, y = np.ones((4, 2), np.float32), np.ones((4, 1), np.float32)
    model = _keras_model()
    model.compile("sgd", "mse")
    backup = Recording(str(tmp_path / "backup"), delete_checkpoint=False)
    model.fit(x, y, epochs=2, verbose=0, callbacks=[backup])
    use = "the engine's BackupAndRestore writes and reads its own backups"
    canary(calls == ["load", "save epoch=1 batch=0", "save epoch=2 batch=0"],
           "BackupAndRestore._save_model / _load_model / _current_epoch / _last_batch_seen", use)
    metadata = Path(backup.metadata_path)
    canary(metadata.exists() and json.loads(metadata.read_text())["epoch"] == 2,
           "BackupAndRestore._training_metadata_path", use)
    fresh = _keras_model()
    fresh.compile("sgd", "mse")
    fresh.build((None, 2))
    restored = keras.callbacks.BackupAndRestore(str(tmp_path / "backup"))
    restored.set_model(fresh)
    restored.on_train_begin()
    canary(keras_internals.initial_epoch(fresh) == 2, "Trainer._initial_epoch",
           "Keras's BackupAndRestore tells fit where to resume")


# ----- more of the trainer, the array adapter and callbacks ------------------------------------------------------


def test_trainer_step_helpers() -> None:
    class NoTraining(keras.layers.Layer):
        def call(self, x: Any) -> Any:
            return x * 2.0

    class WithTraining(keras.layers.Layer):
        def call(self, x: Any, training: bool = False) -> Any:
            return x * (3.0 if training else 1.0)

    x = tf.ones((1, 1))
    use = "the steps pass training only to a call that takes it"
    canary(float(keras_internals.call_for_step(NoTraining(), x, training=True)[0, 0]) == 2.0,
           "Layer._call_has_training_arg", use)
    canary(float(keras_internals.call_for_step(WithTraining(), x, training=True)[0, 0]) == 3.0,
           "Layer._call_has_training_arg", use)
    model = _keras_model()
    model.compile("sgd", "mse", metrics=["mae"])
    xs, ys = np.ones((2, 2), np.float32), np.zeros((2, 1), np.float32)
    keras_internals.symbolic_build(model, data_batch=(xs, ys, None))
    canary(model.built and model.optimizer.built, "Trainer._symbolic_build", "fit builds model and optimizer first")
    y_pred = model(xs)
    loss = keras_internals.keras_compute_loss(model, x=xs, y=ys, y_pred=y_pred, sample_weight=None, training=True)
    assert_close(loss, np.mean(np.square(np.asarray(y_pred))))
    model.evaluate(xs, ys, verbose=0)
    flat = keras_internals.flatten_metrics_in_order(model, {"mae": 2.0, "loss": 1.0})
    canary(flat == [1.0, 2.0], "Trainer._flatten_metrics_in_order", "evaluate's list follows metrics_names")
    canary(keras_internals.explicit_strategy(model) is None, "TensorFlowTrainer._distribute_strategy",
           "a model outside any strategy skips the distributed build")


def test_array_adapter_state() -> None:
    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    adapter = keras_internals.ArrayDataAdapter(x, np.ones((5,)), batch_size=2, shuffle="batch")
    state = keras_internals.array_adapter_state(adapter)
    canary((state.num_samples, state.batch_size, state.shuffle) == (5, 2, "batch"),
           "ArrayDataAdapter._num_samples / _batch_size / _shuffle", "the fast path batches the arrays itself")
    canary(np.array_equal(np.asarray(keras.tree.flatten(state.inputs)[0]), x), "ArrayDataAdapter._inputs",
           "the fast path batches the arrays Keras checked")


def test_callback_privates(tmp_path: Path) -> None:
    progbar = keras.callbacks.ProgbarLogger()
    canary(not keras_internals.progbar_in_fit(progbar), "ProgbarLogger._called_in_fit",
           "validation batches inside fit draw nothing")
    board = keras.callbacks.TensorBoard(str(tmp_path), profile_batch=0)
    canary(not keras_internals.tensorboard_traces(board), "TensorBoard._should_trace", "batch hooks for profiling")
    board.set_model(_keras_model())
    board.on_train_begin()
    canary(keras_internals.tensorboard_graph_pending(board), "TensorBoard._should_write_train_graph",
           "the engine writes the training graph of its compiled call")
    writer = keras_internals.tensorboard_graph_written(board)
    canary(hasattr(writer, "as_default") and not keras_internals.tensorboard_graph_pending(board),
           "TensorBoard._train_writer", "the training graph's log")
    board.on_train_end()


# ----- private methods the engine overrides: Keras must still call them ----------------------------------------


def test_keras_still_calls_the_function_maker_the_engine_overrides() -> None:
    import inspect

    source = inspect.getsource(keras_internals.TensorFlowTrainer.make_test_function)
    canary("self._make_function(" in source, "TensorFlowTrainer._make_function (called from make_test_function)",
           "evaluate's test_function is the engine's compiled loop")


@pytest.mark.parametrize(("hook", "parameters", "use"), [
    ("_make_function", ["self", "step_function"], "the engine's compiled loop for train and test functions"),
    ("_assert_compile_called", ["self", "method_name"], "the engine's clear error for an uncompiled model"),
    ("_maybe_symbolic_build", ["self", "iterator", "data_batch"], "the engine builds from a worker's local batch"),
])
def test_the_methods_the_engine_overrides_keep_their_signature(hook: str, parameters: list[str], use: str) -> None:
    import inspect

    method = getattr(keras_internals.TensorFlowTrainer, hook, None)
    canary(method is not None and list(inspect.signature(method).parameters) == parameters,
           f"TensorFlowTrainer.{hook}{parameters}", use)
