using System;
using System.Collections.Generic;
using System.Linq;
using NUnit.Framework;
using TfNetTrain.TensorFlowNet;
using static TfNetTrain.TensorFlowNet.Binding;
using static TfNetTrain.TensorFlowNet.KerasApi;

namespace TfNetTrain.Tests
{
    /// <summary>
    /// The TensorFlow.NET-shaped surface against the same calls made in Python: custom GradientTape loops, loss and
    /// metric objects, ops, and the TF.NET model members. Parity is judged by tfnet_train.tolerances.
    /// </summary>
    [TestFixture]
    public class TensorFlowNetTests
    {
        private const string PyClose =
            "from tfnet_train.tolerances import allclose\n" +
            "def close(a, b):\n" +
            "    return np.asarray([allclose(np.asarray(x), np.asarray(y)) for x, y in zip(a, b)], dtype=np.int32)\n";

        private static Sequential Classifier()
        {
            var model = keras.Sequential();
            model.add(keras.layers.Dense(8, activation: "relu", input_shape: 4));
            model.add(keras.layers.Dense(3));
            return model;
        }

        private static void AssertAllClose(Dictionary<string, NDArray> result, string key, string what)
        {
            int[] flags = result[key].ToArray<int>();
            Assert.IsTrue(flags.Length > 0 && flags.All(v => v == 1), $"{what}: not within the project tolerances ({string.Join(",", flags)})");
        }

        [Test]
        public void CustomLoopMatchesPythonCustomLoop()
        {
            using (var model = Classifier())
            {
                List<NDArray> w0 = model.get_weights();
                var xs = Enumerable.Range(0, 4).Select(i => Data.Uniform(10 + i, 6, 4)).ToList();
                var ys = Enumerable.Range(0, 4).Select(i => Data.Labels(20 + i, 6, 3)).ToList();
                var optimizer = keras.optimizers.Adam(learning_rate: 0.01f);
                var lossFn = keras.losses.SparseCategoricalCrossentropy(from_logits: true);
                var accuracy = keras.metrics.SparseCategoricalAccuracy();
                var losses = new List<float>();
                for (int step = 0; step < xs.Count; step++)
                {
                    Tensor x = xs[step], y = ys[step];
                    Tensor loss, logits;
                    using (var tape = tf.GradientTape())
                    {
                        logits = model.Apply(x, training: true);
                        loss = lossFn.Call(y, logits);
                        var grads = tape.gradient(loss, model.TrainableVariables);
                        optimizer.apply_gradients(zip(grads, model.TrainableVariables));
                    }
                    accuracy.update_state(y, logits);
                    losses.Add(loss.ToArray<float>()[0]);
                }
                var expected = PyScript.Run(PyClose +
                    "model = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation='relu'), keras.layers.Dense(3)])\n" +
                    "model.set_weights(w0)\n" +
                    "opt = keras.optimizers.Adam(learning_rate=0.01)\n" +
                    "loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)\n" +
                    "acc = keras.metrics.SparseCategoricalAccuracy()\n" +
                    "losses = []\n" +
                    "for x, y in zip(xs, ys):\n" +
                    "    with tf.GradientTape() as tape:\n" +
                    "        logits = model(x, training=True)\n" +
                    "        loss = loss_fn(y, logits)\n" +
                    "    grads = tape.gradient(loss, model.trainable_variables)\n" +
                    "    opt.apply_gradients(zip(grads, model.trainable_variables))\n" +
                    "    acc.update_state(y, logits)\n" +
                    "    losses.append(float(loss))\n" +
                    "put('weights', close(cs_weights, model.get_weights()))\n" +
                    "put('losses', close(cs_losses, losses))\n" +
                    "put('accuracy', close([cs_accuracy], [float(acc.result())]))\n",
                    "w0", w0, "xs", xs, "ys", ys, "cs_weights", model.get_weights(),
                    "cs_losses", new NDArray(losses.ToArray()), "cs_accuracy", accuracy.result().numpy());
                AssertAllClose(expected, "weights", "weights after 4 custom steps");
                AssertAllClose(expected, "losses", "per-step losses");
                AssertAllClose(expected, "accuracy", "accuracy metric");
                Assert.AreNotEqual(w0[0].ToArray<float>(), model.get_weights()[0].ToArray<float>(), "the loop trained");
            }
        }

        [Test]
        public void LossAndMetricObjectsEqualKeras()
        {
            NDArray yTrue = Data.Labels(3, 10, 4), yPred = Data.Uniform(4, 10, 4), weights = Data.Uniform(5, 10);
            Tensor sce = keras.losses.SparseCategoricalCrossentropy(from_logits: true).Call(yTrue, yPred);
            Tensor sceSum = keras.losses.SparseCategoricalCrossentropy(reduction: "sum", from_logits: true).Call(yTrue, yPred, weights);
            Tensor mse = keras.losses.MeanSquaredError().Call(yPred, Data.Uniform(6, 10, 4));
            var top2 = keras.metrics.TopKCategoricalAccuracy(k: 2);
            var accuracy = keras.metrics.SparseCategoricalAccuracy();
            Tensor oneHot = tf.one_hot(yTrue, 4);
            top2.update_state(oneHot, yPred);
            accuracy.update_state(yTrue, yPred);
            accuracy.update_state(yTrue, Data.Uniform(7, 10, 4));
            var binaryTrue = new NDArray(new[] { 0f, 1f, 1f, 0f, 1f, 0f }, 6);
            var binaryPred = new NDArray(new[] { 0.2f, 0.8f, 0.4f, 0.6f, 0.9f, 0.1f }, 6);
            var precision = keras.metrics.Precision();
            var recall = keras.metrics.Recall();
            var auc = keras.metrics.AUC();
            foreach (var m in new[] { precision, recall, auc }) m.update_state(binaryTrue, binaryPred);
            var f1 = keras.metrics.F1Score(num_classes: 4, average: "macro", threshold: 0.5f);
            f1.update_state(oneHot, yPred);
            var expected = PyScript.Run(PyClose +
                "sce = keras.losses.SparseCategoricalCrossentropy(from_logits=True)(y_true, y_pred)\n" +
                "sce_sum = keras.losses.SparseCategoricalCrossentropy(reduction='sum', from_logits=True)(y_true, y_pred, sample_weight=w)\n" +
                "mse = keras.losses.MeanSquaredError()(y_pred, y_other)\n" +
                "one_hot = tf.one_hot(y_true, 4)\n" +
                "top2 = keras.metrics.TopKCategoricalAccuracy(k=2); top2.update_state(one_hot, y_pred)\n" +
                "acc = keras.metrics.SparseCategoricalAccuracy(); acc.update_state(y_true, y_pred); acc.update_state(y_true, y_pred2)\n" +
                "ms = [keras.metrics.Precision(), keras.metrics.Recall(), keras.metrics.AUC()]\n" +
                "for m in ms: m.update_state(bt, bp)\n" +
                "f1 = keras.metrics.F1Score(average='macro', threshold=0.5); f1.update_state(one_hot, y_pred)\n" +
                "put('close', close(cs, [sce, sce_sum, mse, top2.result(), acc.result()] + [m.result() for m in ms] + [f1.result()]))\n",
                "y_true", yTrue, "y_pred", yPred, "w", weights, "y_other", Data.Uniform(6, 10, 4), "y_pred2", Data.Uniform(7, 10, 4),
                "bt", binaryTrue, "bp", binaryPred,
                "cs", new[] { sce, sceSum, mse, top2.result(), accuracy.result(), precision.result(), recall.result(), auc.result(), f1.result() }
                    .Select(t => t.numpy()).ToList());
            AssertAllClose(expected, "close", "losses and metrics");
            accuracy.reset_states();
            Assert.AreEqual(0f, accuracy.result().ToArray<float>()[0]);
            Assert.AreEqual("sum", keras.losses.SparseCategoricalCrossentropy(reduction: "sum").Reduction);
        }

        /// <summary>docs/semantics.md row 27: made while <see cref="FaceOptions.Semantics"/> is "tfnet", the focal loss
        /// and the F scores give TF.NET's own expected float32 values (its LossesTest and MetricsTest), to the bit;
        /// under "keras" they give Keras 3's, which part in the last digits.</summary>
        [Test]
        public void FocalLossAndFScoresFollowTheFaceSemantics()
        {
            var yTrue = np.expand_dims(np.array(new[] { 1.0f, 1.0f, 0 }), -1);
            var yPred = np.expand_dims(np.array(new[] { 0.97f, 0.91f, 0.03f }), -1);
            var labels = np.array(new[,] { { 1, 1, 1 }, { 1, 0, 0 }, { 1, 1, 0 } });
            var scores = np.array(new[,] { { 0.2f, 0.6f, 0.7f }, { 0.2f, 0.6f, 0.6f }, { 0.6f, 0.8f, 0f } });
            var results = new Dictionary<string, float[][]>();
            string before = FaceOptions.Semantics;
            try
            {
                foreach (var semantics in new[] { "tfnet", "keras" })
                {
                    FaceOptions.Semantics = semantics;
                    var loss = keras.losses.SigmoidFocalCrossEntropy().Call(yTrue, yPred);
                    var f1 = keras.metrics.F1Score(num_classes: 3, threshold: 0.5f);
                    f1.update_state(labels, scores);
                    results[semantics] = new[] { loss.numpy().ToArray<float>(), f1.result().numpy().ToArray<float>() };
                }
            }
            finally
            {
                FaceOptions.Semantics = before;
            }
            Assert.AreEqual(new[] { 6.8532745e-06f, 1.909787e-04f, 2.0559824e-05f }, results["tfnet"][0], "TF.NET's LossesTest values");
            Assert.AreEqual(new[] { 0.5f, 0.8f, 0.6666667f }, results["tfnet"][1], "TF.NET's MetricsTest values");
            var keras3 = PyScript.Run(
                "import keras, numpy as np\n" +
                "t = np.array([[1.0], [1.0], [0.0]], 'float32'); p = np.array([[0.97], [0.91], [0.03]], 'float32')\n" +
                "put('loss', keras.losses.BinaryFocalCrossentropy(apply_class_balancing=True, reduction='none')(t, p))\n" +
                "f1 = keras.metrics.F1Score(threshold=0.5)\n" +
                "f1.update_state(np.array([[1, 1, 1], [1, 0, 0], [1, 1, 0]]), np.array([[0.2, 0.6, 0.7], [0.2, 0.6, 0.6], [0.6, 0.8, 0.0]], 'float32'))\n" +
                "put('f1', f1.result())\n");
            Assert.AreEqual(keras3["loss"].ToArray<float>(), results["keras"][0], "Keras 3's BinaryFocalCrossentropy");
            Assert.AreEqual(keras3["f1"].ToArray<float>(), results["keras"][1], "Keras 3's F1Score");
            Assert.AreNotEqual(results["tfnet"][0], results["keras"][0]);
        }

        [Test]
        public void OpsEqualNumPy()
        {
            NDArray a = Data.Uniform(1, 3, 4), b = Data.Uniform(2, 3, 4);
            Tensor ta = a, tb = b;
            var results = new[]
            {
                ta + tb, ta - tb, ta * tb, ta / (tb + 1f), -ta, ta * 2f, tf.reduce_mean(ta), tf.reduce_sum(ta, axis: 1),
                tf.reduce_max(ta, axis: 0, keepdims: true), tf.cast(tf.argmax(ta, 1), tf.int32), tf.one_hot(tf.argmax(ta, 1), 4),
                tf.matmul(ta, tf.transpose(tb)), tf.square(ta), tf.nn.softmax(ta), tf.reshape(ta, new[] { 4, 3 }),
            };
            var expected = PyScript.Run(PyClose +
                "import scipy.special\n" +
                "am = np.argmax(a, 1)\n" +
                "ref = [a + b, a - b, a * b, a / (b + 1), -a, a * 2, a.mean(), a.sum(1), a.max(0, keepdims=True), am.astype(np.int32),\n" +
                "       np.eye(4, dtype=np.float32)[am], a @ b.T, a * a, scipy.special.softmax(a, axis=1), a.reshape(4, 3)]\n" +
                "put('close', close(cs, ref))\n",
                "a", a, "b", b, "cs", results.Select(t => t.numpy()).ToList());
            AssertAllClose(expected, "close", "ops");
            Assert.AreEqual(TF_DataType.TF_INT32, results[9].dtype);
            Assert.AreEqual(new Shape(3, 4), results[0].shape);
        }

        [Test]
        public void BadInputIsTypedAndLeavesTheModelUnchanged()
        {
            using (var model = Classifier())
            {
                List<NDArray> w0 = model.get_weights();
                Tensor x = Data.Uniform(1, 5, 4), y = Data.Labels(2, 5, 3);
                var loss = keras.losses.SparseCategoricalCrossentropy(from_logits: true);

                Assert.Throws<TfNetTrainArgumentException>(() => tf.matmul(x, x));

                var tape = tf.GradientTape();
                Tensor value = loss.Call(y, model.Apply(x, training: true));
                tape.Dispose();
                Assert.Throws<ObjectDisposedException>(() => tape.gradient(value, model.TrainableVariables));

                var other = Classifier();
                using (var t = tf.GradientTape())
                {
                    Tensor l = loss.Call(y, model.Apply(x, training: true));
                    var e = Assert.Throws<TfNetTrainArgumentException>(() => t.gradient(l, other.TrainableVariables));
                    StringAssert.Contains("no gradient for sources[0]", e.Message);
                }

                var grads = new List<Tensor>();
                using (var t = tf.GradientTape())
                {
                    grads.AddRange(t.gradient(loss.Call(y, model.Apply(x, training: true)), model.TrainableVariables));
                }
                grads.Reverse();
                var optimizer = keras.optimizers.SGD(0.1f);
                var mismatch = Assert.Throws<TfNetTrainArgumentException>(() => optimizer.apply_gradients(zip(grads, model.TrainableVariables)));
                StringAssert.Contains("does not match variable", mismatch.Message);

                model.compile(keras.optimizers.SGD(0.1f), loss);
                var xOnly = tf.data.Dataset.from_tensor_slices(Data.Uniform(1, 5, 4)).batch(2);
                var structure = Assert.Throws<TfNetTrainArgumentException>(() => model.fit(xOnly, epochs: 1, verbose: 0));
                StringAssert.Contains("dataset must yield elements of 2 or 3 part(s)", structure.Message);

                List<NDArray> after = model.get_weights();
                for (int i = 0; i < w0.Count; i++) Assert.IsTrue(w0[i].BitwiseEquals(after[i]), $"weight {i} changed");
                other.Dispose();
            }
        }

        [Test]
        public void ModelMembersMirrorKeras()
        {
            var inner = keras.Sequential(new List<ILayer> { keras.layers.Dense(5, activation: "relu", input_shape: 4) });
            var outer = keras.Sequential();
            outer.add(inner);
            outer.add(keras.layers.Dense(2, name: "head"));
            Assert.AreEqual(2, outer.Layers.Count, "layers before the model is built");
            outer.compile(keras.optimizers.SGD(0.05f), keras.losses.SparseCategoricalCrossentropy(from_logits: true), new[] { "accuracy" });
            Assert.Throws<InvalidOperationException>(() => outer.add(keras.layers.Dense(1)));
            StringAssert.Contains("head (Dense)", outer.summary());
            Assert.AreEqual(new[] { "Sequential", "Dense" }, outer.Layers.Select(l => ((Layer)l).Spec.ClassName).ToArray());
            Assert.AreEqual(4, outer.TrainableVariables.Count);
            Assert.AreEqual(new Shape(4, 5), outer.TrainableVariables[0].shape);
            StringAssert.Contains("\"head\"", outer.get_config());
            var history = outer.fit(Data.Uniform(1, 12, 4), Data.Labels(2, 12, 2), batch_size: 4, epochs: 2, verbose: 0);
            Assert.AreEqual(2, history["loss"].Count);

            var input = keras.Input(new[] { 3 }, batch_size: 6);
            Assert.AreEqual(new Shape(6, 3), input.shape);
            var dense = keras.layers.Dense(2);
            var output = keras.layers.Add().Apply(new Tensor[] { dense.Apply(input), dense.Apply(input) });
            using (var functional = keras.Model(input, output))
            {
                Assert.AreEqual(2, functional.TrainableVariables.Count, "the same Dense object applied twice shares its weights");
                NDArray x = Data.Uniform(3, 6, 3);
                var expected = PyScript.Run("w = model.get_weights()\nput('y', 2 * (x @ w[0] + w[1]))\n", "model", functional.Model, "x", x);
                var actual = functional.predict(x).numpy();
                var check = PyScript.Run(PyClose + "put('c', close([a], [e]))\n", "a", actual, "e", expected["y"]);
                AssertAllClose(check, "c", "functional predict");
            }

            var norm = keras.layers.Normalization(input_shape: 2);
            norm.adapt(new NDArray(new[] { 1f, 10f, 3f, 30f }, 2, 2));
            Tensor normalised = norm.Apply(new NDArray(new[] { 2f, 20f }, 1, 2));
            Assert.That(normalised.ToArray<float>(), Is.EqualTo(new[] { 0f, 0f }).Within(1e-5f));
            inner.Dispose();
            outer.Dispose();
        }

        [Test]
        public void LayerCallsReturnTensorsAndTakeTensorFlowNetsArguments()
        {
            // Apply returns one tensor per output (TF.NET's Tensors): [0] is the first output, not its first row
            var dense = keras.layers.EinsumDense("...b,bc->...c", 4, "c", kernel_initializer: tf.constant_initializer(0.5),
                                                 bias_initializer: tf.constant_initializer(0.03));
            NDArray out0 = dense.Apply(np.array(new[,] { { 1f, 2f }, { 3f, 4f } }))[0].numpy();
            CollectionAssert.AreEqual(new[] { 2, 4 }, out0.shape.as_int_list());
            Assert.AreEqual(1.5f + 0.03f, out0.ToArray<float>()[0], 1e-6f);
            Assert.AreEqual(3.5f + 0.03f, out0.ToArray<float>()[7], 1e-6f);

            // count weights given to the constructor weigh every call (TF.NET), as Keras 3's per-call argument
            var weights = np.array(new[,] { { 0.1f, 0.2f }, { 0.1f, 0.1f }, { 0.2f, 0.3f }, { 0.4f, 0.2f } });
            var counts = keras.layers.CategoryEncoding(4, output_mode: "count", count_weights: weights);
            float[] got = counts.Apply(np.array(new[,] { { 0, 1 }, { 0, 0 }, { 1, 2 }, { 3, 1 } })).numpy().ToArray<float>();
            float[] expected = { 0.1f, 0.2f, 0f, 0f, 0.2f, 0f, 0f, 0f, 0f, 0.2f, 0.3f, 0f, 0f, 0.2f, 0f, 0.4f };
            for (int k = 0; k < expected.Length; k++) Assert.AreEqual(expected[k], got[k], 1e-6f, $"count {k}");

            // axis: null is Keras's axis=None (one mean and variance over everything), not the default -1
            var norm = keras.layers.Normalization(axis: null);
            norm.adapt(np.array(new[] { 1f, 2f, 3f, 4f, 5f }));
            float[] normalized = norm.Apply(np.array(new[] { 1f, 2f, 3f })).numpy().ToArray<float>();
            double sd = Math.Sqrt(2.0); // mean 3, variance 2
            for (int k = 0; k < 3; k++) Assert.AreEqual((k + 1 - 3) / sd, normalized[k], 1e-6, $"normalized {k}");

            // two layer results as a pair, as TF.NET programs pass them to a merge layer
            var input = keras.Input(3);
            Tensors a = keras.layers.Dense(2).Apply(input), b = keras.layers.Dense(2).Apply(input);
            Tensor merged = keras.layers.Add().Apply((a, b));
            CollectionAssert.AreEqual(new long[] { -1, 2 }, merged.shape.dims);
        }
    }
}
