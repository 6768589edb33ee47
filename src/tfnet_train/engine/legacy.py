"""Whole-model files other than ``.keras``: Keras 3 and tf.keras 2 ``.h5`` files with their training configuration,
and the folders ``load_model`` takes: ``export(..., keras_model=True)``'s (the ``.keras`` file it carries, loaded as
any ``.keras`` file) and tf.keras SavedModel directories (:mod:`tfnet_train.engine.tf_keras_savedmodel`).

A tf.keras 2 training configuration (loss, metrics, optimizer) is translated to Keras 3; what cannot be translated
is named in one warning and the model is returned uncompiled. Optimizer state (slot variables) is not carried over:
the optimizer starts fresh. ``safe_mode`` refuses Python code (``Lambda`` layers) in every format, and a SavedModel's
TensorFlow graph.
"""

from __future__ import annotations

import inspect
import json
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import h5py
import keras

from tfnet_train import keras_internals
from tfnet_train.engine import h5_checks
from tfnet_train.engine.export import KERAS_MODEL_IN_SAVED_MODEL
from tfnet_train.engine.model import Functional, Sequential

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
ZIP_SIGNATURE = b"PK\x03\x04"
EXPECTED = ("a .keras file, a whole-model .h5 file (Keras 3 or tf.keras 2) or a tf.keras SavedModel directory "
            "(with keras_metadata.pb)")

#: tf.keras 2 reductions and their Keras 3 names.
_REDUCTIONS = {"auto": "sum_over_batch_size", "sum_over_batch_size": "sum_over_batch_size", "sum": "sum",
               "none": "none", None: "sum_over_batch_size"}
#: tf.keras 2 optimizer config keys with no Keras 3 counterpart that change nothing at their usual value.
_BENIGN_OPTIMIZER_KEYS = {"is_legacy_optimizer": (False, True), "jit_compile": (False, True), "decay": (0, 0.0)}


def detect_format(filepath: Any) -> str:
    """``"keras"``, ``"h5"``, ``"saved_model"`` or ``"keras_in_saved_model"`` (a folder written by
    ``export(..., keras_model=True)``) for what ``filepath`` holds; FileNotFoundError or ValueError
    (naming the path, what was found and what was expected) otherwise."""
    path = Path(filepath)
    if not path.exists():
        raise FileNotFoundError(f"filepath {str(path)!r} does not exist; expected {EXPECTED}")
    if path.is_dir():
        if not (path / "saved_model.pb").exists() and not (path / "saved_model.pbtxt").exists():
            raise ValueError(f"filepath {str(path)!r} is a directory without saved_model.pb; expected {EXPECTED}")
        if (path / KERAS_MODEL_IN_SAVED_MODEL).is_file():
            return "keras_in_saved_model"
        if not (path / "keras_metadata.pb").exists():
            raise ValueError(
                f"filepath {str(path)!r} is a SavedModel without Keras metadata (no keras_metadata.pb), so it holds "
                f"no layers to train; expected {EXPECTED}. tf.saved_model.load() can still serve it")
        return "saved_model"
    with open(path, "rb") as handle:
        head = handle.read(8)
    if head.startswith(ZIP_SIGNATURE):
        if not zipfile.is_zipfile(path):
            raise ValueError(f"filepath {str(path)!r} starts like a .keras (zip) file but cannot be read: "
                             f"truncated or damaged; expected {EXPECTED}")
        return "keras"
    if head == HDF5_SIGNATURE:
        try:
            with h5_checks.h5_errors_named(f"filepath {str(path)!r}"), h5py.File(path, "r") as f:
                whole_model = "model_config" in f.attrs
                weights_only = not whole_model and (
                    "layer_names" in f.attrs or "vars" in f or "layers" in f or "_layer_checkpoint_dependencies" in f
                    or "model_weights" in f)
        except OSError as error:
            raise ValueError(f"filepath {str(path)!r} is an HDF5 file that cannot be read (truncated or damaged: "
                             f"{error}); expected {EXPECTED}") from None
        if weights_only:
            raise ValueError(
                f"filepath {str(path)!r} holds weights only (no model_config), not a whole model; expected "
                f"{EXPECTED}. Build the model and call model.load_weights({str(path)!r})")
        if not whole_model:
            raise ValueError(f"filepath {str(path)!r} is an HDF5 file without a Keras model_config; "
                             f"expected {EXPECTED}")
        return "h5"
    raise ValueError(f"filepath {str(path)!r} is none of the model formats (its first bytes are {head!r}); "
                     f"expected {EXPECTED}")


def _engine_objects(custom_objects: dict[str, Any] | None) -> dict[str, Any]:
    return {"Sequential": Sequential, "Functional": Functional, "Model": Functional, **(custom_objects or {})}


def load_h5(filepath: Any, custom_objects: dict[str, Any] | None = None, compile: bool = True,
            safe_mode: bool = True, source: str | None = None) -> Any:
    """An engine model from a whole-model ``.h5`` file of Keras 3 or tf.keras 2, compiled with the file's training
    configuration when ``compile`` (and every part of it translates)."""
    path = str(filepath)
    try:
        model = _model_from_h5(path, custom_objects, safe_mode)
    except ValueError as error:
        if "safe_mode" not in str(error) and "Lambda" not in str(error):
            raise
        raise ValueError(f"filepath {source or path!r}: {error}") from None
    if not compile:
        return model
    with h5_checks.h5_errors_named(f"filepath {source or path!r}"), h5py.File(path, "r") as f:
        training_config = f.attrs.get("training_config")
        keras_version = f.attrs.get("keras_version", "")
    if training_config is None:
        return model
    if isinstance(training_config, bytes):
        training_config = training_config.decode("utf-8")
    if isinstance(keras_version, bytes):
        keras_version = keras_version.decode("utf-8")
    compile_from_training_config(model, json.loads(training_config), str(keras_version), custom_objects, source or path)
    return model


def compile_from_training_config(model: Any, config: dict[str, Any], keras_version: str,
                                 custom_objects: dict[str, Any] | None, source: str) -> None:
    """Compile ``model`` with a saved training configuration (Keras 3's, or tf.keras 2's translated); what does
    not translate is named in one warning and the model stays uncompiled."""
    problems: list[str] = []
    if str(keras_version).startswith("3"):
        try:
            saving_utils = keras_internals.legacy_saving().saving_utils
            kwargs = saving_utils.compile_args_from_training_config(config, _engine_objects(custom_objects))
        except Exception as error:  # noqa: BLE001 - named in the warning below
            problems.append(f"{type(error).__name__}: {error}")
            kwargs = {}
    else:
        kwargs = translate_training_config(config, custom_objects, len(model.outputs), problems)
    if not problems:
        try:
            model.compile(**kwargs)
        except Exception as error:  # noqa: BLE001 - named in the warning below
            problems.append(f"compile failed: {type(error).__name__}: {error}")
    if problems:
        warnings.warn(f"{source}: the training configuration was not translated to Keras 3 "
                      f"({'; '.join(problems)}); the model is loaded uncompiled: compile it before training",
                      UserWarning, stacklevel=4)


def _single_io(config: dict[str, Any]) -> None:
    """tf.keras 2 lists a functional model's one input and one output as lists of one; Keras 3 reads those as
    list-structured inputs and outputs (predict returning a list, the model unusable as a layer). Unwrap them."""
    if not isinstance(config, dict):
        return
    inner = config.get("config")
    if isinstance(inner, dict):
        for key in ("input_layers", "output_layers"):
            value = inner.get(key)
            if isinstance(value, list) and len(value) == 1 and isinstance(value[0], list) and len(value[0]) == 3 \
                    and isinstance(value[0][0], str):
                inner[key] = value[0]
        for layer in inner.get("layers", []) if isinstance(inner.get("layers"), list) else []:
            if isinstance(layer, dict) and layer.get("class_name") in ("Functional", "Model"):
                _single_io(layer)


def _model_from_h5(path: str, custom_objects: dict[str, Any] | None, safe_mode: bool) -> Any:
    """Keras 3's legacy ``.h5`` reader with the engine's classes and single inputs and outputs unwrapped."""
    legacy = keras_internals.legacy_saving()
    with h5_checks.h5_errors_named(f"filepath {path!r}"), h5py.File(path, "r") as f:
        with open(path, "rb") as stream:
            h5_checks.check_open_file(f, stream, f"filepath {path!r}")
        raw = f.attrs["model_config"]
        keras_version = f.attrs.get("keras_version", "")
        with legacy.saving_options.keras_option_scope(use_legacy_config=True), legacy.SafeModeScope(safe_mode):
            try:  # a config Keras cannot build a model from (a missing key, a wrong type): the file's fault
                config = legacy.json_utils.decode(raw.decode("utf-8") if isinstance(raw, bytes) else raw)
                if isinstance(keras_version, bytes):
                    keras_version = keras_version.decode("utf-8")
                if not str(keras_version).startswith("3"):
                    _single_io(config)
                model = legacy.saving_utils.model_from_config(config, custom_objects=_engine_objects(custom_objects))
            except (KeyError, TypeError, AttributeError, IndexError) as error:
                if isinstance(error, TypeError) and str(error).startswith("Could not locate"):
                    raise  # a class the caller did not pass (custom_objects), Keras's own TypeError
                raise ValueError(f"filepath {path!r}: its model_config does not describe a model Keras can build "
                                 f"({type(error).__name__}: {error})") from error
            h5_checks.check_fits_variables(f["model_weights"], model.variables, f"filepath {path!r}")
            legacy.legacy_h5_format.load_weights_from_hdf5_group(f["model_weights"], model)
    return model


# ----- tf.keras 2 training configuration -> Keras 3 compile arguments --------------------------------------------


def translate_training_config(config: dict[str, Any], custom_objects: dict[str, Any] | None, n_outputs: int,
                              problems: list[str]) -> dict[str, Any]:
    """Keras 3 ``compile`` keyword arguments for a tf.keras 2 ``training_config``; what does not translate is
    appended to ``problems``."""
    custom = dict(custom_objects or {})
    kwargs: dict[str, Any] = {}
    if config.get("optimizer_config") is not None:
        kwargs["optimizer"] = _optimizer(config["optimizer_config"], custom, problems)
    if config.get("loss") is not None:
        kwargs["loss"] = _nested(config["loss"], lambda c: _loss(c, custom, problems))
    for key in ("metrics", "weighted_metrics"):
        value = config.get(key)
        if value is None:
            continue
        if n_outputs == 1 and isinstance(value, list) and len(value) == 1 and isinstance(value[0], list):
            value = value[0]  # tf.keras 2 nests one list per output
        kwargs[key] = _nested(value, lambda c: _metric(c, custom, problems))
    if config.get("loss_weights") is not None:
        kwargs["loss_weights"] = config["loss_weights"]
    return kwargs


def _nested(value: Any, translate: Any) -> Any:
    if isinstance(value, list):
        return [_nested(v, translate) for v in value]
    if isinstance(value, dict) and "class_name" not in value:
        return {k: _nested(v, translate) for k, v in value.items()}
    return translate(value)


def _accepted(cls: type, config: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    parameters = inspect.signature(cls.__init__).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()) and cls.__init__ is object.__init__:
        return dict(config), []
    accepted = {k: v for k, v in config.items() if k in parameters}
    return accepted, [k for k in config if k not in parameters]


def _construct(cls: type, settings: dict[str, Any], problems: list[str], what: str,
               describe: Callable[[list[str]], Any] = lambda dropped: dropped) -> Any:
    """``cls(**settings)`` when Keras 3's ``cls`` takes every setting that is set; else None, with a problem naming
    the settings it lacks."""
    accepted, dropped = _accepted(cls, settings)
    dropped = [k for k in dropped if settings[k] is not None]
    if dropped:
        problems.append(f"{what} settings {describe(dropped)} have no Keras 3 counterpart")
        return None
    return cls(**accepted)


def _loss(config: Any, custom: dict[str, Any], problems: list[str]) -> Any:
    if isinstance(config, str):
        try:
            return keras.losses.get(custom.get(config, config))
        except Exception:  # noqa: BLE001
            problems.append(f"loss {config!r} is unknown to Keras 3")
            return None
    name, settings = config.get("class_name"), dict(config.get("config") or {})
    if name in custom:
        return custom[name].from_config(settings)
    if name == "LossFunctionWrapper" or (name not in dir(keras.losses) and "fn" in settings):
        return _loss(settings.get("fn"), custom, problems)
    cls = getattr(keras.losses, str(name), None)
    if not (isinstance(cls, type) and issubclass(cls, keras.losses.Loss)):
        problems.append(f"loss class {name!r} has no Keras 3 counterpart")
        return None
    settings.pop("fn", None)
    if "reduction" in settings:
        if settings["reduction"] not in _REDUCTIONS:
            problems.append(f"loss {name} reduction {settings['reduction']!r} has no Keras 3 counterpart")
            return None
        settings["reduction"] = _REDUCTIONS[settings["reduction"]]
    return _construct(cls, settings, problems, f"loss {name}")


def _metric(config: Any, custom: dict[str, Any], problems: list[str]) -> Any:
    if isinstance(config, str):
        return custom.get(config, config)  # Keras 3 resolves names ("accuracy", "mae", ...) at compile
    name, settings = config.get("class_name"), dict(config.get("config") or {})
    if name in custom:
        return custom[name].from_config(settings)
    if name == "MeanMetricWrapper" or "fn" in settings:
        fn = settings.get("fn")
        try:
            found = keras.metrics.get(custom.get(fn, fn))
        except Exception:  # noqa: BLE001
            problems.append(f"metric function {fn!r} is unknown to Keras 3")
            return None
        if isinstance(found, keras.metrics.Metric):
            return type(found)(name=settings.get("name", fn), dtype=settings.get("dtype"))
        return keras.metrics.MeanMetricWrapper(found, name=settings.get("name", fn), dtype=settings.get("dtype"))
    cls = getattr(keras.metrics, str(name), None)
    if not (isinstance(cls, type) and issubclass(cls, keras.metrics.Metric)):
        problems.append(f"metric class {name!r} has no Keras 3 counterpart")
        return None
    return _construct(cls, settings, problems, f"metric {name}")


def _optimizer(config: Any, custom: dict[str, Any], problems: list[str]) -> Any:
    if isinstance(config, str):
        return config
    name = str(config.get("class_name", "")).split(">")[-1]
    settings = dict(config.get("config") or {})
    if name in custom:
        return custom[name].from_config(settings)
    cls = getattr(keras.optimizers, name, None)
    if not (isinstance(cls, type) and issubclass(cls, keras.optimizers.Optimizer)):
        problems.append(f"optimizer class {config.get('class_name')!r} has no Keras 3 counterpart")
        return None
    if "lr" in settings and "learning_rate" not in settings:
        settings["learning_rate"] = settings.pop("lr")
    for key, harmless in _BENIGN_OPTIMIZER_KEYS.items():
        if key in settings and settings[key] in harmless:
            del settings[key]
    if isinstance(settings.get("learning_rate"), dict):
        try:
            settings["learning_rate"] = keras.optimizers.schedules.deserialize(settings["learning_rate"])
        except Exception as error:  # noqa: BLE001
            problems.append(f"learning-rate schedule {settings['learning_rate'].get('class_name')!r}: {error}")
            return None
    return _construct(cls, settings, problems, f"optimizer {name}",
                      lambda dropped: [f"{k}={settings[k]!r}" for k in dropped])
