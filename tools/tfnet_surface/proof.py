"""The proof: generate the areas, compile them with mcs over the current face, call them from C# and compare with the
same calls in Python (dtype, shape, values; the error's Python type for a bad input).

    python -m tools.tfnet_surface.proof [--part api|types|both] [--bin dotnet/bin] [--work DIR]

`--bin` holds TfNetTrain.dll and Python.Runtime.dll (`make build`). The API classes get `using TfNetTrain;` and
`using TfNetTrain.TensorFlowNet;` (where the current face keeps Tensor, Shape, NDArray) and compile with proof/'s
FaceBridge.cs (the bridge entry point over the current face), Axis.cs and Standins.cs (TF.NET types the face lacks);
Proof.cs calls them. TF.NET's types compile apart (their Tensor is TF.NET's, not the current face's) with the bridge,
TypeStandins.cs and the halves `type_halves` writes (a Python object and a constructor per class, stubs for what the
face writes by hand, empty declarations of the other TF.NET types the signatures name); TypesProof.cs calls them on
objects OBJECTS builds in Python alike.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tools.tfnet_surface import declarations as decl_module
from tools.tfnet_surface import rules as rules_module
from tools.tfnet_surface.generate import generate

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PROOF = HERE / "proof"
FACE_USINGS = ["TfNetTrain", "TfNetTrain.TensorFlowNet"]

DESCRIBE = '''
def describe(value):
    """A result as JSON: tensors and arrays as dtype, shape and values; ragged tensors as lists; Keras objects as
    class and config; sequences item by item; bytes as text."""
    import json

    import numpy as np
    import tensorflow as tf

    def plain(v):
        if isinstance(v, bytes):
            return v.decode("utf-8", "replace")
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, complex):
            return [v.real, v.imag]
        return v

    def conv(v):
        if isinstance(v, tf.TensorShape):
            return {"shape": v.as_list() if v.rank is not None else None}
        if isinstance(v, tf.dtypes.DType):
            return v.name
        if isinstance(v, tf.Variable):
            return {"variable": v.name, "value": conv(v.read_value())}
        if isinstance(v, tf.RaggedTensor):
            return {"ragged": plain(v.to_list()), "dtype": v.dtype.name}
        if tf.is_tensor(v):
            return {"dtype": v.dtype.name, "shape": list(v.shape), "value": plain(np.asarray(v.numpy()).tolist())}
        if isinstance(v, np.ndarray):
            return {"dtype": str(v.dtype), "shape": list(v.shape), "value": plain(v.tolist())}
        if hasattr(v, "get_config"):
            return {"class": type(v).__name__, "config": plain(v.get_config())}
        if isinstance(v, (list, tuple)):
            return [conv(x) for x in v]
        return plain(v)

    return json.dumps(conv(value), sort_keys=True)
'''


def expected(folder: Path) -> dict[str, Callable[[], Any]]:
    """The Python call for each case of proof/Proof.cs (TF.NET's defaults written out where Python's differ).
    Cases named `random:...` are compared by dtype and shape only."""
    import keras
    import numpy as np
    import tensorflow as tf

    a = tf.constant([[4.0, 1.0], [2.0, 3.0]])
    image = tf.constant(np.arange(18, dtype=np.float32).reshape(2, 3, 3) / np.float32(17))
    images = image[tf.newaxis]
    y, x, c = np.meshgrid(np.arange(16), np.arange(16), np.arange(3), indexing="ij")
    big = tf.constant(((y * 7 + x * 3 + c * 5) % 17).astype(np.float32) / np.float32(17))
    bigs = big[tf.newaxis]
    other = image * 0.5
    text = tf.constant("HeLLo wOrld")
    ints, shifts = tf.constant([12, 10, 7]), tf.constant([1, 2, 3])
    boxes = tf.constant([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11]], tf.float32)
    scores = tf.constant([0.9, 0.75, 0.6, 0.95])
    overlaps = tf.constant([[1, 0.7, 0.2], [0.7, 1, 0], [0.2, 0, 1]], tf.float32)
    three = tf.constant([0.9, 0.6, 0.8])
    signal = tf.complex([1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 0.0, -1.0])
    signal2d = tf.reshape(signal, [2, 2])
    signal3d = tf.reshape(tf.complex(tf.range(1.0, 9.0), tf.zeros(8)), [2, 2, 2])
    u8 = tf.image.convert_image_dtype(big, tf.uint8)
    sequences = [[1, 2, 3], [4, 5], [6, 7, 8, 9, 10]]
    pad = keras.preprocessing.sequence.pad_sequences
    im = tf.image
    return {
        "linalg.eye": lambda: tf.linalg.eye(3, dtype=tf.float64),  # TF.NET's default dtype: float64
        "linalg.eye.columns": lambda: tf.linalg.eye(2, num_columns=3, dtype=tf.float32),
        "linalg.batch_matmul": lambda: tf.linalg.matmul(a, a, adjoint_b=True),
        "linalg.einsum": lambda: tf.linalg.einsum("ij,jk->ik", a, a),
        "linalg.qr": lambda: list(tf.linalg.qr(a)),
        "linalg.norm.axis": lambda: tf.linalg.norm(a, axis=1),
        "linalg.inv": lambda: tf.linalg.inv(a),
        "linalg.l2_normalize": lambda: tf.linalg.l2_normalize(a, axis=0),  # TF.NET's default axis: 0
        "linalg.inv.not_square": lambda: tf.linalg.inv(tf.constant([[1.0, 2.0, 3.0]])),
        "linalg.diag": lambda: tf.linalg.diag(tf.constant([1.0, 2.0])),
        "linalg.matmul": lambda: tf.linalg.matmul(a, a),
        "linalg.global_norm": lambda: tf.linalg.global_norm([a, a]),
        "linalg.lstsq": lambda: tf.linalg.lstsq(a, tf.constant([[1.0], [2.0]])),
        "linalg.tensor_diag_part": lambda: tf.linalg.tensor_diag_part(a),
        "linalg.tensordot": lambda: tf.linalg.tensordot(a, a, np.array([[1], [0]])),
        "image.flip_left_right": lambda: im.flip_left_right(image),
        "image.flip_up_down": lambda: im.flip_up_down(image),
        "image.rot90": lambda: im.rot90(image, k=2),
        "image.transpose": lambda: im.transpose(image),
        "image.central_crop": lambda: im.central_crop(image, 0.5),
        "image.pad_to_bounding_box": lambda: im.pad_to_bounding_box(image, 1, 2, 4, 6),
        "image.crop_to_bounding_box": lambda: im.crop_to_bounding_box(big, 2, 3, 5, 4),
        "image.resize_image_with_crop_or_pad": lambda: im.resize_with_crop_or_pad(image, 4, 2),
        "image.resize_images": lambda: im.resize(image, [4, 6]),
        "image.resize_images.5": lambda: im.resize(image, [4, 6], "nearest", False),
        "image.resize_images_v2": lambda: im.resize(image, [4, 6]),
        "image.resize_images_v2.tensor": lambda: im.resize(image, [3, 5], method="bicubic"),
        "image.resize_images_with_pad": lambda: im.resize_with_pad(image, 4, 4, "bilinear", False),
        "image.resize": lambda: im.resize(image, [5, 5]),
        "image.resize.tensor": lambda: im.resize(image, [2, 2], "area"),
        "image.resize_bilinear": lambda: tf.compat.v1.image.resize_bilinear(images, [4, 6]),
        "image.resize_nearest_neighbor": lambda: tf.compat.v1.image.resize_nearest_neighbor(images, [4, 6]),
        "image.per_image_standardization": lambda: im.per_image_standardization(image),
        "image.adjust_brightness": lambda: im.adjust_brightness(image, 0.25),
        "image.adjust_contrast": lambda: im.adjust_contrast(image, 2.0),
        "image.adjust_contrast.tensor": lambda: im.adjust_contrast(image, tf.constant(0.5)),
        "image.adjust_gamma": lambda: im.adjust_gamma(image, 2, 3),
        "image.adjust_hue": lambda: im.adjust_hue(image, 0.2),
        "image.adjust_hue.tensor": lambda: im.adjust_hue(image, tf.constant(-0.1)),
        "image.adjust_saturation": lambda: im.adjust_saturation(image, 1.5),
        "image.adjust_saturation.tensor": lambda: im.adjust_saturation(image, tf.constant(0.5)),
        "image.adjust_jpeg_quality": lambda: im.adjust_jpeg_quality(big, tf.constant(60)),
        "image.rgb_to_grayscale": lambda: im.rgb_to_grayscale(image),
        "image.grayscale_to_rgb": lambda: im.grayscale_to_rgb(im.rgb_to_grayscale(image)),
        "image.rgb_to_yiq": lambda: im.rgb_to_yiq(image),
        "image.yiq_to_rgb": lambda: im.yiq_to_rgb(image),
        "image.rgb_to_yuv": lambda: im.rgb_to_yuv(image),
        "image.yuv_to_rgb": lambda: im.yuv_to_rgb(image),
        "image.total_variation": lambda: im.total_variation(image),
        "image.psnr": lambda: im.psnr(image, other, 1.0),
        "image.ssim": lambda: im.ssim(big, big * 0.9, max_val=1.0, filter_size=11),  # TF.NET's max_val default: 1
        "image.ssim_multiscale": lambda: im.ssim_multiscale(big, big * 0.9, 1.0, power_factors=(0.5, 0.5),
                                                            filter_size=3),
        "image.image_gradients": lambda: im.image_gradients(images),
        "image.sobel_edges": lambda: im.sobel_edges(images),
        "image.convert_image_dtype": lambda: im.convert_image_dtype(image, tf.uint8),
        "image.encode_png.decode_image": lambda: im.decode_image(im.encode_png(u8)),
        "image.encode_jpeg.decode_jpeg": lambda: im.decode_jpeg(im.encode_jpeg(u8)),
        "image.is_jpeg": lambda: im.is_jpeg(im.encode_png(u8)),
        "image.non_max_suppression": lambda: im.non_max_suppression(boxes, scores, 3),
        "image.non_max_suppression_with_overlaps": lambda: im.non_max_suppression_overlaps(overlaps, three, 2),
        "image.non_max_suppression_padded": lambda: list(im.non_max_suppression_padded(
            boxes, scores, 3, pad_to_max_output_size=True)),
        "image.combined_non_max_suppression": lambda: list(im.combined_non_max_suppression(
            tf.constant([[[[0, 0, 1, 1]], [[0, 0.1, 1, 1.1]]]], tf.float32), tf.constant([[[0.9], [0.8]]]), 2, 2, 0.5,
            0.0)),
        "image.crop_and_resize": lambda: im.crop_and_resize(bigs, [[0.0, 0.0, 0.5, 0.5]], [0], [3, 3]),
        "image.extract_glimpse": lambda: tf.compat.v1.image.extract_glimpse(bigs, [4, 4], [[0.0, 0.0]]),
        "image.draw_bounding_boxes": lambda: tf.compat.v1.image.draw_bounding_boxes(bigs, [[[0.1, 0.1, 0.6, 0.6]]]),
        "random:image.random_flip_up_down": lambda: im.random_flip_up_down(image, 3),
        "random:image.random_flip_left_right": lambda: im.random_flip_left_right(image),
        "random:image.random_brightness": lambda: im.random_brightness(image, 0.2),
        "random:image.random_contrast": lambda: im.random_contrast(image, 0.5, 1.5),
        "random:image.random_hue": lambda: im.random_hue(image, 0.1),
        "random:image.random_saturation": lambda: im.random_saturation(image, 0.5, 1.5),
        "random:image.random_jpeg_quality": lambda: im.random_jpeg_quality(big, 50, 90),
        "random:image.sample_distorted_bounding_box": lambda: list(im.sample_distorted_bounding_box(
            [16, 16, 3], [[[0.1, 0.1, 0.9, 0.9]]], seed=1, max_attempts=100)),
        "strings.lower": lambda: tf.strings.lower(text),
        "strings.regex_replace": lambda: tf.strings.regex_replace(text, "[lL]+", "_"),
        "strings.substr": lambda: tf.strings.substr(text, 1, 3),
        "strings.substr.string": lambda: tf.strings.substr("abcdef", 2, 2),
        "strings.string_length": lambda: tf.strings.length(text),
        "strings.format": lambda: tf.strings.format("{} and {}", [ints, shifts]),
        "strings.split": lambda: tf.strings.split(tf.constant("a b  c"), sep=" "),  # TF.NET's default sep: ' '
        "strings.unicode_decode_with_offsets": lambda: list(tf.strings.unicode_decode_with_offsets(
            tf.constant("h\u00e9!"), "UTF-8")),
        "signal.fft": lambda: tf.signal.fft(signal),
        "signal.ifft": lambda: tf.signal.ifft(signal),
        "signal.fft2d": lambda: tf.signal.fft2d(signal2d),
        "signal.ifft2d": lambda: tf.signal.ifft2d(signal2d),
        "signal.fft3d": lambda: tf.signal.fft3d(signal3d),
        "signal.ifft3d": lambda: tf.signal.ifft3d(signal3d),
        "bitwise.bitwise_and": lambda: tf.bitwise.bitwise_and(ints, shifts),
        "bitwise.bitwise_or": lambda: tf.bitwise.bitwise_or(ints, shifts),
        "bitwise.bitwise_xor": lambda: tf.bitwise.bitwise_xor(ints, shifts),
        "bitwise.left_shift": lambda: tf.bitwise.left_shift(ints, shifts),
        "bitwise.right_shift": lambda: tf.bitwise.right_shift(ints, shifts),
        "bitwise.invert": lambda: tf.bitwise.invert(ints),
        "initializers.Orthogonal": lambda: keras.initializers.Orthogonal(gain=2.0, seed=3),
        "initializers.HeNormal": lambda: keras.initializers.HeNormal(seed=5),
        "sequence.pad_sequences": lambda: pad(sequences, maxlen=4),
        "sequence.pad_sequences.post": lambda: pad(sequences, padding="post", value=9),
        "io.read_file": lambda: tf.io.read_file(str(folder / "a.txt")),
        "io.read_file.tensor": lambda: tf.io.read_file(tf.constant(str(folder / "sub" / "b.txt"))),
        "io.restore_v2": lambda: tf.raw_ops.RestoreV2(prefix=str(folder / "ckpt" / "c-1"),
                                                      tensor_names=["v/.ATTRIBUTES/VARIABLE_VALUE"],
                                                      shape_and_slices=[""], dtypes=[tf.float32]),
        "io.gfile.listdir": lambda: tf.io.gfile.listdir(str(folder / "sub")),
        "gfile.join": lambda: tf.io.gfile.join(str(folder), "sub", "b.txt"),
        "gfile.listdir": lambda: tf.io.gfile.listdir(str(folder)),
        "gfile.glob": lambda: tf.io.gfile.glob(str(folder / "*.txt")),
        "gfile.Walk": lambda: list(tf.io.gfile.walk(str(folder / "sub"))),
    }


def data_folder(folder: Path) -> None:
    """The files the io and gfile cases read: two text files and a checkpoint of one variable."""
    import tensorflow as tf

    (folder / "sub").mkdir(parents=True, exist_ok=True)
    (folder / "a.txt").write_text("first file\n")
    (folder / "sub" / "b.txt").write_text("second\n")
    tf.train.Checkpoint(v=tf.Variable([1.5, -2.0])).write(str(folder / "ckpt" / "c-1"))


OBJECTS = '''
"""The Python objects the types proof wraps in C# (TypesProof.cs) and calls in Python: built alike in both."""
import keras
import numpy as np
import tensorflow as tf


def dense(value=0.5):
    layer = keras.layers.Dense(3, kernel_initializer=keras.initializers.Constant(value), bias_initializer="ones",
                               name="dense_a")
    layer(keras.Input((2,)))
    return layer


def other():
    return dense(-1.0)


def model():
    m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(4, kernel_initializer="ones", name="first"),
                          keras.layers.Dense(1, kernel_initializer="ones", name="second")], name="seq")
    m.compile(optimizer=keras.optimizers.Adam(learning_rate=0.01, name="adam_a"), loss="mse")
    return m


def tensor():
    return tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])


def ints():
    return tf.constant([7, 8, 9], tf.int64)


def dataset():
    return tf.data.Dataset.range(10)


def variable():
    return tf.Variable([1.0, 2.0], name="v")


def array():
    return np.arange(6, dtype=np.float32).reshape(2, 3)


def three_by_two():
    return tf.TensorShape([3, 2])


def open_shape():
    return tf.TensorShape([None, 3])


def delta():
    return tf.constant([0.5, 0.25])
'''


def types_expected() -> dict[str, Callable[[], Any]]:
    """The Python call for each case of proof/TypesProof.cs, on the objects OBJECTS builds."""
    import tensorflow as tf

    namespace: dict[str, Any] = {}
    exec(OBJECTS, namespace)  # noqa: S102 - the objects module defined above, shared with the C# side
    o = type("Objects", (), {k: staticmethod(v) for k, v in namespace.items() if callable(v)})

    def set_weights() -> Any:
        layer = o.dense()
        layer.set_weights(o.other().get_weights())
        return layer.get_weights()

    def assign_add() -> Any:
        v = o.variable()
        v.assign_add(o.delta())
        return v.numpy()

    shape = o.tensor().shape
    ds = o.dataset()
    return {
        "Layer.get_weights": lambda: o.dense().get_weights(),
        "Layer.count_params": lambda: o.dense().count_params(),
        "Layer.TrainableVariables.Count": lambda: len(o.dense().trainable_variables),
        "Layer.TrainableVariables[0].numpy": lambda: o.dense().trainable_variables[0].numpy(),
        "Layer.Weights[1].shape": lambda: tf.TensorShape(o.dense().weights[1].shape),
        "Layer.OutputShape": lambda: tf.TensorShape(o.dense().output.shape),
        "Layer.Name": lambda: o.dense().name,
        "Layer.Trainable": lambda: o.dense().trainable,
        "Layer.Built": lambda: o.dense().built,
        "Layer.DType": lambda: tf.as_dtype(o.dense().dtype),
        "Layer.set_weights": set_weights,
        "Model.Layers.Count": lambda: len(o.model().layers),
        "Model.Layers[0].count_params": lambda: o.model().layers[0].count_params(),
        "Model.Layers[1].OutputShape": lambda: tf.TensorShape(o.model().layers[1].output.shape),
        "Model.Layers[0].get_weights": lambda: o.model().layers[0].get_weights(),
        "Model.count_params": lambda: o.model().count_params(),
        "Model.TrainableVariables.Count": lambda: len(o.model().trainable_variables),
        "Model.Optimizer": lambda: o.model().optimizer,
        "Model.Stop_training": lambda: o.model().stop_training,
        "Model.metrics.Count": lambda: len(o.model().metrics),
        "Tensor.shape": lambda: o.tensor().shape,
        "Tensor.dtype": lambda: o.tensor().dtype,
        "Tensor.numpy": lambda: o.tensor().numpy(),
        "Tensor.ndim": lambda: o.tensor().ndim,
        "Tensor.rank": lambda: o.tensor().ndim,
        "Tensor.size": lambda: o.tensor().shape.num_elements(),
        "Tensor.dims": lambda: list(o.tensor().shape),
        "Tensor.dtypesize": lambda: o.ints().dtype.size,
        "Tensor.Device": lambda: o.tensor().device,
        "Tensor.ToString": lambda: str(o.tensor()),
        "NDArray.shape": lambda: tf.TensorShape(o.array().shape),
        "NDArray.reshape": lambda: o.array().reshape(o.three_by_two()),
        "NDArray.astype": lambda: o.array().astype("int32"),
        "NDArray.ravel": lambda: o.array().ravel(),
        "Shape.ndim": lambda: shape.rank,
        "Shape.IsFullyDefined": lambda: shape.is_fully_defined(),
        "Shape.size": lambda: shape.num_elements(),
        "Shape.is_compatible_with": lambda: shape.is_compatible_with(o.open_shape()),
        "Shape.merge_with": lambda: shape.merge_with(o.open_shape()),
        "Shape.concatenate": lambda: shape.concatenate((5,)),
        "Shape.with_rank_at_least": lambda: shape.with_rank_at_least(1),
        "Shape.with_rank.wrong": lambda: shape.with_rank(3),
        "Shape.ToString": lambda: str(shape),
        "Dataset.cardinality": lambda: ds.cardinality(),
        "Dataset.batch.cardinality": lambda: ds.batch(3).cardinality(),
        "Dataset.batch.drop_remainder.cardinality": lambda: ds.batch(3, drop_remainder=True).cardinality(),
        "Dataset.take.cardinality": lambda: ds.take(4).cardinality(),
        "Dataset.skip.cardinality": lambda: ds.skip(2).cardinality(),
        "Dataset.repeat.cardinality": lambda: ds.repeat(2).cardinality(),
        "Dataset.repeat.forever.cardinality": lambda: ds.repeat().cardinality(),
        "Dataset.shuffle.take.cardinality": lambda: ds.shuffle(4, seed=1).take(3).cardinality(),
        "Dataset.concatenate.cardinality": lambda: ds.concatenate(ds.take(2)).cardinality(),
        "Dataset.prefetch.cardinality": lambda: ds.prefetch(tf.data.AUTOTUNE).cardinality(),
        "Variable.numpy": lambda: o.variable().numpy(),
        "Variable.assign_add": assign_add,
        "Variable.shape": lambda: o.variable().shape,
        "Variable.dtype": lambda: o.variable().dtype,
        "Variable.Trainable": lambda: o.variable().trainable,
        "Variable.Name": lambda: o.variable().name,
        "Tensor.op_Addition": lambda: o.tensor() + o.tensor(),
        "Tensor.op_Multiply.float": lambda: o.tensor() * 2.0,
        "Tensor.op_Subtraction.int.left": lambda: 3 - o.tensor(),
        "Tensor.op_Division.int": lambda: o.ints() / 2,
        "Tensor.op_Modulus.long": lambda: o.ints() % 4,
        "Tensor.op_GreaterThan.float": lambda: o.tensor() > 2.5,
        "Tensor.op_LessThanOrEqual.double": lambda: o.tensor() <= 2.0,
        "Tensor.op_UnaryNegation": lambda: -o.tensor(),
        "ResourceVariable.op_Addition.float": lambda: o.variable() + 1.0,
        "NDArray.op_Addition": lambda: o.array() + o.array(),
        "TF_DataType.is_floating": lambda: tf.float32.is_floating,
        "TF_DataType.is_integer": lambda: tf.int32.is_integer,
        "TF_DataType.is_complex": lambda: tf.complex64.is_complex,
        "TF_DataType.is_unsigned": lambda: tf.uint8.is_unsigned,
        "TF_DataType.is_bool": lambda: tf.bool.is_bool,
        "TF_DataType.min": lambda: tf.int8.min,
        "TF_DataType.max": lambda: tf.int16.max,
        "TF_DataType.get_datatype_size": lambda: tf.float64.size,
        "TF_DataType.as_numpy_name": lambda: tf.float32.as_numpy_dtype.__name__,
        "TF_DataType.name": lambda: tf.int64.as_datatype_enum,
        "TF_DataType.as_base_dtype": lambda: tf.int32.base_dtype,
        "TF_DataType.real_dtype": lambda: tf.complex64.real_dtype,
        "TF_DataType.is_compatible_with": lambda: tf.float32.is_compatible_with(tf.float64),
    }


def exercised() -> tuple[set[str], set[str]]:
    """(members of the generated owners, those that proof/Proof.cs calls) as `owner.name` (tf.io.gfile is tf.gfile)."""
    import re

    decls, rules = decl_module.load(), rules_module.load()
    members = {m.key for m in decls.members if m.owner in rules.owners_generated}
    source = (PROOF / "Proof.cs").read_text()
    called = {re.sub(r"^tf\.io\.gfile\.", "tf.gfile.", c[:-1])
              for c in re.findall(r"\b(?:tf|keras)\.[a-z_.]+\.[A-Za-z_0-9]+\(", source)}
    called |= {f"{o}.{n}" for o, n in re.findall(r"\b(tf\.\w+)\.(\w+)\b(?!\()", source)}
    return members, called & members


def python_side(folder: Path | None, cases: dict[str, Callable[[], Any]] | None = None) -> dict[str, Any]:
    """Each case's JSON as Python gives it (an error as its class name)."""
    namespace: dict[str, Any] = {}
    exec(DESCRIBE, namespace)  # noqa: S102 - the describe function defined above, shared with the C# side
    results = {}
    for name, call in (cases if cases is not None else expected(folder)).items():
        try:
            results[name] = json.loads(namespace["describe"](call()))
        except Exception as error:  # the case expects Python's error
            results[name] = {"error": "TfNetTrainArgumentException", "python": type(error).__name__}
    return results


def shapes(a: Any) -> Any:
    """dtype and shape only (the values of random ops differ between processes)."""
    if isinstance(a, dict):
        return {k: shapes(v) for k, v in a.items() if k != "value"}
    if isinstance(a, list):
        return [shapes(x) for x in a]
    return a


def same(a: Any, b: Any, rtol: float = 1e-6) -> bool:
    """Equal structures; floats equal to `rtol`."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], rtol) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y, rtol) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, int | float) and isinstance(b, int | float) and abs(a - b) <= rtol * max(1.0, abs(b))
    return a == b and type(a) is type(b)


def agree(name: str, csharp: Any, python: Any) -> bool:
    """A case's C# and Python results agree (random cases by dtype and shape)."""
    if name.startswith("random:"):
        return same(shapes(csharp), shapes(python))
    return same(csharp, python)


def _mcs(*args: str) -> None:
    proc = subprocess.run(["mcs", "-nologo", "-langversion:7.2", "-warnaserror+", *args], capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"mcs failed:\n{proc.stdout}{proc.stderr}")


def build(work: Path, bin_dir: Path) -> Path:
    """Generates the areas into work/generated and compiles Proof.Generated.dll and Proof.exe; returns the exe."""
    decls, rules = decl_module.load(), rules_module.load()
    generated = work / "generated"
    generated.mkdir(parents=True, exist_ok=True)
    for name, text in generate(decls, rules, rules.owners_generated, FACE_USINGS).items():
        (generated / name).write_text(text, encoding="utf-8")
    refs = _refs(work, bin_dir)
    _mcs("-target:library", f"-out:{work / 'Proof.Generated.dll'}", *refs, str(PROOF / "FaceBridge.cs"),
         str(PROOF / "Axis.cs"), str(PROOF / "Standins.cs"), *sorted(str(p) for p in generated.glob("*.g.cs")))
    exe = work / "Proof.exe"
    _mcs("-target:exe", f"-out:{exe}", *refs, f"-r:{work / 'Proof.Generated.dll'}", str(PROOF / "Proof.cs"))
    return exe


def _refs(work: Path, bin_dir: Path) -> list[str]:
    for dll in ("TfNetTrain.dll", "Python.Runtime.dll"):
        if not (bin_dir / dll).is_file():
            raise FileNotFoundError(f"{bin_dir / dll} missing: run `make build` (dotnet/build.sh)")
        shutil.copy2(bin_dir / dll, work / dll)
    mono = shutil.which("mono")
    if mono is None:
        raise FileNotFoundError("mono not found: `make mono` installs it")
    facades = Path(mono).resolve().parent.parent / "lib" / "mono" / "4.5" / "Facades" / "netstandard.dll"
    return ["-r:System.dll", "-r:System.Core.dll", "-r:System.Numerics.dll", "-r:Microsoft.CSharp.dll",
            f"-r:{facades}", f"-r:{work / 'TfNetTrain.dll'}", f"-r:{work / 'Python.Runtime.dll'}"]


def type_halves(decls: decl_module.Declarations, rules: rules_module.Rules, files: dict[str, str]) -> str:
    """The proof's halves of the generated types (TypeHalves.g.cs): for each generated class its Python object and
    a constructor, a stub for each interface member the face writes by hand, a codec wrapper; and an empty
    declaration of every other TF.NET type the generated signatures name."""
    import re

    from tools.tfnet_surface import typegen

    units = typegen.build_type_units(decls, rules)
    writer = typegen.Writer(decls, rules, units)
    generated = {u.simple for u in units} | {"Tensors", "Axis"}
    out: list[str] = []
    usings = {"using System;", "using System.Collections.Generic;", "using Python.Runtime;", "using Tensorflow;"}
    classes = [u for u in units if u.kind == "class"]
    simple = {u.simple for u in classes}
    register = []
    for u in classes:
        ns, chain = writer.split(u.type_full)
        derived = any(typegen._simple(b) in simple for b in u.bases)
        body = []
        name = chain[-1]
        if derived:
            body.append(f"internal {name}(PyObject value) : base(value) {{ }}")
        else:
            body += [f"internal {name}(PyObject value) {{ PythonObject = value; }}",
                     "public PyObject PythonObject { get; }"]
        for slot in u.hand_required:
            head = writer.head(slot, u, interface=False)
            throw = "throw new NotImplementedException(\"hand-written in the face\")"
            m = slot.written
            if m.kind in ("property", "field"):
                setter = f" set => {throw};" if "set" in slot.accessors else ""
                body.append(f"{head} {{ get => {throw};{setter} }}")
            else:
                body.append(f"{head} => {throw};")
        bases = "" if derived else " : IPythonObject"
        usings |= set(writer.usings(u, [], u.slots + u.hand_required))
        out += typegen._wrap(ns, chain, writer.kinds(ns, chain, "sealed class" if u.internal else "class"), bases,
                             body, u.internal)
        out.append("")
        register.append(f"Register<global::{u.type_full}>(py => new global::{u.type_full}("
                        f"TypeStandins.Prepare({typegen._quote(u.python)}, py)));")
    arities: dict[str, set[int]] = {}  # simple name -> numbers of type arguments it is used with
    code = "\n".join(line for name, text in files.items() if name != "FaceTypes.g.cs" for line in text.splitlines()
                     if not line.lstrip().startswith(("//", "using", "namespace", "#")))
    for match in re.finditer(r"\b([A-Za-z_]\w*)\b(\s*<)?", code):
        count = 0
        if match.group(2):
            depth, i, count = 1, match.end(), 1
            while depth and i < len(code):
                depth += {"<": 1, ">": -1}.get(code[i], 0)
                count += code[i] == "," and depth == 1
                i += 1
        arities.setdefault(match.group(1), set()).add(count)
    entries = {**{k: v for k, v in decls.referenced.items() if k.startswith("Tensorflow")}, **decls.types}
    for full, t in sorted(entries.items()):
        name = full.rsplit(".", 1)[-1]
        if name not in arities or name in generated:
            continue
        ns, chain = writer.split(full)
        kind = {"interface": "interface", "enum": "enum", "struct": "struct", "delegate": "delegate"}.get(
            t.get("kind"), "class")
        for arity in sorted(arities[name]):
            generics = f"<{', '.join(f'T{i}' for i in range(arity))}>" if arity else ""
            if kind == "delegate":
                decl = f"public delegate void {chain[-1]}{generics}();"
            else:
                partial = "partial " if kind in ("class", "interface") else ""
                decl = f"public {partial}{kind} {chain[-1]}{generics} {{ }}"
            lines = [f"namespace {ns}", "{"]
            depth = 1
            for outer in chain[:-1]:
                lines += [typegen.INDENT * depth + f"public partial class {outer}", typegen.INDENT * depth + "{"]
                depth += 1
            lines.append(typegen.INDENT * depth + decl)
            for _ in chain[:-1]:
                depth -= 1
                lines.append(typegen.INDENT * depth + "}")
            out += lines + ["}", ""]
    out += ["namespace Tensorflow", "{", "    public static partial class FaceCodec", "    {",
            "        static partial void Standins()", "        {", "            TypeStandins.Register();"]
    out += ["            " + r for r in register]
    out += ["        }", "    }", "}", ""]
    head = ["// The proof's halves of the generated TF.NET types (written by proof.py; the face writes its own).",
            "#pragma warning disable 1591"] + sorted(usings) + [""]
    return "\n".join(head + out)


def build_types(work: Path, bin_dir: Path) -> Path:
    """Generates TF.NET's types into work/types, compiles them with the bridge and the proof's halves into
    Proof.Types.dll, and TypesProof.exe; returns the exe."""
    from tools.tfnet_surface.typegen import generate_types

    decls, rules = decl_module.load(), rules_module.load()
    folder = work / "types"
    folder.mkdir(parents=True, exist_ok=True)
    files = generate_types(decls, rules)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "TypeHalves.g.cs").write_text(type_halves(decls, rules, files), encoding="utf-8")
    refs = _refs(work, bin_dir)
    # -nowarn:436: TfNetTrain.dll holds two Tensorflow.* types of the current face (Model, Activation); these win.
    _mcs("-target:library", f"-out:{work / 'Proof.Types.dll'}", "-nowarn:436", *refs, str(PROOF / "FaceBridge.cs"),
         str(PROOF / "Axis.cs"), str(PROOF / "TypeStandins.cs"), *sorted(str(p) for p in folder.glob("*.g.cs")))
    exe = work / "TypesProof.exe"
    _mcs("-target:exe", f"-out:{exe}", "-nowarn:436", *refs, f"-r:{work / 'Proof.Types.dll'}",
         str(PROOF / "TypesProof.cs"))
    return exe


def compile_committed(work: Path, bin_dir: Path, folder: Path = HERE / "generated") -> Path:
    """Compiles the committed output (API classes and TF.NET's types together, as the face will) with the bridge and
    the proof's halves of the types into one library; returns it."""
    decls, rules = decl_module.load(), rules_module.load()
    files = {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.g.cs"))}
    halves = work / "TypeHalves.g.cs"
    halves.write_text(type_halves(decls, rules, files), encoding="utf-8")
    out = work / "Generated.dll"
    _mcs("-target:library", f"-out:{out}", "-nowarn:436", *_refs(work, bin_dir), str(PROOF / "FaceBridge.cs"),
         str(PROOF / "Axis.cs"), str(PROOF / "TypeStandins.cs"), str(halves), *sorted(str(folder / n) for n in files))
    return out


def _mono(exe: Path, work: Path, *args: str) -> dict[str, Any]:
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    if sys.prefix != sys.base_prefix:
        env["TFNET_TRAIN_VENV"] = sys.prefix
    proc = subprocess.run(["mono", "--debug", str(exe), *args], capture_output=True, text=True, cwd=work, env=env,
                          timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"{exe.name} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr[-3000:]}")
    results = {}
    for line in proc.stdout.splitlines():
        name, _, text = line.partition("\t")
        if text:
            results[name] = json.loads(text)
    return results


def run_types(work: Path, bin_dir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """(C# results, Python results) of the types proof by case."""
    exe = build_types(work, bin_dir)
    (work / "describe.py").write_text(DESCRIBE)
    (work / "proof_objects.py").write_text(OBJECTS)
    csharp = _mono(exe, work, str(work / "describe.py"), str(work / "proof_objects.py"))
    return csharp, python_side(None, types_expected())


def run(work: Path, bin_dir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """(C# results, Python results) by case."""
    exe = build(work, bin_dir)
    data = work / "data"
    data_folder(data)
    describe = work / "describe.py"
    describe.write_text(DESCRIBE)
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    if sys.prefix != sys.base_prefix:
        env["TFNET_TRAIN_VENV"] = sys.prefix
    proc = subprocess.run(["mono", "--debug", str(exe), str(describe), str(data)], capture_output=True, text=True,
                          cwd=work, env=env, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"Proof.exe exited {proc.returncode}\n{proc.stdout}\n{proc.stderr[-3000:]}")
    csharp = {}
    for line in proc.stdout.splitlines():
        name, _, text = line.partition("\t")
        if text:
            csharp[name] = json.loads(text)
    return csharp, python_side(data)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.tfnet_surface.proof", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", type=Path, default=ROOT / "dotnet" / "bin")
    parser.add_argument("--work", type=Path, help="scratch folder (default: a temporary one)")
    parser.add_argument("--part", choices=("api", "types", "both"), default="both",
                        help="the API classes' proof, the types' proof, or both (default)")
    args = parser.parse_args(argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    failed = 0
    with tempfile.TemporaryDirectory(prefix="tfnet-surface-proof-") as tmp:
        work = args.work or Path(tmp)
        for part in ("api", "types"):
            if args.part not in (part, "both"):
                continue
            (work / part).mkdir(parents=True, exist_ok=True)
            csharp, python = (run if part == "api" else run_types)(work / part, args.bin)
            bad = 0
            for name in python:
                ok = name in csharp and agree(name, csharp[name], python[name])
                bad += not ok
                print(f"{'same' if ok else 'DIFFERS'}  {name}" + ("" if ok else f"\n  C#:     {csharp.get(name)}\n"
                                                                 f"  Python: {python[name]}"))
            if part == "api":
                members, called = exercised()
                print(f"{len(python) - bad}/{len(python)} cases equal to Python; they call {len(called)} of the "
                      f"{len(members)} members of {len(rules_module.load().owners_generated)} owners")
            else:
                print(f"{len(python) - bad}/{len(python)} cases of TF.NET's types equal to Python")
            failed += bad
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
