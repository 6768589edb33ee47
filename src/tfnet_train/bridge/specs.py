"""Builds layers, optimizers and losses from (name, keyword arguments) pairs sent by the C# host."""

from __future__ import annotations

import difflib
import inspect
from typing import Any

import keras

from tfnet_train.bridge.face_layers import FACE_LAYERS

_INPUT_NAMES = ("Input", "InputLayer")


def _unknown(kind: str, name: str, known: list[str]) -> ValueError:
    close = difflib.get_close_matches(name, known, n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return ValueError(f"{kind} must name a Keras {kind} class; got {name!r}{hint}")


def _check_kwargs(kind: str, kwargs: Any) -> dict[str, Any]:
    if kwargs is None:
        return {}
    if not isinstance(kwargs, dict):
        raise TypeError(f"{kind} keyword arguments must be a dict; got {type(kwargs).__name__}")
    return dict(kwargs)


def _classes(module: Any, base: type) -> dict[str, type]:
    return {
        name: obj
        for name, obj in vars(module).items()
        if inspect.isclass(obj) and issubclass(obj, base) and not name.startswith("_")
    }


def build_layer(class_name: str, kwargs: dict[str, Any] | None = None) -> Any:
    """A Keras layer `keras.layers.<class_name>(**kwargs)`; "Input" gives `keras.Input(**kwargs)`."""
    kwargs = _check_kwargs("layer", kwargs)
    if class_name in _INPUT_NAMES:
        return keras.Input(**kwargs)
    layers = {**_classes(keras.layers, keras.layers.Layer), **FACE_LAYERS}
    if class_name not in layers:
        raise _unknown("layer", class_name, sorted(layers) + list(_INPUT_NAMES))
    return layers[class_name](**kwargs)


def build_layers(specs: list[tuple[str, dict[str, Any] | None]]) -> list[Any]:
    """`build_layer` over a list of (class name, kwargs) pairs."""
    return [build_layer(name, kwargs) for name, kwargs in specs]


def _engine_classes(module: Any, base: type) -> dict[str, type]:
    return {name: cls for name, cls in vars(module).items() if inspect.isclass(cls) and issubclass(cls, base)
            and cls is not base}


def build_schedule(name: str, kwargs: dict[str, Any] | None = None) -> Any:
    """A learning-rate schedule of keras.optimizers.schedules (re-exported as tfnet_train.optimizers.schedules) by
    class name (`ExponentialDecay`, ...)."""
    from tfnet_train.optimizers import schedules

    kwargs = _check_kwargs("schedule", kwargs)
    classes = _engine_classes(schedules, schedules.LearningRateSchedule)
    if name not in classes:
        raise _unknown("schedule", name, sorted(classes))
    return classes[name](**kwargs)


def build_optimizer(name: str, kwargs: dict[str, Any] | None = None) -> Any:
    """An optimizer by class name (any case) with `kwargs`: tfnet_train's SGD, Adam, AdamW, RMSprop, or any other
    Keras 3 optimizer class (Adagrad, Nadam, Lion, ...).

    A `learning_rate` given as a (schedule class name, kwargs) pair becomes that schedule.
    """
    from tfnet_train import optimizers

    kwargs = _check_kwargs("optimizer", kwargs)
    classes = {name: cls for name, cls in _classes(keras.optimizers, keras.optimizers.Optimizer).items()
               if name != "Optimizer"}
    classes.update(_engine_classes(optimizers, optimizers.OptimizerV2))
    by_lower = {key.lower(): cls for key, cls in classes.items()}
    cls = classes.get(name) or by_lower.get(str(name).lower())
    if cls is None:
        raise _unknown("optimizer", name, sorted(classes))
    rate = kwargs.get("learning_rate")
    if isinstance(rate, tuple | list) and len(rate) == 2 and isinstance(rate[0], str):
        kwargs["learning_rate"] = build_schedule(rate[0], rate[1])
    return cls(**kwargs)


def build_loss(name: str, kwargs: dict[str, Any] | None = None) -> Any:
    """A Keras loss object by class name (`SparseCategoricalCrossentropy`) with `kwargs`; the face's
    `SigmoidFocalCrossEntropy` takes `semantics` too (engine/tfnet_arithmetic.py)."""
    from tfnet_train.engine.tfnet_arithmetic import FACE_LOSSES

    kwargs = _check_kwargs("loss", kwargs)
    classes = {**_classes(keras.losses, keras.losses.Loss), **FACE_LOSSES}
    classes.pop("Loss", None)
    classes.pop("LossFunctionWrapper", None)
    if name not in classes:
        raise _unknown("loss", name, sorted(classes))
    return classes[name](**kwargs)
