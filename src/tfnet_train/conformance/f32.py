"""float32 arithmetic for the NumPy reference: every op runs in float64 and its result is rounded to float32.

Values are float32 arrays. A constant written in Python (a double) is rounded to float32 with ``c32`` at the
point where TensorFlow would convert it, so the reference rounds where TensorFlow rounds.
"""

from __future__ import annotations

import numpy as np

F32 = np.float32
F64 = np.float64


def f32(value: object) -> np.ndarray:
    """Round to float32 (as an array)."""
    return np.asarray(value, dtype=F64).astype(F32)


def c32(value: float) -> np.float32:
    """A Python constant as TensorFlow sees it once it meets a float32 tensor."""
    return F32(value)


def _w(a: object) -> np.ndarray:
    return np.asarray(a, dtype=F64)


def add(a: object, b: object) -> np.ndarray:
    return f32(_w(a) + _w(b))


def sub(a: object, b: object) -> np.ndarray:
    return f32(_w(a) - _w(b))


def mul(a: object, b: object) -> np.ndarray:
    return f32(_w(a) * _w(b))


def div(a: object, b: object) -> np.ndarray:
    return f32(_w(a) / _w(b))


def div_no_nan(a: object, b: object) -> np.ndarray:
    a64, b64 = np.broadcast_arrays(_w(a), _w(b))
    out = np.zeros(a64.shape, dtype=F64)
    np.divide(a64, b64, out=out, where=b64 != 0)
    return f32(out)


def neg(a: object) -> np.ndarray:
    return f32(-_w(a))


def square(a: object) -> np.ndarray:
    return mul(a, a)


def sqrt(a: object) -> np.ndarray:
    return f32(np.sqrt(_w(a)))


def exp(a: object) -> np.ndarray:
    return f32(np.exp(_w(a)))


def log(a: object) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return f32(np.log(_w(a)))


def log1p(a: object) -> np.ndarray:
    return f32(np.log1p(_w(a)))


def reciprocal(a: object) -> np.ndarray:
    return f32(1.0 / _w(a))


def tanh(a: object) -> np.ndarray:
    return f32(np.tanh(_w(a)))


def sigmoid(a: object) -> np.ndarray:
    return f32(1.0 / (1.0 + np.exp(-_w(a))))


def power(a: object, b: object) -> np.ndarray:
    return f32(np.power(_w(a), _w(b)))


def maximum(a: object, b: object) -> np.ndarray:
    return f32(np.maximum(_w(a), _w(b)))


def minimum(a: object, b: object) -> np.ndarray:
    return f32(np.minimum(_w(a), _w(b)))


def abs_(a: object) -> np.ndarray:
    return f32(np.abs(_w(a)))


def sign(a: object) -> np.ndarray:
    return f32(np.sign(_w(a)))


def clip(a: object, lo: object, hi: object) -> np.ndarray:
    return f32(np.clip(_w(a), _w(lo), _w(hi)))


def matmul(a: object, b: object) -> np.ndarray:
    return f32(_w(a) @ _w(b))


def sum_(a: object, axis: int | None = None, keepdims: bool = False) -> np.ndarray:
    return f32(np.sum(_w(a), axis=axis, keepdims=keepdims))


def mean(a: object, axis: int | None = None, keepdims: bool = False) -> np.ndarray:
    """Sum, then divide by the element count: one rounding for each, as a float32 reduction does."""
    arr = _w(a)
    count = arr.size if axis is None else arr.shape[axis]
    return div(sum_(arr, axis=axis, keepdims=keepdims), F64(count))


def amax(a: object, axis: int = -1, keepdims: bool = True) -> np.ndarray:
    return f32(np.max(_w(a), axis=axis, keepdims=keepdims))
