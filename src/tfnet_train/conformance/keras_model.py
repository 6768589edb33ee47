"""Models of a case given as Keras's own architecture config (``model.keras_config``): build them for Keras and for
the engine, and tell whether the Dense-only references (NumPy, C#) can run them.

A config that is a Sequential stack of plain Dense layers on rank-1 samples has a Dense form (``ModelSpec``), which
every implementation runs; any other layer is named in the reason a reference gives for not running the case.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfnet_train.conformance.case import ACTIVATIONS, DenseSpec, KerasModelSpec, ModelSpec

# Dense options the Dense form leaves at their Keras default (anything else keeps a case in its Keras form).
_DENSE_DEFAULTS = {"bias_regularizer": None, "activity_regularizer": None, "kernel_constraint": None,
                   "bias_constraint": None, "lora_rank": None}


class NoDenseForm(ValueError):
    """A Keras config the Dense form cannot express; the message names the layer (``layer Conv2D (conv2d)``)."""


def build_keras_model(spec: KerasModelSpec, engine: bool = False) -> Any:
    """The model the config describes: a ``keras.Sequential`` / Functional ``keras.Model``, or the engine's
    ``tfnet_train.Sequential`` / ``tfnet_train.Model`` when ``engine`` (same layers, same weight order)."""
    import keras

    if engine:
        from tfnet_train import engine as tfnet_engine

        classes = {"Sequential": tfnet_engine.Sequential, "Functional": tfnet_engine.Model}
    else:
        classes = {"Sequential": keras.Sequential, "Functional": keras.Model}
    model = classes[spec.class_name].from_config(dict(spec.config))
    build_config = spec.keras_config.get("build_config")
    if build_config and not model.built:  # a Sequential given no Input: built from the recorded input shape
        model.build_from_config(build_config)
    return model


def set_case_weights(model: Any, weights: list[Any], case_name: str) -> None:
    """``model.set_weights`` with the case's weights, refusing a count or shape the model does not have."""
    shapes = [tuple(w.shape) for w in model.weights]
    given = [tuple(w.shape) for w in weights]
    if shapes != given:
        raise ValueError(f"case {case_name!r}: weights: expected {len(shapes)} arrays of shapes {shapes} "
                         f"(model.get_weights() of the keras_config), got {len(given)} of shapes {given}")
    model.set_weights(weights)


def _describe(layer: Mapping[str, Any]) -> str:
    return f"layer {layer['class_name']} ({layer['config'].get('name', '?')})"


def _dense_layer(layer: Mapping[str, Any]) -> DenseSpec:
    config = layer["config"]
    what = _describe(layer)
    if layer["class_name"] != "Dense":
        raise NoDenseForm(what)
    activation = config.get("activation", "linear")
    if activation not in ACTIVATIONS:
        raise NoDenseForm(f"{what} with activation {activation!r}")
    for key, default in _DENSE_DEFAULTS.items():
        if config.get(key, default) not in (default, 0):
            raise NoDenseForm(f"{what} with a {key}")
    dtype = config.get("dtype")
    dtype_name = dtype.get("config", {}).get("name") if isinstance(dtype, Mapping) else dtype
    if dtype_name not in (None, "float32"):
        raise NoDenseForm(f"{what} with dtype {dtype_name!r}")
    kernel_l2 = None
    regularizer = config.get("kernel_regularizer")
    if regularizer is not None:
        inner = regularizer.get("config", {}) if isinstance(regularizer, Mapping) else {}
        if not isinstance(regularizer, Mapping) or regularizer.get("class_name") != "L2" or set(inner) != {"l2"}:
            name = regularizer.get("class_name") if isinstance(regularizer, Mapping) else regularizer
            raise NoDenseForm(f"{what} with kernel_regularizer {name}")
        kernel_l2 = float(inner["l2"])
    return DenseSpec(units=int(config["units"]), activation=activation, use_bias=bool(config.get("use_bias", True)),
                     kernel_l2=kernel_l2)


def dense_form(spec: KerasModelSpec) -> ModelSpec:
    """The Dense form of a config, or NoDenseForm naming the first layer (or input) it cannot express."""
    layers = list(spec.config["layers"])
    for layer in layers:
        if layer["class_name"] not in ("InputLayer", "Dense"):
            raise NoDenseForm(_describe(layer))
    if spec.class_name != "Sequential":
        raise NoDenseForm(f"a {spec.class_name} model (the Dense form is a Sequential stack)")
    if layers and layers[0]["class_name"] == "InputLayer":
        shape = layers[0]["config"].get("batch_shape") or [None, *layers[0]["config"].get("shape", [])]
        layers = layers[1:]
    else:
        shape = (spec.keras_config.get("build_config") or {}).get("input_shape")
        if not shape:
            raise NoDenseForm("a Sequential with no input shape")
    if len(shape) != 2 or not isinstance(shape[1], int):
        raise NoDenseForm(f"inputs of shape {tuple(shape[1:])} (the Dense form takes rank-1 samples)")
    dense = tuple(_dense_layer(layer) for layer in layers)
    if not dense:
        raise NoDenseForm("a model without layers")
    return ModelSpec(input_dim=shape[1], layers=dense)


def dense_only(case: Any, implementation: str) -> Any:
    """The case in its Dense form for a Dense-only reference (itself when it is one already); NotApplicable naming
    the layer ``implementation`` cannot run otherwise."""
    from dataclasses import replace

    from tfnet_train.conformance.case import validate_arrays
    from tfnet_train.conformance.errors import NotApplicable

    if not isinstance(case.model, KerasModelSpec):
        return case
    try:
        dense = replace(case, model=dense_form(case.model))
    except NoDenseForm as err:
        raise NotApplicable(f"{err} is not implemented by {implementation}") from None
    if dense.arrays is not None:
        validate_arrays(dense, dense.arrays)
    return dense
