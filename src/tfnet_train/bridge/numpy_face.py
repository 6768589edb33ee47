"""NumPy for the C# `np` surface (TensorFlow.NET's `Tensorflow.NumPy`): the arrays live here, C# holds handles.

Every function returns a numpy array (or a Python scalar where NumPy does), so a chain of `np` calls from C# runs
in NumPy and the data crosses to C# only when C# reads it. Indexing keys come from C# as lists of ints, `None`
(new axis), `Ellipsis` and slice strings in NumPy's own notation (`"::100"`, `"1:"`, `":"`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfnet_train.archives import load_npy
from tfnet_train.bridge.specs import _unknown

#: The elementwise and reducing NumPy functions C# may call by name.
OPS: dict[str, Any] = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.true_divide,
    "floor_divide": np.floor_divide, "mod": np.mod, "power": np.power, "negative": np.negative,
    "less": np.less, "less_equal": np.less_equal, "greater": np.greater, "greater_equal": np.greater_equal,
    "equal": np.equal, "not_equal": np.not_equal, "logical_and": np.logical_and, "logical_or": np.logical_or,
    "logical_not": np.logical_not, "abs": np.abs, "exp": np.exp, "log": np.log, "sqrt": np.sqrt,
    "square": np.square, "sin": np.sin, "cos": np.cos, "tanh": np.tanh, "maximum": np.maximum,
    "minimum": np.minimum, "sum": np.sum, "mean": np.mean, "amax": np.amax, "amin": np.amin, "prod": np.prod,
    "std": np.std, "var": np.var, "argmax": np.argmax, "argmin": np.argmin, "dot": np.dot, "matmul": np.matmul,
    "transpose": np.transpose, "squeeze": np.squeeze, "expand_dims": np.expand_dims, "concatenate": np.concatenate,
    "stack": np.stack, "vstack": np.vstack, "hstack": np.hstack, "dstack": np.dstack, "where": np.where,
    "clip": np.clip, "round": np.round, "floor": np.floor, "ceil": np.ceil, "sign": np.sign, "allclose": np.allclose,
    "array_equal": np.array_equal, "unique": np.unique, "full": np.full, "eye": np.eye, "copy": np.copy,
    "zeros_like": np.zeros_like, "ones_like": np.ones_like,
}

#: `np.random` functions C# may call by name (NumPy's legacy global generator, seeded by `np.random.seed`).
RANDOM: dict[str, Any] = {
    "seed": np.random.seed, "rand": np.random.rand, "randn": np.random.randn, "randint": np.random.randint,
    "normal": np.random.normal, "uniform": np.random.uniform, "permutation": np.random.permutation,
    "shuffle": np.random.shuffle, "choice": np.random.choice, "random": np.random.random,
    "standard_normal": np.random.standard_normal, "binomial": np.random.binomial, "beta": np.random.beta,
    "poisson": np.random.poisson,
}


def _dtype(dtype: str | None) -> np.dtype | None:
    return None if dtype is None else np.dtype(dtype)


def array(value: Any, dtype: str | None = None, copy: bool = True) -> np.ndarray:
    """`np.array(value, dtype)` (value: nested lists, a number or another array)."""
    return np.array(value, dtype=_dtype(dtype), copy=copy)


def from_buffer(view: Any, shape: Sequence[int], dtype: str | None = None) -> np.ndarray:
    """A numpy array holding its own copy of a C# array exported through the buffer protocol (one memcpy)."""
    result = np.array(np.asarray(view).reshape(tuple(shape)), copy=True)
    return result if dtype is None else result.astype(dtype, copy=False)


def call(name: str, args: Sequence[Any], kwargs: dict[str, Any] | None = None) -> Any:
    """`np.<name>(*args, **kwargs)` for a name in `OPS`; array results come back as arrays, scalars as 0-d arrays."""
    if name not in OPS:
        raise _unknown("numpy function", name, sorted(OPS))
    return _result(OPS[name](*args, **(kwargs or {})))


def call_float32(name: str, args: Sequence[Any], kwargs: dict[str, Any] | None = None) -> Any:
    """`call` with Python floats as float32 scalars (C# `float` operands: uint8 / 255f is float32, as in TF.NET)."""
    return call(name, [np.float32(a) if isinstance(a, float) else a for a in args], kwargs)


def random(name: str, args: Sequence[Any], kwargs: dict[str, Any] | None = None) -> Any:
    """`np.random.<name>(*args, **kwargs)` for a name in `RANDOM`; in-place `shuffle` returns its argument."""
    if name not in RANDOM:
        raise _unknown("np.random function", name, sorted(RANDOM))
    kwargs = dict(kwargs or {})
    if "dtype" in kwargs:
        kwargs["dtype"] = np.dtype(kwargs["dtype"])
    result = RANDOM[name](*args, **kwargs)
    if name == "shuffle":
        return args[0]
    return None if result is None else _result(result)


def create(name: str, shape: Sequence[int], dtype: str | None = None, fill: Any = None) -> np.ndarray:
    """`np.zeros`, `np.ones`, `np.empty` or `np.full` of `shape` (float32 when no dtype is given, as TF.NET)."""
    dt = _dtype(dtype) or np.dtype("float32")
    shape = tuple(int(d) for d in shape)
    if name == "zeros":
        return np.zeros(shape, dt)
    if name == "ones":
        return np.ones(shape, dt)
    if name == "empty":
        return np.empty(shape, dt)
    if name == "full":
        return np.full(shape, fill, dtype=_dtype(dtype))
    raise _unknown("array constructor", name, ["empty", "full", "ones", "zeros"])


def arange(start: float, stop: float | None = None, step: float = 1, dtype: str | None = None) -> np.ndarray:
    """`np.arange` (int32 for int arguments, as TF.NET's `np.arange(int)`)."""
    result = np.arange(start, stop, step) if stop is not None else np.arange(start)
    if dtype is not None:
        return result.astype(dtype)
    if all(isinstance(v, int) for v in (start, stop if stop is not None else 0, step)):
        return result.astype(np.int32)
    return result.astype(np.float32) if isinstance(start, float) else result


def linspace(start: float, stop: float, num: int = 50, endpoint: bool = True, dtype: str | None = None) -> np.ndarray:
    """`np.linspace` (float32 unless `dtype` says otherwise, as TF.NET)."""
    return np.linspace(start, stop, int(num), endpoint=bool(endpoint), dtype=_dtype(dtype) or np.float32)


def reshape(value: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    """`value.reshape(shape)`."""
    return np.reshape(value, tuple(int(d) for d in shape))


def astype(value: np.ndarray, dtype: str) -> np.ndarray:
    """`value.astype(dtype)`."""
    return np.asarray(value).astype(dtype)


OPS.update(array=lambda value, dtype=None: array(value, dtype), reshape=lambda value, shape: reshape(value, shape),
           astype=lambda value, dtype: astype(value, dtype))


def _slice(text: str) -> slice | int:
    parts = text.split(":")
    if len(parts) == 1:
        return int(parts[0])
    if len(parts) > 3:
        raise ValueError(f"slice must be start:stop:step; got {text!r}")
    values = [int(p) if p.strip() else None for p in parts] + [None] * (3 - len(parts))
    return slice(*values)


def _key(key: Sequence[Any]) -> tuple[Any, ...]:
    items: list[Any] = []
    for item in key:
        if isinstance(item, str):
            items.extend(Ellipsis if p.strip() == "..." else None if p.strip() == "np.newaxis" else _slice(p.strip())
                         for p in item.split(","))
        elif isinstance(item, np.ndarray):
            items.append(item)
        else:
            items.append(item)
    return tuple(items)


def getitem(value: np.ndarray, key: Sequence[Any]) -> Any:
    """`value[key]`: ints, slice strings (`"::100"`, `"1:3, :"`), boolean or integer arrays."""
    try:
        return _result(value[_key(key)])
    except IndexError as error:
        raise ValueError(f"index {list(key)!r} does not fit shape {value.shape}: {error}") from None


def setitem(value: np.ndarray, key: Sequence[Any], item: Any) -> np.ndarray:
    """`value[key] = item` (value may be a view of C# storage, which then changes); returns `value`."""
    try:
        value[_key(key)] = item
        return value
    except IndexError as error:
        raise ValueError(f"index {list(key)!r} does not fit shape {value.shape}: {error}") from None


def info(value: Any) -> tuple[Any, list[int], str]:
    """`value` as an ndarray with its shape and dtype name (what C# reads once per array it is handed)."""
    value = np.asarray(value)
    return value, list(value.shape), value.dtype.name


def contiguous(value: np.ndarray) -> np.ndarray:
    """`value` C-contiguous (a copy only when it is not)."""
    return np.ascontiguousarray(value)


def load(path: str) -> np.ndarray:
    """`np.load(path)` for a .npy file, read by the hardened reader (no pickles, size capped)."""
    return load_npy(path)


def to_categorical(y: Any, num_classes: int | None = None, dtype: str = "float32") -> np.ndarray:
    """One-hot rows of the class ids `y` (`keras.utils.to_categorical`)."""
    import keras

    return np.asarray(keras.utils.to_categorical(np.asarray(y), num_classes), dtype=dtype)


def scalar_value(value: np.ndarray) -> float:
    """The one element of `value` as a Python float (bools as 0.0/1.0)."""
    return float(np.asarray(value).reshape(-1)[0])


def to_string(value: np.ndarray) -> str:
    """`str(value)` as NumPy prints it."""
    return str(value)


def _result(value: Any) -> Any:
    return value if isinstance(value, np.ndarray) else np.asarray(value)
