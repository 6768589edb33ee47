"""Conformance cases: the JSON spec plus the ``.npz`` arrays, validated on load (see docs/conformance.md)."""

from __future__ import annotations

import copy
import hashlib
import json
import re
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from tfnet_train.archives import load_npz
from tfnet_train.files import atomic_path
from tfnet_train.semantics import PROFILES, get_profile
from tfnet_train.tolerances import ATOL, RTOL

SCHEMA = "tfnet-train/case@1"
SEMANTICS = PROFILES
ACTIVATIONS = ("linear", "relu", "tanh", "sigmoid", "softmax")
LOSSES = ("mse", "mae", "binary_crossentropy", "categorical_crossentropy", "sparse_categorical_crossentropy")
METRICS = ("accuracy", "acc", "mae", "mse", "mape")
# Loss strings a string-compiled case may name that Keras 3 resolves to a loss the references implement.
KERAS_LOSS_STRINGS = {"mse": "mse", "MSE": "mse", "mean_squared_error": "mse", "mae": "mae", "MAE": "mae",
                      "mean_absolute_error": "mae"}
# Every other loss identifier Keras 3 knows (keras.losses.get): a string-compiled case may not name these
# (case-insensitively), since Keras would train a loss the references do not implement.
KERAS_OTHER_LOSS_STRINGS = frozenset(s.lower() for s in (
    "BCE", "BinaryCrossentropy", "BinaryFocalCrossentropy", "CTC", "CategoricalCrossentropy",
    "CategoricalFocalCrossentropy", "CategoricalHinge", "Circle", "CosineSimilarity", "Dice", "Hinge", "Huber",
    "KLD", "KLDivergence", "LogCosh", "Loss", "LossFunctionWrapper", "MAPE", "MeanAbsoluteError",
    "MeanAbsolutePercentageError", "MeanSquaredError", "MeanSquaredLogarithmicError", "MSLE", "Poisson",
    "SparseCategoricalCrossentropy", "SquaredHinge", "Tversky", "binary_crossentropy", "binary_focal_crossentropy",
    "categorical_crossentropy", "categorical_focal_crossentropy", "categorical_hinge", "circle", "cosine_similarity",
    "dice", "kl_divergence", "log_cosh", "mean_absolute_percentage_error", "mean_squared_logarithmic_error",
    "sparse_categorical_crossentropy", "squared_hinge", "tversky", "mae", "mse"))
CLIP_KEYS = ("clipnorm", "clipvalue", "global_clipnorm")
_CLIP_DEFAULTS = {key: None for key in CLIP_KEYS}
# Keras 3 constructor defaults per optimizer (clipping off).
OPTIMIZER_DEFAULTS: dict[str, dict[str, Any]] = {
    "sgd": {"learning_rate": 0.01, "momentum": 0.0, "nesterov": False, **_CLIP_DEFAULTS},
    "adam": {"learning_rate": 0.001, "beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7, "amsgrad": False,
             **_CLIP_DEFAULTS},
    "adamw": {"learning_rate": 0.001, "weight_decay": 0.004, "beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7,
              "amsgrad": False, **_CLIP_DEFAULTS},
    "rmsprop": {"learning_rate": 0.001, "rho": 0.9, "momentum": 0.0, "epsilon": 1e-7, "centered": False,
                **_CLIP_DEFAULTS},
}
_BOOL_PARAMS = {"nesterov", "amsgrad", "centered"}
# Optimizer identifiers Keras 3 knows (keras.optimizers.get, any letter case) besides the four above: a
# string-compiled case may not name these, since Keras would train an optimizer the references do not implement.
KERAS_OTHER_OPTIMIZER_STRINGS = frozenset((
    "adadelta", "adafactor", "adagrad", "adamax", "ftrl", "lion", "lossscaleoptimizer", "multioptimizer", "muon",
    "nadam", "optimizer", "optimizermap", "schedulefreeadamw"))
#: The JSON field that binds a saved case's two files: the SHA-256 (lowercase hex) of the ``.npz`` bytes.
ARRAYS_DIGEST = "arrays_sha256"
_HEX_DIGEST = re.compile(r"[0-9a-f]{64}")
_TOP_LEVEL = {"schema", "name", "description", "semantics", "model", "loss", "metrics", "optimizer", "batch_size",
              "steps", "tolerance", ARRAYS_DIGEST}


class CaseError(ValueError):
    """A case file (JSON or arrays) does not follow the schema; the message names the field."""


@dataclass(frozen=True)
class DenseSpec:
    """One Dense layer of the case's model."""

    units: int
    activation: str = "linear"
    use_bias: bool = True
    kernel_l2: float | None = None
    """The factor ``f`` of an L2 kernel regularizer (``f * sum(kernel**2)`` added to the loss), or None."""


@dataclass(frozen=True)
class ModelSpec:
    """A Sequential stack of Dense layers over rank-1 samples of ``input_dim`` features."""

    input_dim: int
    layers: tuple[DenseSpec, ...]

    def weight_shapes(self) -> list[tuple[int, ...]]:
        """Shapes in Keras ``get_weights()`` order: per layer kernel (in, units), then bias (units,)."""
        shapes: list[tuple[int, ...]] = []
        fan_in = self.input_dim
        for layer in self.layers:
            shapes.append((fan_in, layer.units))
            if layer.use_bias:
                shapes.append((layer.units,))
            fan_in = layer.units
        return shapes

    @property
    def output_dim(self) -> int:
        return self.layers[-1].units


KERAS_MODEL_CLASSES = ("Sequential", "Functional")
# Keys of ``keras.saving.serialize_keras_object(model)`` (what ``model.to_json()`` writes) a keras_config may hold.
_KERAS_CONFIG_KEYS = {"class_name", "config", "module", "registered_name", "build_config", "compile_config"}


@dataclass(frozen=True, eq=False)
class KerasModelSpec:
    """A model Keras builds from its own architecture config: ``{"class_name": "Sequential" | "Functional",
    "config": model.get_config(), ...}`` (``json.loads(model.to_json())`` fits). Inputs may have any rank; the
    weights are every weight of ``model.get_weights()`` (non-trainable ones such as BatchNormalization's moving
    statistics included)."""

    keras_config: Mapping[str, Any]

    @property
    def class_name(self) -> str:
        return self.keras_config["class_name"]

    @property
    def config(self) -> Mapping[str, Any]:
        return self.keras_config["config"]

    def top_layers(self) -> list[tuple[str, str]]:
        """``(class_name, name)`` of each top-level layer, in config order."""
        return [(layer["class_name"], str(layer["config"].get("name", f"layer {i}")))
                for i, layer in enumerate(self.config["layers"])]

    def to_json(self) -> dict[str, Any]:
        return copy.deepcopy(dict(self.keras_config))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KerasModelSpec) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True)
class LossSpec:
    """The compiled loss. ``as_string``: the case compiles with the string ``name`` (None: ``loss=None``)
    instead of a loss object, and each profile resolves it (:meth:`resolve`)."""

    name: str | None
    from_logits: bool = False
    as_string: bool = False

    def resolve(self, semantics: str) -> LossSpec:
        """The loss object the profile computes. A string under ``tfnet`` is MSE unless it is exactly "mse" or
        "mae" (None too: docs/semantics.md rows 9, 10); under ``keras`` it is the loss Keras 3 names so, and an
        unknown string or None is a ValueError, as in Keras 3."""
        if not self.as_string:
            return self
        if get_profile(semantics).tfnet_losses:
            return LossSpec(self.name if self.name in ("mse", "mae") else "mse")
        if self.name is None:
            raise ValueError("loss: None was compiled, so there is no loss to compute (Keras 3 raises at the "
                             "first step: No loss to compute)")
        if self.name not in KERAS_LOSS_STRINGS:
            raise ValueError(f"loss: Keras 3 could not interpret loss identifier {self.name!r}")
        return LossSpec(KERAS_LOSS_STRINGS[self.name])


@dataclass(frozen=True)
class OptimizerSpec:
    """Optimizer name and every hyper-parameter (missing ones filled with Keras 3 defaults). ``as_string``: the
    case compiles with the string ``name`` (no hyper-parameters, ``params`` empty) and each profile resolves it
    (:meth:`resolve`)."""

    name: str
    params: Mapping[str, Any]
    as_string: bool = False

    def resolve(self, semantics: str) -> OptimizerSpec:
        """The optimizer the profile builds. A string under ``tfnet`` is RMSprop(0.001, rho=0.9, epsilon=1e-7)
        whatever it names (docs/semantics.md row 8); under ``keras`` it is the named optimizer (any letter case)
        with Keras 3's defaults, and an unknown name is a ValueError, as in Keras 3."""
        if not self.as_string:
            return self
        name = "rmsprop" if get_profile(semantics).string_optimizer_is_rmsprop else self.name.lower()
        if name not in OPTIMIZER_DEFAULTS:
            raise ValueError(f"optimizer: Keras 3 could not interpret optimizer identifier {self.name!r}")
        return OptimizerSpec(name=name, params=dict(OPTIMIZER_DEFAULTS[name]))

    def __getitem__(self, key: str) -> Any:
        return self.params[key]

    @property
    def clipping(self) -> dict[str, float]:
        """The clipping options that are switched on."""
        return {k: self.params[k] for k in CLIP_KEYS if self.params.get(k) is not None}


@dataclass(frozen=True)
class Tolerance:
    rtol: float = RTOL
    atol: float = ATOL


@dataclass
class CaseArrays:
    """The case's arrays: initial weights (get_weights order), inputs, targets, optional sample weights."""

    weights: list[np.ndarray]
    x: np.ndarray
    y: np.ndarray
    sample_weight: np.ndarray | None = None

    def to_npz_dict(self) -> dict[str, np.ndarray]:
        out = {f"weights/{i}": np.asarray(w) for i, w in enumerate(self.weights)}
        out["x"] = np.asarray(self.x)
        out["y"] = np.asarray(self.y)
        if self.sample_weight is not None:
            out["sample_weight"] = np.asarray(self.sample_weight)
        return out


@dataclass
class Case:
    """A conformance case: what to train, on which data, under which profile, compared how closely."""

    name: str
    semantics: str
    model: ModelSpec | KerasModelSpec
    loss: LossSpec
    optimizer: OptimizerSpec
    batch_size: int
    steps: int
    metrics: tuple[str, ...] = ()
    description: str = ""
    tolerance: Tolerance = field(default_factory=Tolerance)
    arrays: CaseArrays | None = None
    path: Path | None = None

    def batch(self, step: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Rows ``[step*batch_size, (step+1)*batch_size)`` of x, y and sample_weight (None when absent)."""
        if self.arrays is None:
            raise CaseError(f"case {self.name!r}: arrays are not loaded")
        if not 0 <= step < self.steps:
            raise ValueError(f"step must be in [0, {self.steps}), got {step}")
        rows = slice(step * self.batch_size, (step + 1) * self.batch_size)
        a = self.arrays
        sw = None if a.sample_weight is None else a.sample_weight[rows]
        return a.x[rows], a.y[rows], sw

    @property
    def has_keras_model(self) -> bool:
        """True when the model is a Keras architecture config (``model.keras_config``), not the Dense form."""
        return isinstance(self.model, KerasModelSpec)

    def with_semantics(self, semantics: str) -> Case:
        """A copy of the case under another profile (same arrays)."""
        if semantics not in SEMANTICS:
            raise ValueError(f"semantics must be one of {SEMANTICS}, got {semantics!r}")
        return replace(self, semantics=semantics)

    def with_optimizer(self, **params: Any) -> Case:
        """A copy with some optimizer settings changed (``name=`` switches optimizer, keeping shared settings);
        validated like a loaded case."""
        name = params.pop("name", self.optimizer.name)
        keep = OPTIMIZER_DEFAULTS.get(name, {})
        base = {k: v for k, v in self.optimizer.params.items() if k in keep}
        return replace(self, optimizer=_parse_optimizer({"name": name, **base, **params}, self.name))

    def to_json(self) -> dict[str, Any]:
        """The JSON document of the case (schema ``tfnet-train/case@1``)."""
        doc: dict[str, Any] = {"schema": SCHEMA, "name": self.name}
        if self.description:
            doc["description"] = self.description
        doc["semantics"] = self.semantics
        if isinstance(self.model, KerasModelSpec):
            doc["model"] = {"keras_config": self.model.to_json()}
        else:
            doc["model"] = {
                "input_shape": [self.model.input_dim],
                "layers": [_layer_json(layer) for layer in self.model.layers],
            }
        doc["loss"] = {"name": self.loss.name, "from_logits": self.loss.from_logits}
        if self.loss.as_string:
            doc["loss"]["as_string"] = True
        doc["metrics"] = list(self.metrics)
        doc["optimizer"] = {"name": self.optimizer.name, **dict(self.optimizer.params)}
        if self.optimizer.as_string:
            doc["optimizer"]["as_string"] = True
        doc["batch_size"] = self.batch_size
        doc["steps"] = self.steps
        doc["tolerance"] = {"rtol": self.tolerance.rtol, "atol": self.tolerance.atol}
        return doc


def _layer_json(layer: DenseSpec) -> dict[str, Any]:
    doc: dict[str, Any] = {"type": "Dense", "units": layer.units, "activation": layer.activation,
                           "use_bias": layer.use_bias}
    if layer.kernel_l2 is not None:
        doc["kernel_regularizer"] = {"l2": layer.kernel_l2}
    return doc


# ----------------------------------------------------------------------------------------------- parsing


def _fail(case: str, where: str, expected: str, actual: Any) -> CaseError:
    return CaseError(f"case {case!r}: field {where!r}: expected {expected}, got {actual!r}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_keys(obj: Mapping[str, Any], allowed: set[str], case: str, where: str) -> None:
    extra = sorted(set(obj) - allowed)
    if extra:
        raise _fail(case, f"{where}{extra[0]}", f"one of the known keys {sorted(allowed)}", extra[0])


def _require(obj: Mapping[str, Any], key: str, case: str, where: str) -> Any:
    if key not in obj:
        raise CaseError(f"case {case!r}: field {where + key!r} is missing")
    return obj[key]


def _parse_model(obj: Any, case: str) -> ModelSpec | KerasModelSpec:
    if not isinstance(obj, Mapping):
        raise _fail(case, "model", "an object", obj)
    if "keras_config" in obj:
        _check_keys(obj, {"keras_config"}, case, "model.")
        return _parse_keras_config(obj["keras_config"], case)
    _check_keys(obj, {"input_shape", "layers"}, case, "model.")
    shape = _require(obj, "input_shape", case, "model.")
    if not (isinstance(shape, list) and len(shape) == 1 and _is_int(shape[0]) and shape[0] >= 1):
        raise _fail(case, "model.input_shape", "a list of one positive int", shape)
    layers = _require(obj, "layers", case, "model.")
    if not isinstance(layers, list) or not layers:
        raise _fail(case, "model.layers", "a non-empty list", layers)
    parsed = []
    for i, layer in enumerate(layers):
        where = f"model.layers[{i}]"
        if not isinstance(layer, Mapping):
            raise _fail(case, where, "an object", layer)
        _check_keys(layer, {"type", "units", "activation", "use_bias", "kernel_regularizer"}, case, where + ".")
        if layer.get("type") != "Dense":
            raise _fail(case, where + ".type", "'Dense'", layer.get("type"))
        units = _require(layer, "units", case, where + ".")
        if not _is_int(units) or units < 1:
            raise _fail(case, where + ".units", "an int >= 1", units)
        activation = layer.get("activation", "linear")
        if activation not in ACTIVATIONS:
            raise _fail(case, where + ".activation", f"one of {ACTIVATIONS}", activation)
        use_bias = layer.get("use_bias", True)
        if not isinstance(use_bias, bool):
            raise _fail(case, where + ".use_bias", "a bool", use_bias)
        kernel_l2 = _parse_regularizer(layer.get("kernel_regularizer"), case, where + ".kernel_regularizer")
        parsed.append(DenseSpec(units=units, activation=activation, use_bias=use_bias, kernel_l2=kernel_l2))
    return ModelSpec(input_dim=shape[0], layers=tuple(parsed))


def _parse_keras_config(obj: Any, case: str) -> KerasModelSpec:
    """``model.keras_config``: a Sequential or Functional config whose layers are ``{"class_name", "config"}``
    objects and whose every ``seed`` is an int. Whether Keras can build it is found when a runner builds it."""
    where = "model.keras_config"
    if not isinstance(obj, Mapping):
        raise _fail(case, where, "an object {\"class_name\": ..., \"config\": ...} (Keras's model config)", obj)
    _check_keys(obj, _KERAS_CONFIG_KEYS, case, where + ".")
    class_name = _require(obj, "class_name", case, where + ".")
    if class_name not in KERAS_MODEL_CLASSES:
        raise _fail(case, where + ".class_name", f"one of {KERAS_MODEL_CLASSES}", class_name)
    config = _require(obj, "config", case, where + ".")
    if not isinstance(config, Mapping):
        raise _fail(case, where + ".config", "an object (the model's get_config())", config)
    layers = _require(config, "layers", case, where + ".config.")
    if not isinstance(layers, list) or not layers:
        raise _fail(case, where + ".config.layers", "a non-empty list of layer configs", layers)
    for i, layer in enumerate(layers):
        at = f"{where}.config.layers[{i}]"
        if not isinstance(layer, Mapping):
            raise _fail(case, at, "an object {\"class_name\": ..., \"config\": ...}", layer)
        name = layer.get("class_name")
        if not isinstance(name, str) or not name:
            raise _fail(case, at + ".class_name", "a non-empty string (a Keras layer class)", name)
        if not isinstance(layer.get("config"), Mapping):
            raise _fail(case, at + ".config", "an object (the layer's get_config())", layer.get("config"))
        _check_seeds(layer["config"], case, at + ".config")
    return KerasModelSpec(copy.deepcopy(dict(obj)))


def _check_seeds(obj: Any, case: str, where: str) -> None:
    """Every ``seed`` in a layer config (nested layers included) is an int, so training-mode randomness
    (Dropout, recurrent dropout) starts from the same state in every run. Initializers' seeds do not matter: the
    case sets every weight."""
    if isinstance(obj, Mapping):
        for key, value in obj.items():
            if key.endswith("_initializer"):
                continue
            if key == "seed" and not _is_int(value):
                raise _fail(case, f"{where}.seed", "an int (a fixed seed makes training-mode randomness "
                            "reproducible)", value)
            _check_seeds(value, case, f"{where}.{key}")
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            _check_seeds(value, case, f"{where}[{i}]")


def _parse_regularizer(obj: Any, case: str, where: str) -> float | None:
    """``null`` or ``{"l2": f}`` with a number f >= 0; returns f (None for null)."""
    if obj is None:
        return None
    if not isinstance(obj, Mapping) or set(obj) != {"l2"}:
        raise _fail(case, where, 'null or an object {"l2": number >= 0}', obj)
    factor = obj["l2"]
    if not _is_number(factor) or factor < 0:
        raise _fail(case, where + ".l2", "a number >= 0", factor)
    return float(factor)


def _parse_loss(obj: Any, case: str) -> LossSpec:
    if not isinstance(obj, Mapping):
        raise _fail(case, "loss", "an object", obj)
    _check_keys(obj, {"name", "from_logits", "as_string"}, case, "loss.")
    name = _require(obj, "name", case, "loss.")
    as_string = obj.get("as_string", False)
    if not isinstance(as_string, bool):
        raise _fail(case, "loss.as_string", "a bool", as_string)
    from_logits = obj.get("from_logits", False)
    if not isinstance(from_logits, bool):
        raise _fail(case, "loss.from_logits", "a bool", from_logits)
    if as_string:
        _check_loss_string(name, case)
        if from_logits:
            raise _fail(case, "loss.from_logits", "false when loss.as_string is true (a string carries no "
                        "from_logits)", from_logits)
    elif name not in LOSSES:
        raise _fail(case, "loss.name", f"one of {LOSSES}", name)
    return LossSpec(name=name, from_logits=from_logits, as_string=as_string)


def _check_loss_string(name: Any, case: str) -> None:
    """A string-compiled loss: null, a Keras 3 name of MSE or MAE, or a name Keras 3 does not know."""
    expected = (f"null, one of {tuple(KERAS_LOSS_STRINGS)} or a name Keras 3 does not know (case-insensitively) "
                "when loss.as_string is true")
    if name is None:
        return
    if not isinstance(name, str) or not name:
        raise _fail(case, "loss.name", expected, name)
    if name not in KERAS_LOSS_STRINGS and name.lower() in KERAS_OTHER_LOSS_STRINGS:
        raise _fail(case, "loss.name", expected, name)


def _parse_optimizer(obj: Any, case: str) -> OptimizerSpec:
    if not isinstance(obj, Mapping):
        raise _fail(case, "optimizer", "an object", obj)
    name = _require(obj, "name", case, "optimizer.")
    as_string = obj.get("as_string", False)
    if not isinstance(as_string, bool):
        raise _fail(case, "optimizer.as_string", "a bool", as_string)
    if as_string:
        return _parse_optimizer_string(obj, name, case)
    obj = {k: v for k, v in obj.items() if k != "as_string"}
    if name not in OPTIMIZER_DEFAULTS:
        raise _fail(case, "optimizer.name", f"one of {tuple(OPTIMIZER_DEFAULTS)}", name)
    defaults = OPTIMIZER_DEFAULTS[name]
    _check_keys(obj, {"name", *defaults}, case, "optimizer.")
    params = dict(defaults)
    for key, value in obj.items():
        if key == "name":
            continue
        where = f"optimizer.{key}"
        if key in _BOOL_PARAMS:
            if not isinstance(value, bool):
                raise _fail(case, where, "a bool", value)
        elif key in CLIP_KEYS:
            if value is not None and (not _is_number(value) or value <= 0):
                raise _fail(case, where, "null or a number > 0", value)
        elif not _is_number(value) or value < 0 or (key == "learning_rate" and value == 0):
            raise _fail(case, where, "a number >= 0 (learning_rate > 0)", value)
        params[key] = float(value) if _is_number(value) else value
    clips = [k for k in CLIP_KEYS if params[k] is not None]
    if len(clips) > 1:
        raise _fail(case, "optimizer", "at most one of clipnorm, clipvalue, global_clipnorm (Keras 3 rule)",
                    clips)
    return OptimizerSpec(name=name, params=params)


def _parse_optimizer_string(obj: Mapping[str, Any], name: Any, case: str) -> OptimizerSpec:
    """A string-compiled optimizer: a name only, one of the four (any case) or one Keras 3 does not know."""
    extra = sorted(set(obj) - {"name", "as_string"})
    if extra:
        raise _fail(case, f"optimizer.{extra[0]}", "no hyper-parameters when optimizer.as_string is true (a string "
                    "takes the defaults)", obj[extra[0]])
    if not isinstance(name, str) or not name or name.lower() in KERAS_OTHER_OPTIMIZER_STRINGS:
        raise _fail(case, "optimizer.name", f"one of {tuple(OPTIMIZER_DEFAULTS)} (any letter case) or a name "
                    "Keras 3 does not know when optimizer.as_string is true", name)
    return OptimizerSpec(name=name, params={}, as_string=True)


def optimizer_spec(params: Mapping[str, Any], case_name: str = "<case>") -> OptimizerSpec:
    """Validate optimizer settings (``{"name": ..., hyper-parameters...}``); missing ones take Keras 3 defaults."""
    return _parse_optimizer(params, case_name)


def _parse_tolerance(obj: Any, case: str) -> Tolerance:
    if obj is None:
        return Tolerance()
    if not isinstance(obj, Mapping):
        raise _fail(case, "tolerance", "an object with rtol and atol", obj)
    _check_keys(obj, {"rtol", "atol"}, case, "tolerance.")
    values = {}
    for key, default in (("rtol", RTOL), ("atol", ATOL)):
        value = obj.get(key, default)
        if not _is_number(value) or value < 0:
            raise _fail(case, f"tolerance.{key}", "a number >= 0", value)
        values[key] = float(value)
    return Tolerance(**values)


def parse(doc: Any, expected_name: str | None = None) -> Case:
    """Validate a case JSON document and return the Case (without arrays)."""
    if not isinstance(doc, Mapping):
        raise CaseError(f"case document: expected a JSON object, got {type(doc).__name__}")
    name = doc.get("name")
    label = name if isinstance(name, str) else str(expected_name)
    if doc.get("schema") != SCHEMA:
        raise _fail(label, "schema", repr(SCHEMA), doc.get("schema"))
    _check_keys(doc, _TOP_LEVEL, label, "")
    if not isinstance(name, str) or not name:
        raise _fail(label, "name", "a non-empty string", name)
    if expected_name is not None and name != expected_name:
        raise _fail(label, "name", f"the file stem {expected_name!r}", name)
    description = doc.get("description", "")
    if not isinstance(description, str):
        raise _fail(name, "description", "a string", description)
    digest = doc.get(ARRAYS_DIGEST)
    if ARRAYS_DIGEST in doc and not (isinstance(digest, str) and _HEX_DIGEST.fullmatch(digest)):
        raise _fail(name, ARRAYS_DIGEST, "64 lowercase hex digits (the SHA-256 of the .npz)", digest)
    semantics = _require(doc, "semantics", name, "")
    if semantics not in SEMANTICS:
        raise _fail(name, "semantics", f"one of {SEMANTICS}", semantics)
    metrics = doc.get("metrics", [])
    if not isinstance(metrics, list):
        raise _fail(name, "metrics", "a list of strings", metrics)
    for i, metric in enumerate(metrics):
        if metric not in METRICS:
            raise _fail(name, f"metrics[{i}]", f"one of {METRICS}", metric)
        if metric in metrics[:i]:
            raise _fail(name, f"metrics[{i}]", "a metric not listed before", metric)
    ints = {}
    for key in ("batch_size", "steps"):
        value = _require(doc, key, name, "")
        if not _is_int(value) or value < 1:
            raise _fail(name, key, "an int >= 1", value)
        ints[key] = value
    return Case(
        name=name,
        description=description,
        semantics=semantics,
        model=_parse_model(_require(doc, "model", name, ""), name),
        loss=_parse_loss(_require(doc, "loss", name, ""), name),
        metrics=tuple(metrics),
        optimizer=_parse_optimizer(_require(doc, "optimizer", name, ""), name),
        batch_size=ints["batch_size"],
        steps=ints["steps"],
        tolerance=_parse_tolerance(doc.get("tolerance"), name),
    )


# ----------------------------------------------------------------------------------------------- arrays


def _array_error(case: Case, key: str, expected: str, actual: Any) -> CaseError:
    return CaseError(f"case {case.name!r}: array {key!r}: expected {expected}, got {actual}")


def _check_float32(case: Case, key: str, array: np.ndarray) -> None:
    if array.dtype != np.float32:
        raise _array_error(case, key, "dtype float32", f"dtype {array.dtype}")


def _target_shapes(case: Case, n: int) -> list[tuple[int, ...]]:
    k = case.model.output_dim
    if case.loss.name == "sparse_categorical_crossentropy":
        return [(n,), (n, 1)]
    if k == 1 and case.loss.name != "categorical_crossentropy":
        return [(n,), (n, 1)]
    return [(n, k)]


def validate_arrays(case: Case, arrays: CaseArrays) -> CaseArrays:
    """Check the arrays against the case spec; returns them unchanged or raises CaseError."""
    if case.has_keras_model:
        return _validate_keras_arrays(case, arrays)
    shapes = case.model.weight_shapes()
    if len(arrays.weights) != len(shapes):
        raise _array_error(case, "weights", f"{len(shapes)} arrays (model spec)", f"{len(arrays.weights)}")
    for i, (w, shape) in enumerate(zip(arrays.weights, shapes, strict=True)):
        if tuple(w.shape) != shape:
            raise _array_error(case, f"weights/{i}", f"shape {shape} from the model spec", f"shape {w.shape}")
        _check_float32(case, f"weights/{i}", w)
    x = arrays.x
    if x.ndim != 2 or x.shape[1] != case.model.input_dim:
        raise _array_error(case, "x", f"shape (N, {case.model.input_dim})", f"shape {x.shape}")
    _check_float32(case, "x", x)
    n = _check_rows(case, x)
    y = arrays.y
    allowed = _target_shapes(case, n)
    if tuple(y.shape) not in allowed:
        raise _array_error(case, "y", f"shape {' or '.join(str(s) for s in allowed)} for loss "
                           f"{case.loss.name!r} and {case.model.output_dim} outputs", f"shape {y.shape}")
    _check_target_values(case, y, case.model.output_dim)
    _check_sample_weight(case, arrays.sample_weight, n)
    return arrays


def _check_rows(case: Case, x: np.ndarray) -> int:
    n = x.shape[0]
    needed = case.steps * case.batch_size
    if n < needed:
        raise _array_error(case, "x", f"at least steps*batch_size = {needed} rows", f"{n} rows")
    return n


def _check_target_values(case: Case, y: np.ndarray, classes: int | None) -> None:
    """dtype of the targets; integer labels in [0, classes) for sparse cross-entropy (classes None: unknown)."""
    if case.loss.name == "sparse_categorical_crossentropy":
        if y.dtype not in (np.float32, np.int32, np.int64):
            raise _array_error(case, "y", "dtype float32, int32 or int64", f"dtype {y.dtype}")
        labels = y.astype(np.float64)
        bad = np.any(labels != np.round(labels)) or np.any(labels < 0)
        if bad or (classes is not None and np.any(labels >= classes)):
            upper = "" if classes is None else f" in [0, {classes})"
            raise _array_error(case, "y", f"integer class labels{upper or ' >= 0'}", f"values {np.unique(labels)}")
    else:
        _check_float32(case, "y", y)


def _check_sample_weight(case: Case, sw: np.ndarray | None, n: int) -> None:
    if sw is not None:
        if tuple(sw.shape) != (n,):
            raise _array_error(case, "sample_weight", f"shape ({n},)", f"shape {sw.shape}")
        _check_float32(case, "sample_weight", sw)


def _validate_keras_arrays(case: Case, arrays: CaseArrays) -> CaseArrays:
    """A Keras-config case: float32 weights (their shapes are checked when a runner builds the model), x of any
    rank with one sample per row, y and sample_weight with a row per sample."""
    for i, w in enumerate(arrays.weights):
        _check_float32(case, f"weights/{i}", w)
    x = arrays.x
    if x.ndim < 2:
        raise _array_error(case, "x", "shape (N, ...) with samples of rank >= 1", f"shape {x.shape}")
    _check_float32(case, "x", x)
    n = _check_rows(case, x)
    y = arrays.y
    if y.ndim < 1 or y.shape[0] != n:
        raise _array_error(case, "y", f"shape ({n}, ...): one target row per row of x", f"shape {y.shape}")
    _check_target_values(case, y, None)
    _check_sample_weight(case, arrays.sample_weight, n)
    return arrays


def _weight_count(case: Case, data: Mapping[str, np.ndarray]) -> int:
    """Weights of the Dense form from its spec; of a Keras config, the keys ``weights/0`` .. ``weights/{n-1}``."""
    if not case.has_keras_model:
        return len(case.model.weight_shapes())
    n = 0
    while f"weights/{n}" in data:
        n += 1
    return n


def arrays_from_npz(case: Case, data: Mapping[str, np.ndarray]) -> CaseArrays:
    """Build CaseArrays from the npz keys, rejecting missing and unknown keys."""
    n_weights = _weight_count(case, data)
    expected = {f"weights/{i}" for i in range(n_weights)} | {"x", "y"}
    for key in sorted(expected, key=_natural_key):
        if key not in data:
            raise _array_error(case, key, "present in the .npz", "missing")
    unknown = sorted(set(data) - expected - {"sample_weight"})
    if unknown:
        if not unknown[0].startswith("weights/"):
            hint = "an unknown key"
        elif case.has_keras_model:
            hint = f"weights numbered without gaps from weights/0; weights/{n_weights} is missing"
        else:
            hint = "weights beyond the model spec"
        raise _array_error(case, unknown[0], f"no such key ({hint})", "present")
    arrays = CaseArrays(
        weights=[np.asarray(data[f"weights/{i}"]) for i in range(n_weights)],
        x=np.asarray(data["x"]),
        y=np.asarray(data["y"]),
        sample_weight=np.asarray(data["sample_weight"]) if "sample_weight" in data else None,
    )
    return validate_arrays(case, arrays)


def _natural_key(key: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in key.split("/"))


# ----------------------------------------------------------------------------------------------- files


MAX_CASE_JSON_BYTES = 16 << 20


def load(path: str | Path) -> Case:
    """Load ``<name>.json`` and ``<name>.npz`` (``allow_pickle=False``), validated, arrays attached."""
    json_path = Path(path)
    if json_path.suffix != ".json":
        json_path = json_path.with_suffix(".json")
    if not json_path.is_file():
        raise CaseError(f"case file {str(json_path)!r}: expected an existing .json file, got none")
    size = json_path.stat().st_size
    if size > MAX_CASE_JSON_BYTES:
        raise CaseError(f"case file {str(json_path)!r}: {size} bytes exceed the limit of {MAX_CASE_JSON_BYTES}")
    try:
        doc = json.loads(json_path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as err:
        raise CaseError(f"case file {str(json_path)!r}: expected valid JSON, got {err}") from err
    case = parse(doc, expected_name=json_path.stem)
    npz_path = json_path.with_suffix(".npz")
    if not npz_path.is_file():
        raise CaseError(f"case {case.name!r}: expected arrays file {str(npz_path)!r}, got none")
    try:
        contents = load_npz(npz_path)
    except (ValueError, OSError) as err:
        raise CaseError(f"case {case.name!r}: arrays file {str(npz_path)!r}: expected a plain .npz "
                        f"(no pickled objects), got error: {err}") from err
    case.arrays = arrays_from_npz(case, contents)
    # After the arrays' own checks, so an edited array is named; a valid .npz of another save is refused here.
    expected = doc.get(ARRAYS_DIGEST)
    if expected is not None:
        actual = _sha256(npz_path)
        if actual != expected:
            raise CaseError(f"case {case.name!r}: arrays file {str(npz_path)!r}: expected SHA-256 {expected} "
                            f"({ARRAYS_DIGEST} in {str(json_path)!r}), got {actual}: the two files are not of one "
                            "save (an interrupted save or an edited .npz); save the case again")
    case.path = json_path
    return case


def _sha256(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _write_npz(path: Path, arrays: Mapping[str, np.ndarray]) -> None:
    """An .npz with fixed timestamps, so the same arrays always give the same bytes."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as zf:
        for key, value in arrays.items():
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            with zf.open(info, "w") as fh:
                np.lib.format.write_array(fh, np.ascontiguousarray(value), allow_pickle=False)


def save(case: Case, arrays: CaseArrays | Mapping[str, np.ndarray] | None, directory: str | Path) -> Path:
    """Write ``<directory>/<case.name>.json`` and ``.npz``; arrays default to ``case.arrays``. Returns the JSON path.

    Both files are written whole to temporaries beside them (:func:`tfnet_train.files.atomic_path`) before either
    is renamed, so a failure while writing leaves the old case as it was. The JSON carries the SHA-256 of the new
    ``.npz`` (``arrays_sha256``) and is renamed first: if the process dies between the two renames, the new JSON
    beside the old ``.npz`` is refused by :func:`load`, never read as a case.
    """
    if arrays is None:
        arrays = case.arrays
    if arrays is None:
        raise CaseError(f"case {case.name!r}: no arrays to save (pass arrays or set case.arrays)")
    if not isinstance(arrays, CaseArrays):
        arrays = arrays_from_npz(case, arrays)
    else:
        validate_arrays(case, arrays)
    parse(copy.deepcopy(case.to_json()))  # the document we write must load back
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    json_path = directory / f"{case.name}.json"
    # The inner context (the JSON) is renamed into place first, the .npz after it.
    with atomic_path(json_path.with_suffix(".npz")) as npz_temporary, atomic_path(json_path) as json_temporary:
        _write_npz(npz_temporary, arrays.to_npz_dict())
        doc = {**case.to_json(), ARRAYS_DIGEST: _sha256(npz_temporary)}
        json_temporary.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return json_path
