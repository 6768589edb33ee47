"""tf.keras SavedModel directories opened as engine models (through the optional ``tf-keras`` package).

A SavedModel is a TensorFlow program: its graph (``saved_model.pb``) holds functions that run while it loads
(resource initializers, restore functions) and whenever it is called. ``safe_mode=True`` never reads the graph:
tf.keras rebuilds the model from the Keras config in ``keras_metadata.pb``, inside tf.keras's own safe-mode scope and
after a check of the whole metadata for Python code (:func:`python_code_in`), and the weights come from the variables
checkpoint, which holds tensors only (their declared sizes checked before any is read). A layer or model whose class
is not at hand can only run through the graph (it is revived from it, :mod:`tfnet_train.engine.revived`), so a folder
holding one loads with ``safe_mode=False`` only, as does one holding Python code: ``tf_keras.models.load_model`` then
reads the whole folder, graph included.
"""

from __future__ import annotations

import json
import tempfile
import warnings
from pathlib import Path
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from tfnet_train import keras_internals
from tfnet_train.archives import MAX_KERAS_CONFIG_BYTES
from tfnet_train.engine import revived
from tfnet_train.engine.legacy import compile_from_training_config, load_h5
from tfnet_train.engine.model import Functional

#: The packages whose modules a config may name: tf.keras imports any module a config names for a class or function.
KERAS_PACKAGES = ("keras", "tf_keras")
#: Class names whose configs are Python code: tf.keras's Lambda layer and a serialized lambda.
CODE_CLASSES = ("Lambda", "__lambda__")
#: What a SavedModel's variables checkpoint holds other than numbers (their size is not declared up front).
_UNSIZED = (tf.string, tf.variant, tf.resource)
#: The least a checkpoint tensor may declare whatever the model's size (its optimizer's and metrics' scalars).
MIN_TENSOR_LIMIT = 1 << 20


def refusal(folder: Path, reason: str) -> ValueError:
    """The ValueError for a folder ``safe_mode=True`` does not load."""
    return ValueError(f"filepath {str(folder)!r} {reason}; safe_mode=True refuses to load it. Pass safe_mode=False "
                      "only for folders you trust: it runs the Python code and the TensorFlow graph they hold")


def saved_model_records(folder: Path) -> dict[str, dict[str, Any]]:
    """The Keras metadata of a tf.keras SavedModel: each node's JSON record by its path ("root", "root.layer-0")."""
    from tf_keras.protobuf import saved_metadata_pb2

    path = folder / "keras_metadata.pb"
    size = path.stat().st_size
    if size > MAX_KERAS_CONFIG_BYTES:
        raise ValueError(f"filepath {str(folder)!r}: keras_metadata.pb is {size} bytes; expected at most "
                         f"{MAX_KERAS_CONFIG_BYTES} (archives.MAX_KERAS_CONFIG_BYTES, the cap on a model's config)")
    metadata = saved_metadata_pb2.SavedMetadata()
    metadata.ParseFromString(path.read_bytes())
    records = {}
    for node in metadata.nodes:
        try:
            record = json.loads(node.metadata)
        except ValueError:
            continue
        if isinstance(record, dict):
            records[node.node_path] = record
    return records


def python_code_in(records: dict[str, dict[str, Any]], custom_objects: dict[str, Any] | None) -> str | None:
    """What in a SavedModel's Keras metadata tf.keras would run as Python from the file — a ``Lambda`` layer, a
    serialized lambda under any ``*_type`` key (a Lambda's ``function_type``, a cell wrapper's ``residual_fn_type``
    or ``dropout_fn_type``), a module outside Keras named for a class or function (tf.keras imports it) — or None."""
    for path, record in records.items():
        found = _code_in(record, custom_objects or {})
        if found:
            return f"{found} (keras_metadata.pb, node {path!r})"
    return None


def _code_in(value: Any, custom_objects: dict[str, Any]) -> str | None:
    if isinstance(value, list):
        return next((found for item in value if (found := _code_in(item, custom_objects))), None)
    if not isinstance(value, dict):
        return None
    name = value.get("class_name")
    if name in CODE_CLASSES:
        config = value.get("config")
        layer = value.get("name") or (config.get("name") if isinstance(config, dict) else None)
        return f"Python code: a {name} {'layer ' + repr(layer) if layer else 'object'}"
    for key, item in value.items():
        if isinstance(key, str) and key.endswith("_type") and item == "lambda":
            return f"Python code: a lambda under {key!r}"
    module = value.get("module")
    if isinstance(name, str) and isinstance(module, str) and module.split(".")[0] not in KERAS_PACKAGES:
        named = {value.get("registered_name"), name, value.get("config") if isinstance(value.get("config"), str)
                 else None}
        if not any(isinstance(n, str) and n in custom_objects for n in named):
            return f"a reference to module {module!r} (for {name!r}), which tf.keras would import"
    return next((found for item in value.values() if (found := _code_in(item, custom_objects))), None)


def _classes_not_at_hand(records: dict[str, dict[str, Any]], custom_objects: dict[str, Any] | None) -> list[str]:
    import tf_keras

    names = {r.get("class_name") for path, r in records.items() if ".keras_api" not in path}
    return sorted(n for n in names if isinstance(n, str) and n not in (custom_objects or {})
                  and keras_internals.tf_keras_builtin_layer(n) is None
                  and tf_keras.saving.get_registered_object(n) is None)


def _rebuilt_from_config(folder: Path, records: dict[str, dict[str, Any]],
                         custom_objects: dict[str, Any] | None) -> Any:
    """The tf.keras model of the root's Keras config, built in tf.keras's safe-mode scope (no weights yet)."""
    import tf_keras

    config = records.get("root", {}).get("model_config")
    try:
        if not isinstance(config, dict):
            raise ValueError("the root node has no model_config")
        config = keras_internals.legacy_saving().json_utils.decode(json.dumps(config))
        with keras_internals.tf_keras_safe_mode(True), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return tf_keras.models.model_from_config(config, custom_objects=custom_objects)
    except Exception as error:  # noqa: BLE001 - named in the refusal
        unknown = _classes_not_at_hand(records, custom_objects)
        classes = f"classes not at hand: {', '.join(unknown)}; " if unknown else ""
        raise refusal(folder, f"cannot be rebuilt from its Keras config alone ({classes}{type(error).__name__}: "
                              f"{error}): a layer or model of a class not at hand runs the TensorFlow graph saved in "
                              "the folder") from None


def _check_declared_sizes(reader: Any, folder: Path, prefix: Path, model: Any) -> None:
    """Refuse a checkpoint that declares a tensor larger than all of ``model``'s weights (or MIN_TENSOR_LIMIT), or
    more bytes in all than its data files hold (tensor bundles store tensors uncompressed), before any is read."""
    limit = max(sum(w.shape.num_elements() * w.dtype.size for w in model.weights), MIN_TENSOR_LIMIT)
    dtypes = reader.get_variable_to_dtype_map()
    declared = 0
    for key, shape in reader.get_variable_to_shape_map().items():
        if dtypes[key] in _UNSIZED:
            continue
        size = int(np.prod(shape, dtype=object)) * dtypes[key].size
        if size > limit:
            raise ValueError(f"filepath {str(folder)!r}: its variables checkpoint declares {key!r} as {size} bytes, "
                             f"more than the {limit} bytes of all the model's weights (at least {MIN_TENSOR_LIMIT}); "
                             "expected no tensor larger than the model")
        declared += size
    held = sum(p.stat().st_size for p in prefix.parent.glob(f"{prefix.name}.data-*")
               if p.is_file() and not p.is_symlink())
    if declared > held:
        raise ValueError(f"filepath {str(folder)!r}: its variables checkpoint declares {declared} bytes of tensors "
                         f"and its data files hold {held}; truncated or damaged")


def _read_variables(model: Any, folder: Path) -> None:
    """Assign ``model``'s weights from the folder's variables checkpoint (tensors only; no graph function runs)."""
    prefix = folder / "variables" / "variables"
    try:
        reader = tf.train.load_checkpoint(str(prefix))
    except Exception as error:  # noqa: BLE001 - TensorFlow raises several kinds for a missing or damaged index
        raise ValueError(f"filepath {str(folder)!r}: its variables checkpoint (variables/variables.index) cannot be "
                         f"read: {type(error).__name__}: {error}") from None
    _check_declared_sizes(reader, folder, prefix, model)
    try:
        status = tf.train.Checkpoint(root=model).read(str(prefix))
        status.expect_partial()  # the optimizer and metrics it also holds are not rebuilt
        status.assert_existing_objects_matched()
    except Exception as error:  # noqa: BLE001 - named in the error
        raise ValueError(f"filepath {str(folder)!r}: its variables checkpoint does not fill the model its Keras "
                         f"config describes: {type(error).__name__}: {error}") from None


def _revived_model(legacy: Any, records: dict[str, dict[str, Any]], custom_objects: dict[str, Any] | None,
                   compile: bool, source: str) -> Any:
    """A subclassed tf.keras model whose class is not at hand: an engine Functional that takes the inputs its call
    was saved for and runs it as one RevivedLayer, compiled with its training configuration."""
    layer = revived.RevivedLayer.of_revived(legacy)
    specs = {str(c.structured_input_signature[0][0]) for c in layer.saved_calls()}
    if len(specs) != 1:
        raise ValueError(f"filepath {source!r} holds a subclassed tf.keras model ({type(legacy).__name__}) whose "
                         f"call was saved for {len(specs)} input signatures ({'; '.join(sorted(specs))}); "
                         "expected one to build the model's inputs from")
    spec = layer.saved_calls()[0].structured_input_signature[0][0]
    inputs = tf.nest.map_structure(lambda s: keras.Input(batch_shape=tuple(s.shape), dtype=s.dtype.name), spec)
    model = Functional(inputs, layer(inputs), name=legacy.name)
    _compile(model, records, custom_objects, compile, source)
    return model


def _compile(model: Any, records: dict[str, dict[str, Any]], custom_objects: dict[str, Any] | None, compile: bool,
             source: str) -> None:
    root = records.get("root", {})
    if compile and root.get("training_config") is not None:
        compile_from_training_config(model, root["training_config"], str(root.get("keras_version", "")),
                                     custom_objects, source)


def load_saved_model(filepath: Any, custom_objects: dict[str, Any] | None = None, compile: bool = True,
                     safe_mode: bool = True) -> Any:
    """An engine model rebuilt, with the same weights, from a tf.keras SavedModel directory (needs ``tf-keras``:
    ``pip install tfnet-train[legacy]``); under ``safe_mode`` from its Keras config and variables alone."""
    folder = Path(filepath)
    try:
        import tf_keras
    except ImportError:
        raise ImportError(f"loading the tf.keras SavedModel {str(folder)!r} needs the tf-keras package: "
                          "pip install 'tfnet-train[legacy]'") from None
    records = saved_model_records(folder)
    if safe_mode:
        found = python_code_in(records, custom_objects)
        if found:
            raise refusal(folder, f"holds {found}")
        legacy = _rebuilt_from_config(folder, records, custom_objects)
    else:
        with keras_internals.tf_keras_safe_mode(False), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tf_keras's advice about its own formats
            legacy = tf_keras.models.load_model(str(folder), custom_objects=custom_objects, compile=False)
    if not isinstance(legacy, tf_keras.Sequential) and not getattr(legacy, "_is_graph_network", False):
        if keras_internals.is_tf_keras_revived(legacy):  # its class is not at hand: it runs its saved graph
            return _revived_model(legacy, records, custom_objects, compile, str(folder))
        raise ValueError(f"filepath {str(folder)!r} holds a subclassed tf.keras model ({type(legacy).__name__}) "
                         "whose layers cannot be rebuilt from its config; expected a Sequential or functional "
                         "model, or a subclassed one loaded without its class in custom_objects and with "
                         "safe_mode=False (it then runs its saved graph)")
    if safe_mode:
        if not legacy.built:
            raise ValueError(f"filepath {str(folder)!r}: the model its Keras config describes is not built (no input "
                             "shape); expected a model built before it was saved")
        _read_variables(legacy, folder)
    with tempfile.TemporaryDirectory(prefix="tfnet_train_savedmodel_") as scratch:
        copy = Path(scratch, "model.h5")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            legacy.save(str(copy), save_format="h5", include_optimizer=False)
        # Layers of classes unknown here come back as RevivedLayers running their saved graph (revived.py).
        layers = revived.revived_layers(legacy)
        reviver = revived.Reviver(layers)
        revivers = {type(layer).__name__: reviver for layer in layers.values()}
        model = load_h5(copy, {**revivers, **(custom_objects or {})}, False, safe_mode, source=str(folder))
    _compile(model, records, custom_objects, compile, str(folder))
    return model
