"""The Python side of the C# `np` surface and of the TF.NET tf members: tfnet_train.bridge.numpy_face and the
tensors functions added for them (variables, slicing, dataset enumeration)."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from tfnet_train.bridge import numpy_face, tensors


def test_slice_strings_follow_numpy_notation() -> None:
    x = np.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(numpy_face.getitem(x, [":, 0"]), [0, 4, 8])
    np.testing.assert_array_equal(numpy_face.getitem(np.arange(10), ["::3"]), [0, 3, 6, 9])
    np.testing.assert_array_equal(numpy_face.getitem(x, [1, 2]), 6)
    np.testing.assert_array_equal(numpy_face.getitem(x, ["1:, ::2"]), [[4, 6], [8, 10]])
    assert numpy_face.getitem(x, ["np.newaxis, ..."]).shape == (1, 3, 4)


def test_bad_index_and_slice_are_value_errors() -> None:
    with pytest.raises(ValueError, match="does not fit shape"):
        numpy_face.getitem(np.arange(3), [5])
    with pytest.raises(ValueError, match="start:stop:step"):
        numpy_face.getitem(np.arange(3), ["1:2:3:4"])


def test_setitem_writes_into_the_array_and_returns_it() -> None:
    x = np.zeros(4, np.float32)
    assert numpy_face.setitem(x, ["1:3"], 2.0) is x
    np.testing.assert_array_equal(x, [0, 2, 2, 0])


def test_creation_defaults_match_tfnet() -> None:
    assert numpy_face.create("zeros", [2, 3]).dtype == np.float32
    assert numpy_face.arange(0, 5, 1).dtype == np.int32
    assert numpy_face.arange(0.0, 1.0, 0.5).dtype == np.float32
    np.testing.assert_allclose(numpy_face.linspace(0, 1, 5), [0, 0.25, 0.5, 0.75, 1])
    assert numpy_face.linspace(0, 1, 5).dtype == np.float32
    with pytest.raises(ValueError, match="array constructor"):
        numpy_face.create("nope", [1])


def test_call_runs_numpy_and_names_unknown_functions() -> None:
    np.testing.assert_array_equal(numpy_face.call("add", [np.ones(2), 1.0]), [2, 2])
    assert numpy_face.call("sum", [np.ones(3)]).shape == ()
    with pytest.raises(ValueError, match="numpy function"):
        numpy_face.call("no_such_function", [])


def test_random_is_seeded_and_shuffle_returns_its_argument() -> None:
    numpy_face.random("seed", [1])
    a = numpy_face.random("randint", [0, 10], {"size": [4], "dtype": "int32"})
    numpy_face.random("seed", [1])
    b = numpy_face.random("randint", [0, 10], {"size": [4], "dtype": "int32"})
    np.testing.assert_array_equal(a, b)
    assert a.dtype == np.int32
    x = np.arange(5)
    assert numpy_face.random("shuffle", [x]) is x
    assert sorted(x) == [0, 1, 2, 3, 4]


def test_from_buffer_copies_and_to_categorical() -> None:
    source = bytearray([1, 0, 1])
    out = numpy_face.from_buffer(source, [3], "bool")
    source[0] = 0
    np.testing.assert_array_equal(out, [True, False, True])
    np.testing.assert_array_equal(numpy_face.to_categorical(np.array([0, 2]), 3), [[1, 0, 0], [0, 0, 1]])
    assert numpy_face.scalar_value(np.array([True])) == 1.0


def test_variables_assign_and_refuse_other_shapes_without_change() -> None:
    v = tensors.make_variable(np.array([1.0, 2.0], np.float32), name="w")
    assert v.trainable
    tensors.variable_assign(v, "assign_sub", [0.5, 0.5])
    np.testing.assert_allclose(v.numpy(), [0.5, 1.5])
    with pytest.raises(ValueError, match="does not match variable"):
        tensors.variable_assign(v, "assign", [1.0, 2.0, 3.0])
    np.testing.assert_allclose(v.numpy(), [0.5, 1.5])
    with pytest.raises(ValueError, match="assignment"):
        tensors.variable_assign(v, "assign_mul", [1.0, 1.0])


def test_new_ops_and_tensor_slicing() -> None:
    x = tf.reshape(tf.range(6, dtype=tf.float32), (2, 3))
    np.testing.assert_array_equal(tensors.tensor_getitem(x, [":, 1"]), [1, 4])
    assert float(tensors.tensor_op("squared_difference", [7.0, 11.0])) == 16.0
    assert tensors.tensor_op("tile", [x, [2, 1]]).shape == (4, 3)
    loss = tensors.tensor_op("nn_sparse_softmax_cross_entropy_with_logits", [],
                             {"labels": [1], "logits": [[0.0, 0.0]]})
    np.testing.assert_allclose(loss, [np.log(2)], rtol=1e-6)
    with pytest.raises(ValueError, match="does not fit shape"):
        tensors.tensor_getitem(x, [5])


def test_dataset_iteration_and_zip() -> None:
    ds = tf.data.Dataset.from_tensor_slices((np.arange(3), np.arange(3) * 2))
    it = tensors.dataset_iterator(ds)
    first = tensors.iterator_next(it)
    assert [int(t) for t in first] == [0, 0]
    assert tensors.iterator_next(it) is not None and tensors.iterator_next(it) is not None
    assert tensors.iterator_next(it) is None
    zipped = tensors.dataset_zip([tf.data.Dataset.range(2), tf.data.Dataset.range(2)])
    assert len(list(zipped)) == 2
    with pytest.raises(TypeError, match="tf.data.Dataset"):
        tensors.dataset_iterator([1, 2])


def test_hamming_loss_by_hand() -> None:
    # multiclass, threshold 0.6: rows 0-2 hit their one true class, row 3 predicts nothing above 0.6 -> 1/4
    y_true = np.array([[1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [0, 1, 0, 0]])
    y_pred = np.array([[0.8, 0.1, 0.1, 0], [0.2, 0, 0.8, 0], [0.05, 0.05, 0.1, 0.8], [1, 0, 0, 0]], np.float32)
    metric = tensors.build_metric("HammingLoss", {"mode": "multiclass", "threshold": 0.6})
    metric.update_state(y_true, y_pred)
    assert float(metric.result()) == pytest.approx(0.25)
    # multilabel: 1 of 3 labels wrong in one row of two -> (1/3 + 0) / 2
    multilabel = tensors.hamming_loss(np.array([[1, 0, 1], [0, 1, 0]]), np.array([[0.9, 0.1, 0.2], [0.1, 0.9, 0.1]]),
                                      threshold=0.5, mode="multilabel")
    np.testing.assert_allclose(multilabel, [1 / 3, 0], rtol=1e-6)
    with pytest.raises(ValueError, match="multiclass"):
        tensors.build_metric("HammingLoss", {"mode": "other"})


def test_float32_operands_keep_float32() -> None:
    assert numpy_face.call_float32("divide", [np.arange(3, dtype=np.uint8), 255.0]).dtype == np.float32
    assert numpy_face.call_float32("multiply", [np.ones(2, np.float64), 2.0]).dtype == np.float64
