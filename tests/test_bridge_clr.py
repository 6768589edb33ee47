"""The other direction: Python loads dotnet/bin/TfNetTrain.dll (pythonnet on Mono) and calls the C# types —
NDArray construction and round trips, and a C# Model driving the engine inside this very interpreter."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keras
import numpy as np
import pytest
from clr_host import load_assembly

import tfnet_train
from tfnet_train import optimizers


@pytest.fixture
def tfnet(dotnet_bin: Path) -> Any:
    """The TfNetTrain namespace, loaded into this process."""
    load_assembly(dotnet_bin / "TfNetTrain.dll")
    import TfNetTrain

    return TfNetTrain


@pytest.fixture
def runtime(tfnet: Any) -> Iterator[Any]:
    """A PythonRuntime attached to this interpreter (Python hosts .NET)."""
    rt = tfnet.PythonRuntime.Start()
    try:
        yield rt
    finally:
        rt.Dispose()


def _dotnet_array(values: list[float]) -> Any:
    import System

    return System.Array[System.Single](values)


def _shape(*dims: int) -> Any:
    import System

    return System.Array[System.Int32](list(dims))


def test_ndarray_constructor_wraps_data_with_shape(tfnet: Any) -> None:
    a = tfnet.NDArray(_dotnet_array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]), _shape(2, 3))
    assert list(a.Shape) == [2, 3]
    assert a.DType == tfnet.DType.Float32
    assert a.Size == 6
    assert str(a) == "NDArray float32 (2, 3)"


def test_ndarray_shape_errors_name_the_parameter(tfnet: Any) -> None:
    with pytest.raises(Exception) as info:
        tfnet.NDArray(_dotnet_array([1.0, 2.0, 3.0]), _shape(2, 2))
    assert "shape" in str(info.value) and "4 elements" in str(info.value)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3), (2, 1, 3, 2)])
def test_numpy_round_trip_through_ndarray_is_exact(tfnet: Any, dtype: str, shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(sum(shape) + len(dtype))
    original = (rng.standard_normal(shape) * 1e4).astype(dtype)
    nd = tfnet.NDArray.FromPython(original)
    assert nd.DType.ToString().lower() == dtype
    assert tuple(nd.Shape) == shape
    back = nd.ToPython()
    assert isinstance(back, np.ndarray)
    assert back.dtype == original.dtype and back.shape == original.shape
    assert back.tobytes() == original.tobytes()


def test_from_python_reads_views_in_logical_order(tfnet: Any) -> None:
    base = np.arange(12, dtype=np.float64).reshape(3, 4)
    nd = tfnet.NDArray.FromPython(base.T[::2])
    assert tuple(nd.Shape) == (2, 3)
    np.testing.assert_array_equal(nd.ToPython(), base.T[::2])


def test_multidimensional_dotnet_arrays_keep_their_layout(tfnet: Any) -> None:
    import System

    matrix = System.Array.CreateInstance(System.Double, 2, 3)
    for i in range(2):
        for j in range(3):
            matrix[i, j] = 10.0 * i + j
    nd = tfnet.NDArray.From(matrix)
    np.testing.assert_array_equal(nd.ToPython(), [[0, 1, 2], [10, 11, 12]])


def test_attached_runtime_trains_like_the_engine(tfnet: Any, runtime: Any) -> None:
    assert runtime.IsAttached
    model = tfnet.Keras.Sequential(
        tfnet.Layers.Input(4), tfnet.Layers.Dense(5, activation="tanh"), tfnet.Layers.Dense(2)
    )
    model.Compile(tfnet.Optimizers.Adam(0.01), tfnet.Losses.MeanSquaredError(), None, "keras", False, False, 1)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 4)).astype(np.float32)
    y = rng.standard_normal((6, 2)).astype(np.float32)
    twin = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(5, activation="tanh"), keras.layers.Dense(2)])
    twin.set_weights([w.ToPython() for w in model.GetWeights()])
    twin.compile(optimizers.Adam(0.01), keras.losses.MeanSquaredError())
    for _ in range(2):
        logs = model.TrainOnBatch(tfnet.NDArray.FromPython(x), tfnet.NDArray.FromPython(y), None)
        expected = twin.train_on_batch(x, y, return_dict=True)
        assert np.float32(logs["loss"]) == np.float32(expected["loss"])
    for ours, theirs in zip([w.ToPython() for w in model.GetWeights()], twin.get_weights(), strict=True):
        assert ours.tobytes() == theirs.tobytes()
    assert model.TrainCounter == 2
    model.Dispose()


def test_attached_runtime_maps_python_errors(tfnet: Any, runtime: Any) -> None:
    with pytest.raises(Exception) as info:
        tfnet.Keras.Sequential(tfnet.Layers.Input(4), tfnet.Layers.Create("Dense2", None))
    assert "Dense2" in str(info.value)
    assert type(info.value).__name__ == "TfNetTrainArgumentException"
