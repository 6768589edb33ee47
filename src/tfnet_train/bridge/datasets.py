"""tf.data datasets for the C# host: built from arrays, transformed by name, or fed by C# batch by batch."""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterator, Sequence
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from tfnet_train.bridge.host_stream import HostStream, as_batch
from tfnet_train.bridge.specs import _check_kwargs, _unknown
from tfnet_train.engine.data.stream import BatchStream

#: The dataset methods C# may call (TF.NET's `IDatasetV2` names).
METHODS = ("shuffle", "batch", "prefetch", "repeat", "take", "skip", "cache")


def from_tensor_slices(arrays: Sequence[Any]) -> tf.data.Dataset:
    """`Dataset.from_tensor_slices` of one array, or of a tuple (x, y) / (x, y, sample_weight)."""
    arrays = list(arrays)
    if not 1 <= len(arrays) <= 3:
        raise ValueError(f"arrays must hold 1 to 3 arrays (x, y, sample_weight); got {len(arrays)}")
    rows = {len(a) for a in arrays}
    if len(rows) != 1:
        raise ValueError(f"arrays must have the same number of rows; got {[len(a) for a in arrays]}")
    return tf.data.Dataset.from_tensor_slices(arrays[0] if len(arrays) == 1 else tuple(arrays))


def dataset_call(dataset: Any, method: str, kwargs: dict[str, Any] | None = None) -> tf.data.Dataset:
    """`dataset.<method>(**kwargs)` for a method in `METHODS`."""
    if not isinstance(dataset, tf.data.Dataset):
        raise TypeError(f"dataset must be a tf.data.Dataset; got {type(dataset).__name__}")
    if method not in METHODS:
        raise _unknown("dataset method", method, list(METHODS))
    return getattr(dataset, method)(**_check_kwargs("dataset", kwargs))


def dataset_cardinality(dataset: Any) -> int:
    """Number of elements, -1 infinite, -2 unknown."""
    return int(dataset.cardinality())


def element_arity(dataset: Any) -> int:
    """1 for a bare x element, else the tuple length of each element."""
    spec = dataset.element_spec
    return len(spec) if isinstance(spec, tuple) else 1


def check_element(dataset: Any, arity: tuple[int, ...], argument: str) -> None:
    """TypeError unless the elements are x alone or a tuple of one of the allowed lengths."""
    n = element_arity(dataset)
    if n not in arity:
        raise TypeError(f"{argument} must yield elements of {' or '.join(map(str, arity))} part(s) "
                        f"(x, y, sample_weight); got {n} with spec {dataset.element_spec}")


def group_inputs(dataset: Any, count: int) -> tf.data.Dataset:
    """TensorFlow.NET's ``FirstInputTensorCount``: elements ``(x1, ..., xn, y, ...)`` become
    ``((x1, ..., xn), y, ...)``, the nested form Keras reads as the inputs of a model of ``n`` inputs."""
    if not isinstance(dataset, tf.data.Dataset):
        raise TypeError(f"dataset must be a tf.data.Dataset; got {type(dataset).__name__}")
    count = int(count)
    n = element_arity(dataset)
    if not isinstance(dataset.element_spec, tuple) or count < 2 or count > n:
        raise ValueError(f"FirstInputTensorCount must be between 2 and the {n} component(s) of each element; "
                         f"got {count}")
    return dataset.map(lambda *parts: (tuple(parts[:count]), *parts[count:]))


def _specs(signature: Sequence[tuple[Sequence[int], str]]) -> tuple[tf.TensorSpec, ...]:
    return tuple(tf.TensorSpec([None if d < 0 else d for d in shape], dtype) for shape, dtype in signature)


def from_host_batches(batches: Sequence[Sequence[Any]], signature: Sequence[tuple[Sequence[int], str]]
                      ) -> tf.data.Dataset:
    """A generator dataset over batches made by C# and held here (each a tuple of arrays), yielded on every pass.

    `signature` lists each part's per-batch shape (-1 unknown) and dtype; the C# side has checked every batch
    against it.
    """
    specs = _specs(signature)
    held = [tuple(np.asarray(p) for p in batch) for batch in batches]

    def generate() -> Iterator[Any]:
        for parts in held:
            yield as_batch(parts)

    dataset = tf.data.Dataset.from_generator(generate, output_signature=specs if len(specs) > 1 else specs[0])
    return _with_source(dataset, generate)


#: The batch source of each dataset made from C# batches (a pass function, or the HostStream): fit reads it directly, a
#: block of batches per compiled call (a tf.data generator element costs about a step's time; a dataset derived from
#: it by map, batch, ... is not here).
_SOURCES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _with_source(dataset: tf.data.Dataset, passes: Any) -> tf.data.Dataset:
    _SOURCES[dataset] = passes
    return dataset


#: Batches tf.data's generator over C# batches reads ahead of the step that needs them.
STREAM_READ_AHEAD = 2


def host_stream(signature: Sequence[tuple[Sequence[int], str]]) -> HostStream:
    """A HostStream for batches of the given per-part (shape, dtype) signature."""
    return HostStream(_specs(signature))


def from_host_stream(stream: HostStream) -> tf.data.Dataset:
    """A generator dataset over `stream`: a new C# enumeration per pass, read `STREAM_READ_AHEAD` batches ahead."""
    specs = stream.specs
    dataset = tf.data.Dataset.from_generator(stream.generate, output_signature=specs if len(specs) > 1 else specs[0])
    return _with_source(dataset.prefetch(STREAM_READ_AHEAD), stream)


def fit_dataset(model: Any, dataset: Any, epochs: int = 1, verbose: int = 0, initial_epoch: int = 0,
                steps_per_epoch: int | None = None, validation_data: Any = None,
                callbacks: Sequence[Any] | None = None, cancel: Any = None) -> dict[str, Any]:
    """`model.fit(dataset, ...)`; returns {"history": {name: [float per epoch]}, "epoch": [int]} as the bridge's fit.

    `callbacks` are those of the array path (host callbacks for C# objects, Keras callbacks built from specs);
    ``cancel`` is the host's cancellation flag (see `cancellation`).
    """
    from tfnet_train.bridge.cancellation import with_cancel
    from tfnet_train.bridge.models import _check_model

    model = _check_model(model)
    check_element(dataset, (2, 3), "dataset")
    if validation_data is not None:
        check_element(validation_data, (2, 3), "validation_data")
    source = _SOURCES.get(dataset) if steps_per_epoch is None else None
    stream = source if isinstance(source, HostStream) else None
    try:  # a data error leaves the model as it was (the engine's fit over data read while it trains)
        x = dataset if source is None else BatchStream(source if stream is None else stream.read_ahead)
        history = model.fit(x, epochs=epochs, verbose=verbose, initial_epoch=initial_epoch, shuffle=False,
                            steps_per_epoch=steps_per_epoch, validation_data=validation_data,
                            callbacks=with_cancel(callbacks, cancel))
    finally:
        if stream is not None:
            stream.end_passes()
    return {
        "history": {name: [float(v) for v in values] for name, values in history.history.items()},
        "epoch": [int(e) for e in history.epoch],
    }


def evaluate_dataset(model: Any, dataset: Any, steps: int | None = None, cancel: Any = None) -> dict[str, float]:
    """`model.evaluate(dataset)`, silent, as a dict of logs; the dataset's elements must be (x, y[, sample_weight])."""
    from tfnet_train.bridge.models import evaluate

    check_element(dataset, (2, 3), "dataset")
    return evaluate(model, dataset, steps=steps, cancel=cancel)


def predict_dataset(model: Any, dataset: Any, steps: int | None = None, cancel: Any = None) -> list[tf.Tensor]:
    """`model.predict(dataset)`, silent: one eager tensor per model output (a single output is a one-item list)."""
    from tfnet_train.bridge.models import predict_tensors

    check_element(dataset, (1, 2, 3), "dataset")
    return predict_tensors(model, dataset, steps=steps, cancel=cancel)


def image_dataset_from_directory(directory: str, image_size: Sequence[int] | None = None,
                                 **kwargs: Any) -> dict[str, Any]:
    """`keras.utils.image_dataset_from_directory` (silent) with its class names: {"dataset", "class_names"}.

    `image_size` may be any (height, width) sequence (Keras's default 256x256 when None); a missing folder is a
    FileNotFoundError naming it; a split into both subsets at once (``subset="both"``) is not offered.
    """
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"directory must be an existing folder of class sub-folders; got {directory!r}")
    if kwargs.get("subset") == "both":
        raise ValueError('subset must be "training", "validation" or None; got "both"')
    if image_size is not None:
        kwargs["image_size"] = tuple(int(d) for d in image_size)
    dataset = keras.utils.image_dataset_from_directory(directory, verbose=False, **_check_kwargs("dataset", kwargs))
    return {"dataset": dataset, "class_names": [str(n) for n in dataset.class_names]}


#: keras.datasets the face mirrors (TF.NET's `keras.datasets.mnist`, ...): arrays of numbers, loaded by Keras itself.
KERAS_DATASETS = ("mnist", "fashion_mnist", "cifar10", "cifar100")


def keras_dataset(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``keras.datasets.<name>.load_data()`` as (x_train, y_train, x_test, y_test): Keras reads its cache under
    KERAS_HOME and downloads the file on first use. A failed download is an OSError naming the dataset."""
    if name not in KERAS_DATASETS:
        raise _unknown("keras dataset", name, list(KERAS_DATASETS))
    loader = getattr(keras.datasets, name)
    try:
        (x_train, y_train), (x_test, y_test) = loader.load_data()
    except Exception as error:  # noqa: BLE001 - Keras's get_file raises a plain Exception when the download fails
        raise OSError(f"keras.datasets.{name}.load_data(): {error} (Keras downloads it on first use and caches it "
                      "under KERAS_HOME; keras.datasets.digits.load_data() needs no download)") from error
    return x_train, y_train, x_test, y_test
