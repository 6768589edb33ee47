"""Keras internals: the one module of the engine that touches a private name of Keras or TensorFlow.

Everything else imports from here. Each use below carries a one-line reason (no public name does the same);
``tests/test_keras_internals.py`` holds a canary per name that fails with "Keras X.Y moved <name>: <what the engine
uses it for>" the day an upgrade moves, renames or stops calling it. Public names are used wherever they exist
(``keras.tree``, ``keras.utils.unpack_x_y_sample_weight``, ``get_compile_config()``), outside this module.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from types import SimpleNamespace
from typing import Any

import keras
import tensorflow as tf

# ----- classes and helpers without a public name (one reason each) ---------------------------------------------
# TensorFlowTrainer: the engine's Trainer extends it (keras.Model is it plus Layer; a Trainer mixed into a layer
#   needs the trainer alone). TFEpochIterator: the DataHandler's step counting (composed, as KerasEpochs).
# convert_to_np_if_not_ragged, potentially_ragged_concat: predict joins batch outputs as Keras's (ragged stays ragged).
from keras.src.backend.tensorflow.trainer import (
    TensorFlowTrainer,
    TFEpochIterator,
    convert_to_np_if_not_ragged,
    potentially_ragged_concat,
)

# The loss tracker records the loss unscaled from the distribution's share, as Keras's train_step does.
from keras.src.losses.loss import unscale_loss_for_distribution

# A loss given as a function is wrapped as Keras's compile wraps it (keras.losses does not export the class).
from keras.src.losses.losses import LossFunctionWrapper

# The engine's Functional extends Keras's, and Model(inputs=, outputs=) builds one.
from keras.src.models.functional import Functional as KerasFunctional

# Model(...) chooses functional or subclassed construction by Keras's own rule.
from keras.src.models.model import functional_init_arguments

# Keras's adapters for inputs the fast path does not take (tf.data, generators, PyDataset, ragged, sparse).
from keras.src.trainers import data_adapters as _data_adapters

# class_weight under the keras profile is Keras's own per-sample mapping.
from keras.src.trainers.data_adapters import data_adapter_utils as _data_adapter_utils

# In-memory arrays are checked, class-weighted and counted by Keras's ArrayDataAdapter (the fast path extends it).
from keras.src.trainers.data_adapters.array_data_adapter import ArrayDataAdapter

# Keras's array slicing (sparse, ragged, pandas, ...) splits validation arrays and feeds the fast path.
from keras.src.trainers.data_adapters.array_slicing import can_slice_array, convert_to_sliceable

# A functional-style subclass runs Keras's Trainer.__init__ before Functional's, as keras.Model.__new__ arranges.
from keras.src.trainers.trainer import Trainer as KerasTrainer

# is_default: callback hooks left as Keras's defaults are skipped per batch, as Keras's CallbackList skips them.
# pythonify_logs: logs handed to callbacks and returned by evaluate/train_on_batch are Python floats, as Keras's.
from keras.src.utils.python_utils import is_default, pythonify_logs

__all__ = [
    "ADAM_SLOTS", "ArrayDataAdapter", "BackupAndRestoreHooks", "KerasEpochs", "KerasFunctional", "KerasTrainer",
    "LossFunctionWrapper", "OptimizerHooks", "RMSPROP_SLOTS", "SGD_SLOTS", "TFEpochIterator", "TensorFlowTrainer",
    "array_adapter_state", "autoconvert_optionals", "call_concrete", "call_concrete_with_captures", "call_for_step",
    "can_slice_array", "class_weight_to_sample_weights", "compile_loss", "compile_options", "configured_learning_rate",
    "convert_to_np_if_not_ragged", "convert_to_sliceable", "current_learning_rate", "excluded_from_weight_decay",
    "explicit_strategy", "flatten_metrics_in_order", "functional_init_arguments", "get_data_adapter", "in_safe_mode",
    "initial_epoch", "is_default", "is_tf_keras_revived", "keras_clip_gradients", "keras_compute_loss", "legacy_saving",
    "loss_scale_factor", "loss_tracker", "metrics_result_or_logs", "potentially_ragged_concat", "preprocessed",
    "progbar_in_fit", "pythonify_logs", "rebase", "set_compile_option", "set_initial_epoch", "should_eval", "slot_list",
    "slot_of", "symbolic_build", "tensorboard_graph_pending", "tensorboard_graph_written", "tensorboard_traces",
    "tf_keras_builtin_layer", "tf_keras_safe_mode", "trainable_variables_of", "unscale_loss_for_distribution",
    "variable_index",
]

Gradient = tf.Tensor | None  # one per trainable variable (None: the variable has no gradient)


def array_adapter_state(adapter: Any) -> SimpleNamespace:
    """What Keras's ArrayDataAdapter.__init__ checked and kept (inputs with class weights applied, sample count,
    batch size, shuffle mode): the fast path batches the same arrays itself."""
    return SimpleNamespace(inputs=adapter._inputs, num_samples=adapter._num_samples, batch_size=adapter._batch_size,
                           shuffle=adapter._shuffle)


def get_data_adapter(x: Any, **kwargs: Any) -> Any:
    """Keras's adapter for ``x`` (the engine's fast path takes in-memory arrays and streams only)."""
    return _data_adapters.get_data_adapter(x, **kwargs)


def class_weight_to_sample_weights(y: Any, class_weight: dict[int, float]) -> Any:
    """Keras's per-sample weights from a class-weight dict (keras profile)."""
    return _data_adapter_utils.class_weight_to_sample_weights(y, class_weight)


def legacy_saving() -> SimpleNamespace:
    """Keras 3's legacy ``.h5`` reader modules (imported on first use: they pull in h5py)."""
    from keras.src.legacy.saving import json_utils, legacy_h5_format, saving_options, saving_utils
    from keras.src.saving import serialization_lib

    return SimpleNamespace(json_utils=json_utils, legacy_h5_format=legacy_h5_format, saving_options=saving_options,
                           saving_utils=saving_utils, SafeModeScope=serialization_lib.SafeModeScope)


# ----- Python and TensorFlow ------------------------------------------------------------------------------------


def rebase(cls: type, replace: Callable[[type], type]) -> None:
    """Give ``cls`` the bases ``replace`` maps its bases to (Keras injects its Functional by rewriting
    ``__bases__``; the engine injects its own the same way so tfnet_train.Model itself stays untouched)."""
    cls.__bases__ = tuple(replace(base) for base in cls.__bases__)


def call_concrete(concrete: Any, tensors: Sequence[Any]) -> Any:
    """Call a ConcreteFunction with flat tensors already matched to its signature: ``_call_flat`` skips the
    public call's argument re-binding, which costs more than a small step; the public call if it is gone."""
    if hasattr(concrete, "_call_flat"):
        return concrete._call_flat(list(tensors), concrete.captured_inputs)
    return concrete(*tensors)


def call_concrete_with_captures(concrete: Any, tensors: Sequence[Any], captures: Sequence[Any]) -> Any:
    """Call a ConcreteFunction with other tensors in place of what it captured (a revived layer's own variables
    in place of the saved ones): ``_call_flat`` takes the captured inputs as an argument, no public call does."""
    return concrete._call_flat(list(tensors), list(captures))


def in_safe_mode() -> bool | None:
    """Keras's current ``safe_mode`` while it deserializes (None outside a load: Keras then treats it as safe),
    as ``keras.layers.TFSMLayer.from_config`` reads it."""
    from keras.src.saving import serialization_lib

    return serialization_lib.in_safe_mode()


def is_tf_keras_revived(layer: Any) -> bool:
    """True for a layer tf.keras rebuilt from its saved graph because its class was unknown (its loader makes
    such classes at load time; no public name tells them from the layers it rebuilt from config)."""
    from tf_keras.src.saving.legacy.saved_model.load import RevivedLayer

    return isinstance(layer, RevivedLayer)


def tf_keras_safe_mode(safe_mode: bool) -> Any:
    """tf.keras's own safe-mode scope (tf-keras exports none): within ``tf_keras_safe_mode(True)`` its deserializers
    refuse Python lambdas (a Lambda layer's, a cell wrapper's ``residual_fn`` or dropout filter) as Keras 3's
    ``safe_mode`` does; outside any scope tf.keras loads them, as its SavedModel loader does."""
    from tf_keras.src.saving.serialization_lib import SafeModeScope

    return SafeModeScope(safe_mode)


def tf_keras_builtin_layer(class_name: str) -> type | None:
    """The tf.keras layer class its deserializer knows by ``class_name`` (those it exports under no public name, such
    as its RNN cell wrappers, included), else None: what a SavedModel's refusal names as not at hand."""
    from tf_keras.src.layers.serialization import get_builtin_layer

    return get_builtin_layer(class_name)


# ----- Keras's trainer ------------------------------------------------------------------------------------------


def compile_loss(model: keras.Model) -> Any:
    """The compiled loss container (None before compile): compute_loss under tfnet calls it without Keras's
    regularization terms, and a model without one needs no targets."""
    return getattr(model, "_compile_loss", None)


def call_for_step(model: keras.Model, x: Any, training: bool) -> Any:
    """``model(x, training=...)`` when its call takes ``training``, else ``model(x)``, as Keras's steps call it."""
    return model(x, training=training) if model._call_has_training_arg else model(x)


def keras_compute_loss(model: keras.Model, **kwargs: Any) -> Any:
    """Keras's route to ``compute_loss``: it calls a user override written with or without ``training``."""
    return model._compute_loss(**kwargs)


def flatten_metrics_in_order(model: keras.Model, logs: dict[str, Any]) -> Any:
    """Logs as the list ``metrics_names`` orders them (evaluate and *_on_batch without return_dict)."""
    return model._flatten_metrics_in_order(logs)


def symbolic_build(model: keras.Model, data_batch: Any) -> None:
    """Keras's build of the model, compiled metrics and optimizer from one batch (traced, nothing computed)."""
    model._symbolic_build(data_batch=data_batch)


def explicit_strategy(model: keras.Model) -> Any:
    """The strategy the model was created under, None outside any (``distribute_strategy`` returns the default)."""
    return model._distribute_strategy


def loss_tracker(model: keras.Model) -> Any:
    """The Mean behind the ``loss`` log: the engine's train and test steps update it as Keras's do."""
    return model._loss_tracker


def autoconvert_optionals(model: keras.Model, function: Callable[..., Any]) -> Callable[..., Any]:
    """Keras's wrapper that turns tf.experimental.Optional batches into values inside the step function."""
    return model._autoconvert_optionals(function)


def metrics_result_or_logs(model: keras.Model, logs: Any) -> dict[str, Any]:
    """The epoch's logs as Keras reports them: metric results, or the step's logs when they name other keys."""
    return model._get_metrics_result_or_logs(logs)


def should_eval(model: keras.Model, epoch: int, validation_freq: Any) -> bool:
    """Keras's reading of ``validation_freq`` (an int period or a collection of epochs)."""
    return model._should_eval(epoch, validation_freq)


def initial_epoch(model: keras.Model) -> int | None:
    """The epoch a BackupAndRestore restored (Keras's callback sets it on the model before the first epoch)."""
    return model._initial_epoch


def set_initial_epoch(model: keras.Model, epoch: int) -> None:
    """Resume at ``epoch``, as Keras's BackupAndRestore does after loading a backup."""
    model._initial_epoch = epoch


def compile_options(model: keras.Model) -> dict[str, Any] | None:
    """compile()'s arguments as given, metric objects included (``get_compile_config()`` serializes them)."""
    config = getattr(model, "_compile_config", None)
    return config.config if config is not None else None


def set_compile_option(model: keras.Model, key: str, value: Any) -> None:
    """Record ``key`` in the compile configuration: ``get_compile_config()`` serializes it and Keras's legacy
    ``.h5`` writer reads the same dict directly, so both saved formats keep it (no public setter exists)."""
    model._compile_config.config[key] = value


# ----- the epoch iterator ---------------------------------------------------------------------------------------


class KerasEpochs(TFEpochIterator):
    """Keras's TensorFlow epoch iterator (step counting, steps_per_execution, running out of data, distribution),
    driven by an owner (the DataHandler composes it): Keras's step loop asks ``owner.next_pass()`` for each pass and
    calls ``owner.warn_interrupted()`` when the data runs out; the owner calls ``keras_pass``/``keras_warn_interrupted``
    for Keras's own. With ``pipeline=True`` the adapter is one of Keras's and ``keras_pass`` is the distributed dataset,
    distributed on first use; with ``pipeline=False`` (in-memory arrays and streams on one device) the owner makes every
    pass and no dataset is ever distributed.
    """

    def __init__(self, owner: Any, adapter: Any, steps_per_epoch: int | None, steps_per_execution: int,
                 strategy: tf.distribute.Strategy, pipeline: bool) -> None:
        self.owner = owner
        self._distributed_dataset = None
        if pipeline:
            # EpochIterator's state; TFEpochIterator.__init__ would distribute the dataset now, keras_pass does it on
            # first use (a fit whose replicas gather their own rows never reads it, and distributing costs 0.3-0.8 s)
            super(TFEpochIterator, self).__init__(x=adapter, steps_per_epoch=steps_per_epoch,
                                                  steps_per_execution=steps_per_execution)
            self._distribute_strategy = strategy
            return
        # The state EpochIterator.__init__ sets (its get_data_adapter does not take a stream's adapter).
        self.steps_per_epoch = steps_per_epoch
        self.steps_per_execution = steps_per_execution
        self._current_iterator = None
        self._epoch_iterator = None
        self._steps_seen = 0
        self.data_adapter = adapter
        self._num_batches = adapter.num_batches
        self._distribute_strategy = strategy

    def _get_iterator(self) -> Any:  # EpochIterator's step loop makes each pass with this method
        return self.owner.next_pass()

    def _interrupted_warning(self) -> None:  # EpochIterator warns through this method when the data runs out
        self.owner.warn_interrupted()

    def keras_pass(self) -> Any:
        """Keras's pass: the distributed dataset (distributed on first use, as TFEpochIterator.__init__ does)."""
        if self._distributed_dataset is None:
            dataset = self.data_adapter.get_tf_dataset()
            if not isinstance(dataset, tf.distribute.DistributedDataset):
                dataset = self._distribute_strategy.experimental_distribute_dataset(dataset)
            self._distributed_dataset = dataset
        return super()._get_iterator()

    def keras_warn_interrupted(self) -> None:
        """Keras's "input ran out of data" warning."""
        super()._interrupted_warning()

    @property
    def steps_of_pass(self) -> Iterator[tuple[int, int, Any]]:
        """The ``(begin, end, iterator)`` generator of the current pass (``iter(self)`` makes it)."""
        return self._epoch_iterator

    @property
    def known_batches(self) -> int | None:
        """Batches per pass as known: the adapter's, or those counted when a pass ran out (``num_batches``
        prefers steps_per_epoch)."""
        return self._num_batches

    @property
    def strategy(self) -> tf.distribute.Strategy:
        """The distribution strategy the input is distributed with."""
        return self._distribute_strategy


# ----- optimizers -----------------------------------------------------------------------------------------------

#: Keras's slot lists per optimizer, under the trace's slot names.
SGD_SLOTS: dict[str, str] = {"momentum": "momentums"}
ADAM_SLOTS: dict[str, str] = {"m": "_momentums", "v": "_velocities", "vhat": "_velocity_hats"}
RMSPROP_SLOTS: dict[str, str] = {"rms": "_velocities", "mg": "_average_gradients", "momentum": "_momentums"}


def slot_list(optimizer: keras.optimizers.Optimizer, attribute: str) -> list[Any] | None:
    """The optimizer's list of slot variables ``attribute`` (one of the *_SLOTS values), None if absent."""
    return getattr(optimizer, attribute, None)


def variable_index(optimizer: keras.optimizers.Optimizer, variable: keras.Variable) -> int:
    """The index of ``variable`` in the optimizer's trainable variables and slot lists."""
    return optimizer._get_variable_index(variable)


def slot_of(optimizer: keras.optimizers.Optimizer, attribute: str, variable: keras.Variable) -> Any:
    """Slot variable ``attribute`` (one of the *_SLOTS values) of ``variable``."""
    return getattr(optimizer, attribute)[variable_index(optimizer, variable)]


def trainable_variables_of(optimizer: keras.optimizers.Optimizer) -> list[keras.Variable]:
    """The variables the optimizer was built for (``apply`` without a variable list updates these)."""
    return list(optimizer._trainable_variables)


def configured_learning_rate(optimizer: keras.optimizers.Optimizer) -> Any:
    """The learning rate as configured: the variable, or the schedule itself (the public property evaluates a
    schedule)."""
    return optimizer._learning_rate


def current_learning_rate(optimizer: keras.optimizers.Optimizer) -> Any:
    """The learning rate the next step uses (the schedule's value at ``iterations`` for a schedule)."""
    return optimizer._get_current_learning_rate()


def excluded_from_weight_decay(optimizer: keras.optimizers.Optimizer, variable: keras.Variable) -> bool:
    """Whether ``exclude_from_weight_decay(var_list=...)`` named ``variable``."""
    return optimizer._var_key(variable) in getattr(optimizer, "_exclude_from_weight_decay", set())


def keras_clip_gradients(optimizer: keras.optimizers.Optimizer, grads: Sequence[Gradient]) -> list[Gradient]:
    """The class's clipping (clipnorm, global_clipnorm or clipvalue): the class's method, since another replica
    thread may hold the instance inside ``preprocessed`` right now."""
    return list(type(optimizer)._clip_gradients(optimizer, list(grads)))


class OptimizerHooks:
    """Keras's private optimizer hooks routed to engine-named methods (mixed in before a Keras optimizer).

    Keras's ``apply`` clips through ``_clip_gradients`` and decays through ``_apply_weight_decay``; a subclass
    overrides ``clip_stage`` and ``weight_decay_stage`` and calls ``keras_clip``/``keras_weight_decay`` for
    Keras's own behaviour.
    """

    def _clip_gradients(self, grads: Sequence[Gradient]) -> list[Gradient]:  # Keras's apply clips through this method
        return self.clip_stage(grads)

    # Keras's apply decays through this method
    def _apply_weight_decay(self, variables: Sequence[keras.Variable]) -> None:
        self.weight_decay_stage(variables)

    def clip_stage(self, grads: Sequence[Gradient]) -> list[Gradient]:
        return self.keras_clip(grads)

    def weight_decay_stage(self, variables: Sequence[keras.Variable]) -> None:
        self.keras_weight_decay(variables)

    def keras_clip(self, grads: Sequence[Gradient]) -> list[Gradient]:
        return list(super()._clip_gradients(list(grads)))  # type: ignore[misc]

    def keras_weight_decay(self, variables: Sequence[keras.Variable]) -> None:
        super()._apply_weight_decay(variables)  # type: ignore[misc]


def _keep_as_given(items: Iterable[Any]) -> list[Any]:
    return list(items)


_PATCHED = ("_clip_gradients", "_all_reduce_sum_gradients")  # what Keras's apply calls on the gradients


@contextlib.contextmanager
def preprocessed(optimizer: keras.optimizers.Optimizer) -> Iterator[None]:
    """Inside, ``optimizer.apply`` takes its gradients as final: no clipping, no loss-scale division and no
    all-reduce (the engine aggregated, unscaled and clipped them already).

    Reentrant and shared by the replica threads of a MirroredStrategy: the first entry makes the optimizer's
    ``_clip_gradients`` and ``_all_reduce_sum_gradients`` identity and its ``loss_scale_factor`` None (Keras's
    ``apply`` offers no switch for any of them), the last exit restores them.
    """
    depth = optimizer.__dict__.get("_tfnet_preprocessed_depth", 0)
    if depth == 0:
        object.__setattr__(optimizer, "_tfnet_saved_loss_scale_factor", optimizer.loss_scale_factor)
        object.__setattr__(optimizer, "loss_scale_factor", None)
        for name in _PATCHED:
            object.__setattr__(optimizer, name, _keep_as_given)
    object.__setattr__(optimizer, "_tfnet_preprocessed_depth", depth + 1)
    try:
        yield
    finally:
        depth = optimizer.__dict__["_tfnet_preprocessed_depth"] - 1
        object.__setattr__(optimizer, "_tfnet_preprocessed_depth", depth)
        if depth == 0:
            object.__setattr__(optimizer, "loss_scale_factor", optimizer.__dict__.pop("_tfnet_saved_loss_scale_factor"))
            for name in _PATCHED:
                optimizer.__dict__.pop(name, None)


def loss_scale_factor(optimizer: keras.optimizers.Optimizer) -> Any:
    """``optimizer.loss_scale_factor`` as configured, even while another replica thread holds the optimizer in
    ``preprocessed``."""
    if "_tfnet_saved_loss_scale_factor" in optimizer.__dict__:
        return optimizer.__dict__["_tfnet_saved_loss_scale_factor"]
    return getattr(optimizer, "loss_scale_factor", None)


# ----- callbacks ------------------------------------------------------------------------------------------------


def progbar_in_fit(callback: keras.callbacks.Callback) -> bool:
    """Whether a ProgbarLogger was called by fit (it then draws nothing for validation batches)."""
    return bool(callback._called_in_fit)


def tensorboard_traces(callback: keras.callbacks.Callback) -> bool:
    """Whether a TensorBoard callback profiles batches (``profile_batch``), so it listens to batch hooks."""
    return bool(callback._should_trace)


def tensorboard_graph_pending(callback: keras.callbacks.Callback) -> bool:
    """Whether a TensorBoard callback still has the training graph to write."""
    return bool(getattr(callback, "_should_write_train_graph", False))


def tensorboard_graph_written(callback: keras.callbacks.Callback) -> Any:
    """Mark the training graph written and return the writer of the train log, as Keras does once per fit."""
    callback._should_write_train_graph = False
    return callback._train_writer


class BackupAndRestoreHooks(keras.callbacks.BackupAndRestore):
    """Keras's BackupAndRestore with its private save/load hooks and counters under engine names: Keras calls
    ``_save_model`` when a backup is due and ``_load_model`` at ``on_train_begin``; a subclass overrides
    ``save_backup``/``load_backup``."""

    def _save_model(self) -> None:  # Keras's callback saves through this method
        self.save_backup()

    def _load_model(self) -> None:  # Keras's callback restores through this method
        self.load_backup()

    def save_backup(self) -> None:
        super()._save_model()

    def load_backup(self) -> None:
        super()._load_model()

    def keras_load_backup(self) -> None:
        """Keras's own restore (its error for an unbuilt model)."""
        super()._load_model()

    @property
    def metadata_path(self) -> str:
        """Keras's file recording the backed-up epoch and batch."""
        return self._training_metadata_path

    @property
    def current_epoch(self) -> int:
        """The epoch Keras's callback counts (set at every on_epoch_begin)."""
        return self._current_epoch

    @current_epoch.setter
    def current_epoch(self, epoch: int) -> None:
        self._current_epoch = epoch

    @property
    def last_batch_seen(self) -> int:
        """The last batch Keras's callback saw in the current epoch."""
        return self._last_batch_seen
