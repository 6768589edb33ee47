"""Layers of a tf.keras SavedModel whose Python class is not known here (a custom layer), run by the TensorFlow
graph saved with them: tf.keras's and TensorFlow.NET's ``RevivedLayer`` (``Saving/SavedModel/RevivedLayer.cs``).

The layer owns ordinary Keras variables (trained, saved and loaded as any layer's) and calls the saved call function
with its own variables in place of the ones the function captured, so the graph is pure code. A ``.keras`` file keeps
that graph among the layer's assets; reading it back runs graph code from the file, which ``safe_mode`` refuses as
Keras refuses ``keras.layers.TFSMLayer`` configs, wherever the file sits (inside an ``export`` folder too). A
SavedModel directory's graph runs only when it is loaded with ``safe_mode=False``
(:mod:`tfnet_train.engine.tf_keras_savedmodel`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import keras
import tensorflow as tf

from tfnet_train import keras_internals


class SavedGraph:
    """One layer's saved functions: ``call_and_return_conditional_losses`` (a concrete function per input signature
    and ``training`` value), its weight regularizers, and the variables they captured."""

    def __init__(self, calls: Sequence[Any], regularizers: Sequence[Any], variables: Sequence[Any]) -> None:
        self.calls = list(calls)
        self.regularizers = list(regularizers)
        self.variables = list(variables)

    @classmethod
    def of_revived(cls, layer: Any) -> SavedGraph:
        """The functions of a layer tf.keras revived from a SavedModel."""
        api = layer.keras_api
        regularizers = [c for f in getattr(api, "regularization_losses", []) for c in f.concrete_functions]
        return cls(api.call_and_return_conditional_losses.concrete_functions, regularizers, layer.weights)

    def module(self) -> tf.Module:
        """A module holding the functions and what they capture, for ``tf.saved_model.save``."""
        module = tf.Module()
        module.calls, module.regularizers, module.captured_variables = self.calls, self.regularizers, self.variables
        return module

    def captures(self, concrete: Any, own: Sequence[keras.Variable]) -> list[Any]:
        """``concrete``'s captured inputs with each captured variable replaced by the handle of ``own``'s variable
        at the same place (tensors other than those variables stay as captured). Functions loaded under a
        tf.distribute strategy capture its variables themselves, others their handles."""
        index: dict[int, int] = {}
        for i, variable in enumerate(self.variables):
            index[id(variable)] = i
            if not isinstance(variable, tf.distribute.DistributedValues):
                index[id(variable.handle)] = i
        return [_handle_here(own[index[id(c)]]) if id(c) in index else c for c in concrete.captured_inputs]

    def select(self, inputs: Any, training: bool, layer: str) -> Any:
        """The call function traced for ``inputs``' structure, dtypes and shapes and for ``training``; ValueError
        naming the layer, the signatures saved and the inputs given otherwise."""
        for concrete in self.calls:
            args, kwargs = concrete.structured_input_signature
            saved_training = kwargs.get("training", args[1] if len(args) > 1 else None)
            if isinstance(saved_training, bool) and saved_training != training:
                continue
            try:
                tf.nest.assert_same_structure(args[0], inputs)
            except (TypeError, ValueError):
                continue
            pairs = zip(tf.nest.flatten(args[0]), tf.nest.flatten(inputs))
            if all(s.dtype == t.dtype and s.shape.is_compatible_with(t.shape) for s, t in pairs):
                return concrete
        saved = sorted({str(c.structured_input_signature[0][0]) for c in self.calls})
        given = tf.nest.map_structure(lambda t: f"{t.dtype.name}{list(t.shape)}", inputs)
        raise ValueError(f"layer {layer!r} (revived from a SavedModel) has no call traced for inputs {given} with "
                         f"training={training}; its saved inputs: {'; '.join(saved)}")


def _handle_here(variable: Any) -> Any:
    """``variable``'s resource handle for the code running now: under a tf.distribute strategy the replica's own
    copy (the first copy in cross-replica code, such as a symbolic build), else its one handle."""
    value = getattr(variable, "value", variable)  # a Keras variable holds a tf.Variable
    if isinstance(value, tf.distribute.DistributedValues) and tf.distribute.in_cross_replica_context():
        value = tf.distribute.get_strategy().experimental_local_results(value)[0]
    return value.handle


def _spec_record(spec: Any) -> list[Any]:
    return [spec.shape.as_list(), spec.dtype.name]


@keras.saving.register_keras_serializable(package="tfnet_train")
class RevivedLayer(keras.layers.Layer):
    """A layer of a tf.keras SavedModel whose class is unknown here, run by its saved graph with Keras variables."""

    def __init__(self, revived_class: str, revived_config: dict[str, Any], weight_specs: list[dict[str, Any]],
                 output_spec: dict[str, Any], graph: SavedGraph | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("autocast", False)  # the graph was traced for its saved dtypes
        super().__init__(**kwargs)
        self.revived_class = revived_class
        self.revived_config = revived_config
        self.weight_specs = weight_specs
        self.output_spec = output_spec
        self._graph = graph
        for spec in weight_specs:
            self.add_weight(shape=tuple(spec["shape"]), dtype=spec["dtype"], trainable=spec["trainable"],
                            name=spec["name"], initializer="zeros")
        self.built = True

    @classmethod
    def of_revived(cls, layer: Any) -> RevivedLayer:
        """This layer for one tf.keras revived, holding its current weight values."""
        graph = SavedGraph.of_revived(layer)
        outputs = graph.calls[0].structured_outputs[0] if graph.calls else None
        if isinstance(outputs, tf.TensorSpec):
            output_spec = {"kind": "tensor", "specs": [_spec_record(outputs)]}
        elif isinstance(outputs, (list, tuple)) and outputs and all(isinstance(o, tf.TensorSpec) for o in outputs):
            output_spec = {"kind": "list", "specs": [_spec_record(o) for o in outputs]}
        else:
            raise ValueError(f"layer {layer.name!r} ({type(layer).__name__}, revived from a SavedModel) returns "
                             f"{outputs!r}; a revived layer may return a tensor or a list of tensors")
        specs = [{"name": v.name.split("/")[-1].split(":")[0], "shape": v.shape.as_list(),
                  "dtype": v.dtype.name, "trainable": bool(v.trainable)} for v in layer.weights]
        try:
            config = dict(layer.get_config())
        except NotImplementedError:  # a subclassed model that defines no get_config
            config = {}
        revived = cls(type(layer).__name__, config, specs, output_spec, graph,
                      name=layer.name, trainable=layer.trainable, dtype=layer.dtype)
        for own, saved in zip(revived.weights, layer.weights):
            own.assign(saved)
        return revived

    def saved_calls(self) -> list[Any]:
        """The call functions saved with the layer, one per input signature and ``training`` value."""
        return list(self._graph.calls) if self._graph is not None else []

    def call(self, inputs: Any, training: bool | None = None) -> Any:
        if self._graph is None:
            raise ValueError(f"layer {self.name!r} ({self.revived_class}) has no saved graph: it was built from a "
                             "config alone; load the file that carries it")
        inputs = tf.nest.map_structure(tf.convert_to_tensor, inputs)
        concrete = self._graph.select(inputs, bool(training), self.name)
        own = self.weights
        for variable in self.trainable_weights:
            tf.convert_to_tensor(variable)  # a read tells the tapes the graph below uses this variable
        outputs, losses = keras_internals.call_concrete_with_captures(
            concrete, tf.nest.flatten(inputs), self._graph.captures(concrete, own))
        for loss in list(losses) + [keras_internals.call_concrete_with_captures(c, [], self._graph.captures(c, own))
                                    for c in self._graph.regularizers]:
            self.add_loss(loss)
        return outputs

    def compute_output_spec(self, inputs: Any, training: bool | None = None) -> Any:
        batch = tf.nest.flatten(inputs)[0].shape[0]
        tensors = [keras.KerasTensor([batch, *shape[1:]] if shape else shape, dtype=dtype)
                   for shape, dtype in self.output_spec["specs"]]
        return tensors[0] if self.output_spec["kind"] == "tensor" else tensors

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "revived_class": self.revived_class, "revived_config": self.revived_config,
                "weight_specs": self.weight_specs, "output_spec": self.output_spec}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> RevivedLayer:
        if keras_internals.in_safe_mode() is not False:
            raise ValueError(
                f"layer {config.get('name')!r} ({config.get('revived_class')}) was revived from a SavedModel and "
                "runs the TensorFlow graph stored with it; safe_mode=True refuses graph code in a .keras file, as "
                "Keras refuses TFSMLayer. Pass safe_mode=False only for files you trust")
        return cls(**config)

    # The graph travels in a .keras file as a SavedModel among the layer's assets (Keras's place for a layer's files).
    def save_assets(self, dir_path: str) -> None:
        if self._graph is None:
            raise ValueError(f"layer {self.name!r} ({self.revived_class}) has no saved graph to write")
        tf.saved_model.save(self._graph.module(), dir_path)

    def load_assets(self, dir_path: str) -> None:
        module = tf.saved_model.load(dir_path)
        self._graph = SavedGraph(module.calls, module.regularizers, module.captured_variables)


def revived_layers(model: Any) -> dict[str, Any]:
    """The layers of a tf.keras model (nested models included) that tf.keras revived from their saved graph,
    by name; ValueError when two different ones share a name (the rebuilt model could not tell them apart)."""
    found: dict[str, Any] = {}

    def visit(layers: Sequence[Any]) -> None:
        for layer in layers:
            if keras_internals.is_tf_keras_revived(layer) and not hasattr(layer, "layers"):
                if layer.name in found and found[layer.name] is not layer:
                    raise ValueError(f"two layers revived from the SavedModel are named {layer.name!r}; "
                                     "expected unique names")
                found[layer.name] = layer
            if hasattr(layer, "layers"):
                visit(layer.layers)

    visit(model.layers)
    return found


def revived_in(model: Any) -> list[str]:
    """The names of the RevivedLayers among ``model``'s layers, nested models included."""
    names: list[str] = []
    for layer in getattr(model, "layers", []):
        names += [layer.name] if isinstance(layer, RevivedLayer) else revived_in(layer)
    return names


class Reviver:
    """Stands for a revived layer's class during Keras's rebuild from config: ``from_config`` gives the
    ``RevivedLayer`` of the layer of that name."""

    def __init__(self, layers: dict[str, Any]) -> None:
        self.layers = layers

    def from_config(self, config: dict[str, Any]) -> RevivedLayer:
        return RevivedLayer.of_revived(self.layers[config["name"]])
