using System;
using System.Collections.Generic;
using System.Linq;
using NUnit.Framework;
using TfNetTrain.TensorFlowNet;
using static TfNetTrain.TensorFlowNet.Binding;
using static TfNetTrain.TensorFlowNet.KerasApi;

namespace TfNetTrain.Tests
{
    /// <summary>TF.NET's model types and members, written as TF.NET programs use them: IModel, optimizer classes,
    /// the fit result as a callback, Sequential.add(keras.Input), output_shape, layer weights, nested Sequentials.</summary>
    [TestFixture]
    public class TensorFlowNetModelTests
    {
        private static IModel Functional()
        {
            var inputs = keras.Input(shape: 3);
            var outputs = keras.layers.Dense(2).Apply(inputs);
            return keras.Model(inputs, outputs);
        }

        [Test]
        public void IModelTrainsThroughItsInterface()
        {
            IModel model = Functional();
            IOptimizer optimizer = new Adam(0.01f);
            model.compile(optimizer, keras.losses.MeanSquaredError());
            var x = Data.Uniform(1, 16, 3);
            var y = Data.Uniform(2, 16, 2);
            ICallback result = model.fit(x, y, batch_size: 8, epochs: 2, verbose: 0);
            var history = ((History)result).history;
            Assert.AreEqual(2, history["loss"].Count);
            Assert.Less(history["loss"][1], history["loss"][0], "Adam lowers the loss on its own batches");
            Assert.AreEqual(2, model.TrainableVariables.Count);
            Assert.AreEqual(new[] { 16, 2 }, model.predict(x).numpy().Shape);
        }

        [Test]
        public void OptimizerClassesAreTheKerasOptimizers()
        {
            CollectionAssert.AreEqual(new[] { "Adam", "SGD", "RMSprop", "AdamW" },
                new OptimizerV2[] { new Adam(), new SGD(), new RMSprop(), new AdamW() }.Select(o => o.Spec.ClassName).ToArray());
            IModel model = Functional();
            List<NDArray> before = model.get_weights();
            var x = tf.constant(Data.Uniform(3, 4, 3));
            var sgd = new SGD(0.5f);
            Tensor[] grads;
            using (var tape = tf.GradientTape())
            {
                var loss = tf.reduce_mean(tf.square(model.Apply(x)));
                grads = tape.gradient(loss, model.TrainableVariables);
            }
            sgd.apply_gradients(zip(grads, model.TrainableVariables));
            List<NDArray> after = model.get_weights();
            for (int i = 0; i < 2; i++)
            {
                float[] w0 = before[i].ToArray<float>(), w1 = after[i].ToArray<float>(), g = grads[i].ToArray<float>();
                for (int k = 0; k < w0.Length; k++) Assert.AreEqual(w0[k] - 0.5f * g[k], w1[k], 1e-6, $"weights[{i}][{k}] moved by -lr * gradient");
            }
            var error = Assert.Throws<TfNetTrainArgumentException>(() => model.compile(new NotAnOptimizer(), keras.losses.MeanSquaredError()));
            StringAssert.Contains("NotAnOptimizer", error.Message);
        }

        private sealed class NotAnOptimizer : IOptimizer
        {
            public void apply_gradients(IEnumerable<(Tensor, IVariableV1)> grads_and_vars) { }
        }

        [Test]
        public void ModelOfTwoInputsTrainsOnOneArrayPerInput()
        {
            var a = keras.Input(shape: 3);
            var b = keras.Input(shape: 2);
            var joined = keras.layers.Concatenate().Apply(new Tensors(a, b));
            IModel model = keras.Model(new Tensors(a, b), keras.layers.Dense(1).Apply(joined));
            model.compile(new SGD(0.1f), keras.losses.MeanSquaredError());
            var x = new[] { Data.Uniform(4, 12, 3), Data.Uniform(5, 12, 2) };
            var y = Data.Uniform(6, 12, 1);
            History history = model.fit(x, y, batch_size: 4, epochs: 3, verbose: 0, shuffle: false);
            Assert.AreEqual(3, history["loss"].Count);
            var expected = ((Functional)model).Model.Evaluate(x, y);
            Assert.AreEqual(expected["loss"], model.evaluate(x, y, verbose: 0)["loss"], "the same call as the PascalCase Evaluate");
            Assert.AreEqual(new[] { 12, 1 }, model.predict(x).numpy().Shape);
        }

        [Test]
        public void SequentialStartsWithKerasInput()
        {
            var model = keras.Sequential();
            model.add(keras.Input(shape: 16));
            model.add(keras.layers.Dense(32));
            Assert.AreEqual(new Shape(-1, 32), model.output_shape);
            Assert.AreEqual(new Shape(-1, 16), model.input_shape);
            Assert.Throws<TfNetTrainArgumentException>(() => keras.Sequential(new[] { keras.layers.Dense(1) }).add(keras.Input(shape: 2)),
                "keras.Input after a layer is refused");
        }

        [Test]
        public void NestedSequentialPredicts()
        {
            var block = keras.Sequential(new[]
            {
                keras.layers.InputLayer(new Shape(3, 3)),
                keras.Sequential(new[] { keras.layers.Flatten(), keras.layers.Dense(5) }),
            });
            block.compile(keras.optimizers.Adam(), keras.losses.CategoricalCrossentropy());
            Assert.AreEqual(new[] { 1, 5 }, block.predict(new NDArray(new float[9], 1, 3, 3)).numpy().Shape);
        }

        [Test]
        public void SaveWeightsWritesHdf5UnderAnyNameAsTensorFlowNetDoes()
        {
            // MnistGAN writes "Model_0_g.weights": TF.NET's save_weights is HDF5 whatever the extension
            string folder = System.IO.Path.Combine(System.IO.Path.GetTempPath(), $"face_weights_{Guid.NewGuid():N}");
            System.IO.Directory.CreateDirectory(folder);
            try
            {
                Func<Sequential> make = () =>
                {
                    var m = keras.Sequential();
                    m.add(keras.layers.Input(shape: 3));
                    m.add(keras.layers.Dense(2));
                    return m;
                };
                var a = make();
                var b = make();
                var x = new NDArray(new[] { 1f, 2f, 3f, -1f, 0.5f, 4f }, 2, 3);
                string path = System.IO.Path.Combine(folder, "Model_0_g.weights");
                a.save_weights(path);
                byte[] head = System.IO.File.ReadAllBytes(path).Take(4).ToArray();
                CollectionAssert.AreEqual(new byte[] { 0x89, (byte)'H', (byte)'D', (byte)'F' }, head, "an HDF5 file");
                CollectionAssert.AreEqual(new[] { "Model_0_g.weights" }, System.IO.Directory.GetFiles(folder).Select(System.IO.Path.GetFileName));
                Assert.IsFalse(a.predict(x).numpy().BitwiseEquals(b.predict(x).numpy()), "two fresh models differ");
                b.load_weights(path);
                Assert.IsTrue(a.predict(x).numpy().BitwiseEquals(b.predict(x).numpy()), "the loaded weights predict the same");
                string junk = System.IO.Path.Combine(folder, "junk.weights");
                System.IO.File.WriteAllText(junk, "not HDF5");
                var before = b.get_weights();
                var error = Assert.Throws<TfNetTrainArgumentException>(() => b.load_weights(junk));
                StringAssert.Contains("junk.weights", error.Message);
                Assert.IsTrue(before[0].BitwiseEquals(b.get_weights()[0]), "a failed load changes no weight");
            }
            finally
            {
                System.IO.Directory.Delete(folder, true);
            }
        }

        [Test]
        public void RegularizersAddTheirPenaltyToTheLoss()
        {
            var model = keras.Sequential();
            model.add(keras.layers.Input(shape: 3));
            model.add(keras.layers.Dense(2, kernel_initializer: "ones", use_bias: false, kernel_regularizer: keras.regularizers.l2(0.5f)));
            model.compile(keras.optimizers.SGD(0f), keras.losses.MeanSquaredError());
            var x = new NDArray(new float[12], 4, 3);
            var y = new NDArray(new float[8], 4, 2);
            // zero inputs and targets: the loss is the penalty alone, 0.5 * sum of six squared ones
            Assert.AreEqual(3f, model.evaluate(x, y, verbose: 0)["loss"], 1e-6f);
            Assert.AreEqual("L1L2", keras.regularizers.L1L2.ClassName);
            Assert.AreEqual(0.01f, (float)keras.regularizers.L2.Config["l2"], 1e-9f, "TF.NET's default");
            Assert.AreEqual("L1", keras.regularizers.GetRegularizerFromName("L1").ClassName);
            var error = Assert.Throws<TfNetTrainArgumentException>(() => keras.regularizers.GetRegularizerFromName("L3"));
            StringAssert.Contains("L3", error.Message);
        }

        [Test]
        public void NpLoadReadsNpyFilesAndRowsZip()
        {
            string folder = System.IO.Path.Combine(System.IO.Path.GetTempPath(), $"face_npy_{Guid.NewGuid():N}");
            System.IO.Directory.CreateDirectory(folder);
            try
            {
                // a .npy written byte by byte from the format's description: magic, version 1.0, header, data
                string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
                header = header.PadRight(64 - 10 - 1) + "\n";
                var bytes = new List<byte> { 0x93, (byte)'N', (byte)'U', (byte)'M', (byte)'P', (byte)'Y', 1, 0, (byte)header.Length, 0 };
                bytes.AddRange(System.Text.Encoding.ASCII.GetBytes(header));
                foreach (float v in new[] { 1f, 2f, 3f, 4f }) bytes.AddRange(BitConverter.GetBytes(v));
                string path = System.IO.Path.Combine(folder, "kernel1.npy");
                System.IO.File.WriteAllBytes(path, bytes.ToArray());
                NDArray loaded = np.load(path);
                Assert.AreEqual(new Shape(2, 2), loaded.shape);
                Assert.AreEqual(new[] { 1f, 2f, 3f, 4f }, loaded.ToArray<float>());
                var same = new NDArray(new[] { 1f, 2f, 3f, 4f }, 2, 2);
                var other = new NDArray(new[] { 1f, 2f, 3f, 5f }, 2, 2);
                Assert.IsTrue(loaded.Zip(same).All(p => p.First == p.Second));
                Assert.IsFalse(loaded.Zip(other).All(p => p.First == p.Second));
                Assert.AreEqual(2, loaded.Zip(same).Count());
                string junk = System.IO.Path.Combine(folder, "junk.npy");
                System.IO.File.WriteAllText(junk, "not numpy");
                var error = Assert.Throws<TfNetTrainArgumentException>(() => np.load(junk));
                StringAssert.Contains("junk.npy", error.Message);
            }
            finally
            {
                System.IO.Directory.Delete(folder, true);
            }
        }

        [Test]
        public void FitTakesTensorFlowNetsQueueArgumentsAndTensorsCarryAName()
        {
            var model = keras.Sequential();
            model.add(keras.layers.Input(shape: 3));
            model.add(keras.layers.Dense(1));
            model.compile(keras.optimizers.SGD(0.1f), keras.losses.MeanSquaredError());
            var x = new NDArray(new[] { 1f, 2f, 3f, 0f, 1f, 0f }, 2, 3);
            var y = new NDArray(new[] { 1f, 0f }, 2, 1);
            var before = model.get_weights()[0].ToArray<float>();
            var error = Assert.Throws<TfNetTrainArgumentException>(() => model.fit(x, y, epochs: 1, verbose: 0, max_queue_size: 0));
            Assert.AreEqual("max_queue_size", error.ParamName);
            CollectionAssert.AreEqual(before, model.get_weights()[0].ToArray<float>(), "a refused fit changes no weight");
            Assert.AreEqual(1, model.fit(x, y, epochs: 1, verbose: 0, workers: 16, use_multiprocessing: true).history["loss"].Count);
            var outputs = new Tensors(tf.constant(1f), tf.constant(2f)) { Name = "pair" };
            Assert.AreEqual("pair", outputs.Name);
        }

        [Test]
        public void LayerWeightsAreListedAsKerasListsThem()
        {
            var model = keras.Sequential();
            model.add(keras.layers.Dense(4, input_shape: 3));
            var norm = keras.layers.BatchNormalization();
            model.add(norm);
            model.summary();
            Assert.AreEqual(4, norm.Weights.Count);
            Assert.AreEqual(2, norm.TrainableWeights.Count);
            Assert.AreEqual(2, norm.NonTrainableWeights.Count);
            Assert.AreEqual(1, norm.Weights.Count(w => w.Name.StartsWith("gamma")));
            var gamma = (ResourceVariable)norm.Weights.Single(w => w.Name.StartsWith("gamma"));
            Assert.AreEqual("gamma:0", gamma.Name, "TF.NET's eager name: no layer scope, output suffix");
            StringAssert.EndsWith("/gamma", gamma.Path);
        }

        [Test]
        public void FaceCompileNamingNoSemanticsUsesFaceOptionsThenTheEnvironment()
        {
            string before = Environment.GetEnvironmentVariable(FaceOptions.SemanticsVariable);
            try
            {
                Environment.SetEnvironmentVariable(FaceOptions.SemanticsVariable, null);
                Assert.AreEqual("keras", FaceOptions.Semantics);
                Environment.SetEnvironmentVariable(FaceOptions.SemanticsVariable, "tfnet");
                Assert.AreEqual("tfnet", FaceOptions.Semantics);

                // Rnn.Test's SimpleRNN case: CategoricalCrossentropy on (N, 1) class ids, which only TF.NET's numbers take
                var input = keras.Input(4);
                var output = keras.layers.Dense(3, activation: "softmax").Apply(input);
                var model = keras.Model(input, output);
                model.compile(keras.optimizers.Adam(), keras.losses.CategoricalCrossentropy(), new[] { "accuracy" });
                var x = np.random.randn(8, 4).astype(np.float32);
                var ids = np.array(new float[] { 0, 1, 2, 0, 1, 2, 0, 1 }).reshape((8, 1));
                model.fit(x, ids, batch_size: 4, epochs: 1, verbose: 0);

                FaceOptions.Semantics = "keras";  // set in code: wins over the environment
                var strict = keras.Model(input, output);
                strict.compile(keras.optimizers.Adam(), keras.losses.CategoricalCrossentropy(), new[] { "accuracy" });
                Assert.Throws<TfNetTrainArgumentException>(() => strict.fit(x, ids, batch_size: 4, epochs: 1, verbose: 0));

                Environment.SetEnvironmentVariable(FaceOptions.SemanticsVariable, "TFNET");
                FaceOptions.Semantics = null;
                var bad = Assert.Throws<TfNetTrainArgumentException>(() => { var s = FaceOptions.Semantics; });
                Assert.AreEqual(FaceOptions.SemanticsVariable, bad.ParamName);
                StringAssert.Contains("\"TFNET\"", bad.Message);
            }
            finally
            {
                FaceOptions.Semantics = null;
                Environment.SetEnvironmentVariable(FaceOptions.SemanticsVariable, before);
            }
        }

        /// <summary>What SciSharp's examples write: a LayersApi of their own (<c>new LayersApi()</c>) and the dataset pass
        /// deconstructed into four arrays (mcs spells the deconstruction as the call).</summary>
        [Test]
        public void ExamplesOwnLayersApiAndFourWayDatasetPass()
        {
            var layers = new LayersApi();
            keras.datasets.digits.load_data().Deconstruct(out NDArray x_train, out NDArray y_train, out NDArray x_test, out NDArray y_test);
            Assert.AreEqual(x_train.shape[0], y_train.shape[0]);
            Assert.AreEqual(x_test.shape[0], y_test.shape[0]);
            Assert.AreEqual(1797L, x_train.shape[0] + x_test.shape[0], "scikit-learn's digits, split in two");
            ValueTuple<NDArray, NDArray> train, test;
            keras.datasets.digits.load_data().Deconstruct(out train, out test);
            Assert.AreEqual(train.Item1.ToArray<float>(), x_train.ToArray<float>(), "both deconstructions give the same rows");
            var model = keras.Sequential(new List<ILayer> { layers.Dense(10, activation: "softmax", input_shape: 64) });
            model.compile(new SGD(0.1f), keras.losses.SparseCategoricalCrossentropy(), new[] { "accuracy" });
            model.fit(x_train, y_train, batch_size: 64, epochs: 1, verbose: 0);
            Assert.AreEqual(new[] { (int)x_test.shape[0], 10 }, model.predict(x_test).numpy().Shape);
        }

        /// <summary>keras.datasets.mnist and the others are Keras's loaders (here replaced in Python by small arrays:
        /// the machine has no download); a failed download is a TfNetTrainIOException naming the dataset.</summary>
        [Test]
        public void KerasDatasetsLoadThroughKeras()
        {
            PyScript.Run(
                "import keras, numpy as np\n" +
                "m = keras.datasets.mnist; c = keras.datasets.cifar10\n" +
                "m.saved_load_data, c.saved_load_data = m.load_data, c.load_data\n" +
                "x = np.arange(2 * 28 * 28, dtype=np.uint8).reshape(2, 28, 28); y = np.array([3, 7], np.uint8)\n" +
                "m.load_data = lambda: ((x, y), (x[:1], y[:1]))\n" +
                "def offline(): raise Exception('URL fetch failure: no route')\n" +
                "c.load_data = offline\n");
            try
            {
                keras.datasets.mnist.load_data().Deconstruct(out NDArray x_train, out NDArray y_train, out NDArray x_test, out NDArray y_test);
                Assert.AreEqual(new[] { 2, 28, 28 }, x_train.Shape);
                Assert.AreEqual(TF_DataType.TF_UINT8, x_train.dtype);
                Assert.AreEqual(new byte[] { 3, 7 }, y_train.ToArray<byte>());
                Assert.AreEqual((byte)255, x_train.ToArray<byte>()[255]);
                Assert.AreEqual(new[] { 1, 28, 28 }, x_test.Shape);
                var error = Assert.Throws<TfNetTrainIOException>(() => keras.datasets.cifar10.load_data());
                StringAssert.Contains("keras.datasets.cifar10.load_data()", error.Message);
                StringAssert.Contains("URL fetch failure", error.Message);
            }
            finally
            {
                PyScript.Run("import keras\nfor d in (keras.datasets.mnist, keras.datasets.cifar10): d.load_data = d.saved_load_data\n");
            }
        }
    }
}
