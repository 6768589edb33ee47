using System;
using System.Linq;
using NUnit.Framework;
using TfNetTrain.TensorFlowNet;
using static TfNetTrain.TensorFlowNet.Binding;
using static TfNetTrain.TensorFlowNet.KerasApi;

namespace TfNetTrain.Tests
{
    /// <summary>
    /// TF.NET's np surface (Tensorflow.NumPy) as a TF.NET program uses it: arrays from C# values, creation
    /// functions, reshape/astype/shape, slices, operators and conversions. Expected values are worked out by hand.
    /// </summary>
    [TestFixture]
    public class TensorFlowNetNumPyTests
    {
        [Test]
        public void ArrayFromValuesAndShape()
        {
            var x = np.array(3.3f, 4.4f, 5.5f);
            Assert.AreEqual(np.float32, x.dtype);
            Assert.AreEqual(3L, x.shape[0]);
            Assert.AreEqual(new[] { 3.3f, 4.4f, 5.5f }, x.ToArray<float>());

            NDArray m = new float[,] { { 1, 0 }, { 1, 1 } };
            Assert.AreEqual(new Shape(2, 2), m.shape);
            Assert.AreEqual(2, m.ndim);
        }

        [Test]
        public void CreationFunctions()
        {
            Assert.AreEqual(new[] { 0, 1, 2, 3, 4 }, np.arange(5).ToArray<int>());
            Assert.AreEqual(np.int32, np.arange(5).dtype);
            Assert.AreEqual(new[] { 0f, 0.25f, 0.5f, 0.75f, 1f }, np.linspace(0f, 1f, 5).ToArray<float>());
            Assert.AreEqual(new float[6], np.zeros((2, 3)).ToArray<float>());
            Assert.AreEqual(Enumerable.Repeat(1.0, 4).ToArray(), np.ones(4, np.float64).ToArray<double>());
        }

        [Test]
        public void ReshapeAstypeAndSlices()
        {
            var x = np.arange(12).reshape((3, 4));
            Assert.AreEqual(new Shape(3, 4), x.shape);
            Assert.AreEqual(new[] { 4, 5, 6, 7 }, x[1].ToArray<int>());
            Assert.AreEqual(new[] { 0, 4, 8 }, x[":, 0"].ToArray<int>());
            Assert.AreEqual(new[] { 0, 2, 4, 6, 8, 10 }, np.arange(12)["::2"].ToArray<int>());
            Assert.AreEqual(6, (int)x[1, 2]);
            var f = x.astype(np.float32);
            Assert.AreEqual(np.float32, f.dtype);
            Assert.AreEqual(11f, f.ToArray<float>()[11]);
        }

        [Test]
        public void SetItemWritesThroughToTheArray()
        {
            var x = np.zeros(4);
            x[1] = 5f;
            Assert.AreEqual(new[] { 0f, 5f, 0f, 0f }, x.ToArray<float>());
            NDArray c = new float[] { 1, 2, 3 };
            c[0] = 9f;
            Assert.AreEqual(new[] { 9f, 2f, 3f }, c.GetData<float>(), "a C#-backed array changes in place");
        }

        [Test]
        public void OperatorsAndComparisons()
        {
            var x = np.array(1f, 2f, 3f);
            Assert.AreEqual(new[] { 0.5f, 1f, 1.5f }, (x / 2f).ToArray<float>());
            Assert.AreEqual(new[] { 2f, 4f, 6f }, (x + x).ToArray<float>());
            Assert.AreEqual(new[] { -1f, 0f, 1f }, (x - 2f).ToArray<float>());
            Assert.AreEqual(new[] { false, true, true }, (x > 1.5f).ToArray<bool>());
            Assert.AreEqual(6f, (float)np.sum(x));
            Assert.IsTrue(np.array(1f, 2f).Equals(new[] { 1f, 2f }));
            Assert.IsFalse(np.array(1f, 2f).Equals(new[] { 1f, 3f }));
        }

        [Test]
        public void DoubleOperandsKeepTheArraysFloatDtype()
        {
            // TF.NET casts a double operand to a float tensor's dtype (Tensor.Operators.cs GetBestDType); NumPy's
            // weak Python floats agree, and an int array with a double becomes float64 in both.
            var x = np.array(1f, 2f, 3f);
            var shifted = x - 1.0;
            Assert.AreEqual(np.float32, shifted.dtype);
            Assert.AreEqual(new[] { 0f, 1f, 2f }, shifted.ToArray<float>());
            Assert.AreEqual(np.float32, (0.5 * x).dtype);
            Assert.AreEqual(new[] { false, false, true }, (x > 2.5).ToArray<bool>());
            Assert.AreEqual(np.float64, (np.array(1.0, 2.0) / 4.0).dtype);
            Assert.AreEqual(np.float64, (np.array(1, 2) + 0.5).dtype);
            Tensor t = tf.constant(new[] { 2f, 4f });
            var half = t / 2.0;
            Assert.AreEqual(tf.float32, half.dtype);
            Assert.AreEqual(new[] { 1f, 2f }, half.ToArray<float>());
            Assert.IsTrue(tf.greater(np.array(0.1f), tf.abs(np.array(1.05f) - 1.0)).ToArray<bool>()[0]);
            Assert.AreEqual(np.float32, np.power(x, 2).dtype);
            Assert.AreEqual(new[] { 1f, 4f, 9f }, np.power(x, 2).ToArray<float>());
        }

        [Test]
        public void RowsFullLikeDstackAndShape()
        {
            var m = np.arange(6).reshape((3, 2));
            var rows = m.ToArray();
            Assert.AreEqual(3, rows.Length);
            Assert.AreEqual(new[] { 4, 5 }, rows[2].ToArray<int>());
            var filled = np.full_like(m, 7);
            Assert.AreEqual(np.int32, filled.dtype);
            Assert.AreEqual(new[] { 7, 7, 7, 7, 7, 7 }, filled.ToArray<int>());
            Assert.AreEqual(np.float32, np.full_like(m, 0.5f, dtype: np.float32).dtype);
            var d = np.dstack(m, m);
            Assert.AreEqual(new long[] { 3, 2, 2 }, d.shape.dims);
            Assert.AreEqual(new[] { 0, 0, 1, 1 }, d.reshape(-1).ToArray<int>().Take(4).ToArray());
            Tensor t = tf.zeros((4, 3, 2));
            Assert.AreEqual(new[] { 4, 3, 2 }, tf.shape(t).ToArray<int>());
            Assert.AreEqual(24, (int)tf.reduce_prod(tf.shape(t)));
            Assert.AreEqual(3, (int)tf.rank(t));
            Assert.Throws<TfNetTrain.TfNetTrainArgumentException>(() => np.array(1f).reshape(new Shape(new long[0])).ToArray());
        }

        [Test]
        public void PythonBackedArrayCrossesOnceWhenRead()
        {
            var x = np.ones((1000, 1000));
            Assert.IsTrue(x.IsPythonBacked, "np results stay in Python");
            var y = x * 2f + 1f;
            Assert.IsTrue(y.IsPythonBacked);
            float[] data = y.GetData<float>();
            Assert.IsFalse(y.IsPythonBacked, "GetData moves the elements into C# storage");
            Assert.AreSame(data, y.GetData<float>());
            Assert.AreEqual(3f, data[999999]);
        }

        [Test]
        public void RandomIsSeeded()
        {
            np.random.seed(3);
            var a = np.random.randint(0, 10, new Shape(5));
            np.random.seed(3);
            var b = np.random.randint(0, 10, new Shape(5));
            Assert.AreEqual(a.ToArray<int>(), b.ToArray<int>());
            Assert.IsTrue(a.ToArray<int>().All(v => v >= 0 && v < 10));
        }

        [Test]
        public void BadArgumentsAreTypedErrors()
        {
            var e = Assert.Throws<TfNetTrainArgumentException>(() => np.zeros(new Shape(-1, 2)));
            StringAssert.Contains("np.zeros", e.Message);
            Assert.Throws<TfNetTrainArgumentException>(() => { _ = (float)np.arange(3); });
            Assert.Throws<TfNetTrainArgumentException>(() => np.array(1f, 2f).ToArray<int>());
            Assert.Throws<TfNetTrainArgumentException>(() => np.random.shuffle(new float[] { 1, 2 }));
        }

        [Test]
        public void ToCategorical()
        {
            var y = np_utils.to_categorical(np.array(0, 2, 1), 3);
            Assert.AreEqual(new[] { 1f, 0f, 0f, 0f, 0f, 1f, 0f, 1f, 0f }, y.ToArray<float>());
        }
    }

    /// <summary>TF.NET's tf members for eager programs: tf.Variable, tf.random, tf.math, tf.nn, ops, graph-mode names.</summary>
    [TestFixture]
    public class TensorFlowNetEagerTests
    {
        [Test]
        public void VariableAssignAndTape()
        {
            tf.enable_eager_execution();
            Assert.IsTrue(tf.executing_eagerly());
            var W = tf.Variable(5.0f, name: "weight");
            var b = tf.Variable(0.0f);
            using (var tape = tf.GradientTape())
            {
                var loss = tf.square(W * 2f + b - 1f);
                var (dW, db) = tape.gradient(loss, (W, b));
                Assert.AreEqual(36f, (float)dW, 1e-5f); // 2 * (2W + b - 1) * 2 = 36
                Assert.AreEqual(18f, (float)db, 1e-5f);
                W.assign_sub(0.1f * dW);
            }
            Assert.AreEqual(1.4f, (float)W.numpy(), 1e-5f);
            W.assign(2f);
            W.assign_add(tf.constant(0.5f));
            Assert.AreEqual(2.5f, (float)W, 1e-6f);
            Assert.Throws<TfNetTrainArgumentException>(() => W.assign(tf.constant(new float[] { 1f, 2f })));
            Assert.AreEqual(2.5f, (float)W, 1e-6f, "a failed assign changes nothing");
        }

        [Test]
        public void OptimizerUpdatesVariablesFromZip()
        {
            var W = tf.Variable(1.0f);
            var b = tf.Variable(1.0f);
            var optimizer = keras.optimizers.SGD(0.5f);
            using (var g = tf.GradientTape())
            {
                var loss = W * 3f + b;
                var gradients = g.gradient(loss, (W, b));
                optimizer.apply_gradients(zip(gradients, (W, b)));
            }
            Assert.AreEqual(1f - 0.5f * 3f, (float)W.numpy(), 1e-6f);
            Assert.AreEqual(0.5f, (float)b.numpy(), 1e-6f);
        }

        [Test]
        public void OpsAndShapesFromTuples()
        {
            var x = tf.ones((2, 3));
            Assert.AreEqual(new Shape(2, 3), x.shape);
            Assert.AreEqual(new Shape(4, 3), tf.tile(x, new Shape(2, 1)).shape);
            Assert.AreEqual(new[] { 1f, 1f }, tf.slice(x, new[] { 0, 0 }, new[] { 1, 2 }).ToArray<float>());
            Assert.AreEqual(1f, (float)tf.reduce_prod(x));
            Assert.AreEqual(16f, (float)tf.squared_difference(tf.constant(7f), tf.constant(11f)));
            Assert.AreEqual(new[] { 2f, 3f }, tf.gather_nd(tf.constant(new float[,] { { 1, 2 }, { 3, 4 } }), tf.constant(new int[,] { { 0, 1 }, { 1, 0 } })).ToArray<float>());
            Assert.AreEqual(new[] { 0f, 0f, 0f }, tf.zeros_like(x)[0].ToArray<float>());
            Assert.AreEqual(new Shape(5, 4), tf.random.truncated_normal((5, 4), stddev: 0.1f, seed: 1).shape);
            Assert.IsTrue(tf.random.uniform((100), 2f, 3f).ToArray<float>().All(v => v >= 2f && v < 3f));
            Assert.AreEqual(2f, (float)tf.math.log(tf.constant((float)Math.E * (float)Math.E)), 1e-5f);
        }

        [Test]
        public void NnLossesOnLogits()
        {
            var logits = tf.constant(new float[,] { { 0f, 0f } });
            var loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels: tf.constant(new[] { 1 }), logits: logits);
            Assert.AreEqual((float)Math.Log(2), loss.ToArray<float>()[0], 1e-6f);
            var dense = tf.nn.softmax_cross_entropy_with_logits(tf.constant(new float[,] { { 0f, 1f } }), logits);
            Assert.AreEqual((float)Math.Log(2), dense.ToArray<float>()[0], 1e-6f);
            Assert.Throws<TfNetTrainArgumentException>(() => tf.nn.max_pool(tf.ones((1, 2, 2, 1)), new[] { 1, 2, 2, 1 }, new[] { 1, 1, 1, 1 }, "same"));
        }

        [Test]
        public void DatasetEnumeratesAsPairs()
        {
            var ds = tf.data.Dataset.from_tensor_slices(np.arange(6).reshape((3, 2)).astype(np.float32), np.array(0, 1, 2)).batch(2);
            var batches = ds.ToList();
            Assert.AreEqual(2, batches.Count);
            var (x, y) = batches[0];
            Assert.AreEqual(new Shape(2, 2), x.shape);
            Assert.AreEqual(new[] { 0, 1 }, ((Tensor)y).ToArray<int>());
            int n = 0;
            foreach (var item in enumerate(ds)) n = item.Item1 + 1; // mcs: no deconstruction in foreach
            Assert.AreEqual(2, n);
            var zipped = tf.data.Dataset.zip(tf.data.Dataset.from_tensor_slices(np.arange(3)), tf.data.Dataset.from_tensor_slices(np.arange(3)));
            Assert.AreEqual(3, zipped.ToList().Count);
        }

        [Test]
        public void ActivationsGoWhereLayersTakeNames()
        {
            var layer = keras.layers.Dense(2, activation: keras.activations.Relu);
            Assert.AreEqual("relu", layer.Spec.Arguments["activation"]);
            Assert.AreEqual(new[] { 0f, 2f }, keras.activations.Relu.Apply(tf.constant(new[] { -1f, 2f })).ToArray<float>());
            Assert.AreSame(keras, tf.keras);
            Assert.AreEqual("none", ReductionV2.NONE);
            Assert.Throws<TfNetTrainArgumentException>(() => keras.activations.GetActivationFromName("nope"));
        }

        [Test]
        public void GraphModeNamesThrowNotSupported()
        {
            var e = Assert.Throws<GraphModeNotSupportedException>(() => tf.Session());
            StringAssert.Contains("graph mode is not supported", e.Message);
            Assert.Throws<GraphModeNotSupportedException>(() => tf.placeholder(tf.float32));
            Assert.Throws<GraphModeNotSupportedException>(() => tf.train.GradientDescentOptimizer(0.1f));
            Assert.Throws<GraphModeNotSupportedException>(() => tf.global_variables_initializer());
            Assert.IsInstanceOf<NotSupportedException>(e);
        }

        [Test]
        public void HammingLossAndImplicitNumbers()
        {
            // Three rows hit their one true class above 0.6, the fourth predicts none: a loss of 1/4.
            var m = keras.metrics.HammingLoss(mode: "multiclass", threshold: 0.6f);
            m.update_state(np.array(new[,] { { 1, 0 }, { 0, 1 }, { 1, 0 }, { 0, 1 } }), np.array(new[,] { { 0.8f, 0.1f }, { 0.2f, 0.7f }, { 0.9f, 0f }, { 0.5f, 0.5f } }));
            float result = m.result().numpy();
            Assert.AreEqual(0.25f, result, 1e-6f);
            Assert.Throws<TfNetTrainArgumentException>(() => keras.metrics.HammingLoss(mode: "binary"));
            var e = Assert.Throws<GraphModeNotSupportedException>(() => tf.ones(2).eval(null));
            StringAssert.Contains("Tensor.eval", e.Message);
        }

        [Test]
        public void LenAndEnumerate()
        {
            Assert.AreEqual(3, len(np.zeros((3, 2))));
            Assert.AreEqual(2, len(tf.ones((2, 5))));
            Assert.AreEqual(new[] { (1, "a"), (2, "b") }, enumerate(new[] { "a", "b" }, 1).ToArray());
            Assert.Throws<TfNetTrainArgumentException>(() => len(42));
        }
    }
}
