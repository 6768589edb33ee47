using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using NUnit.Framework;
using TfNetTrain.TensorFlowNet;
using static TfNetTrain.TensorFlowNet.Binding;
using static TfNetTrain.TensorFlowNet.KerasApi;

namespace TfNetTrain.Tests
{
    /// <summary>
    /// Members TF.NET programs use as they write them: the fit result's history through ICallback, IModel.save,
    /// tf.Context.reset_context, metric shorthands under TF.NET's names, math_ops, np.newaxis among slices,
    /// Tensors deconstruction, Layer.get_config, IDatasetV2.FirstInputTensorCount, two-input models from a tuple.
    /// </summary>
    [TestFixture]
    public class TensorFlowNetProgramTests
    {
        private static Functional Dense3To2()
        {
            var inputs = keras.Input(shape: 3);
            return keras.Model(inputs, keras.layers.Dense(2).Apply(inputs));
        }

        private static string TempPath(string name) => Path.Combine(Path.GetTempPath(), "tfnet-program-" + Guid.NewGuid().ToString("N"), name);

        [Test]
        public void FitResultGivesItsHistoryThroughICallback()
        {
            IModel model = Dense3To2();
            model.compile(new SGD(0.1f), keras.losses.MeanSquaredError());
            ICallback result = model.fit(Data.Uniform(1, 16, 3), Data.Uniform(2, 16, 2), batch_size: 8, epochs: 3, verbose: 0);
            Assert.AreEqual(3, result.history["loss"].Count);
            CollectionAssert.AreEqual(((History)result).Values["loss"], result.history["loss"]);
            ICallback spec = new EarlyStopping("loss");
            Assert.AreEqual(0, spec.history.Count, "a Keras callback spec records no history");
        }

        /// <summary>TF.NET's full type names in method bodies (MnistGAN's <c>Tensorflow.Keras.Activation activation =
        /// null</c>): the same objects as the face's, so either spelling builds the same model.</summary>
        [Test]
        public void TypesSpelledByTheirFullTfNetNamesAreTheFaceTypes()
        {
            Tensorflow.Keras.Activation none = null;
            Tensorflow.Keras.Activation relu = keras.activations.Relu;
            TfNetTrain.TensorFlowNet.Activation same = relu;
            Assert.AreEqual("relu", (string)same);
            var inputs = keras.Input(shape: 3);
            var hidden = keras.layers.Dense(4, activation: relu).Apply(inputs);
            var outputs = keras.layers.Dense(2, activation: none).Apply(hidden);
            Tensorflow.Keras.Engine.Model model = keras.Model(inputs, outputs) as Tensorflow.Keras.Engine.Model;
            Assert.IsNotNull(model, "keras.Model gives a Tensorflow.Keras.Engine.Model");
            Assert.IsInstanceOf<Tensorflow.Keras.Engine.Model>(keras.Sequential());
            StringAssert.Contains("\"activation\": \"relu\"", ((Layer)model.Layers[1]).get_config().Json);
            StringAssert.Contains("\"activation\": \"linear\"", ((Layer)model.Layers[2]).get_config().Json, "a null activation is linear, as in TF.NET");
        }

        [Test]
        public void SaveWritesAKerasFileOrASavedModelDirectory()
        {
            IModel model = Dense3To2();
            model.compile(new Adam(0.01f), keras.losses.MeanSquaredError());
            var x = Data.Uniform(3, 4, 3);
            string file = TempPath("m.keras");
            Directory.CreateDirectory(Path.GetDirectoryName(file));
            try
            {
                model.save(file);
                using (var loaded = Keras.Models.LoadModel(file))
                {
                    float[] expected = model.predict(x).numpy().ToArray<float>();
                    float[] actual = loaded.Predict(x).ToArray<float>();
                    Assert.AreEqual(expected, actual, "the .keras file holds the same weights");
                }
                string folder = Path.Combine(Path.GetDirectoryName(file), "mnist_model");
                model.save(folder);
                Assert.IsTrue(File.Exists(Path.Combine(folder, "saved_model.pb")), "a path without .keras becomes a SavedModel directory (TF.NET's save_format \"tf\")");
                Assert.IsTrue(File.Exists(Path.Combine(folder, "assets.extra", "model.keras")), "it carries the model to train");
                var reloaded = keras.models.load_model(folder);
                Assert.AreEqual(model.predict(x).numpy().ToArray<float>(), reloaded.predict(x).numpy().ToArray<float>(), "load_model(dir) gives the model back");
                var viaSavedModel = tf.saved_model.load(folder);
                Assert.AreEqual(model.predict(x).numpy().ToArray<float>(), viaSavedModel.predict(x).numpy().ToArray<float>(), "tf.saved_model.load as TF.NET's `as Model` uses it");
                var asTfNetSpells = tf.saved_model.load(folder) as Tensorflow.Keras.Engine.Model;
                Assert.IsNotNull(asTfNetSpells, "a loaded model is a Tensorflow.Keras.Engine.Model, as TF.NET's programs cast it");
                Assert.AreEqual(model.predict(x).numpy().ToArray<float>(), asTfNetSpells.predict(x).numpy().ToArray<float>());
                string inference = folder + "_inference";
                model.save(inference, include_optimizer: false);
                Assert.IsTrue(File.Exists(Path.Combine(inference, "saved_model.pb")));
                Assert.IsFalse(Directory.Exists(Path.Combine(inference, "assets.extra")), "include_optimizer: false writes the inference export only");
                var refused = Assert.Throws<TfNetTrain.TfNetTrainArgumentException>(() => keras.models.load_model(inference));
                StringAssert.Contains("without Keras metadata", refused.Message);
                Assert.Throws<ArgumentException>(() => model.save(file, include_optimizer: false));
                Assert.Throws<ArgumentException>(() => model.save(folder + "2", save_format: "pb"));
                Assert.IsFalse(Directory.Exists(folder + "2"));
            }
            finally
            {
                Directory.Delete(Path.GetDirectoryName(file), true);
            }
        }

        [Test]
        public void SaveToADirectoryReplacesOnlyAnEarlierExport()
        {
            IModel model = Dense3To2();
            model.compile(new Adam(0.01f), keras.losses.MeanSquaredError());
            var x = Data.Uniform(3, 4, 3);
            string results = TempPath("results");
            string root = Path.GetDirectoryName(results);
            Directory.CreateDirectory(results);
            try
            {
                string notes = Path.Combine(results, "notes.txt");
                File.WriteAllText(notes, "a week of results");
                var refused = Assert.Throws<TfNetTrain.TfNetTrainArgumentException>(() => model.save(results));
                StringAssert.Contains("is a folder that is not a SavedModel", refused.Message);
                StringAssert.Contains("notes.txt", refused.Message);
                Assert.AreEqual("ValueError", refused.PythonType);
                Assert.AreEqual("a week of results", File.ReadAllText(notes), "a refused save deletes nothing");
                Assert.AreEqual(new[] { notes }, Directory.GetFileSystemEntries(results));

                string file = Path.Combine(root, "model_file");
                File.WriteAllText(file, "not a model");
                refused = Assert.Throws<TfNetTrain.TfNetTrainArgumentException>(() => model.save(file, include_optimizer: false));
                StringAssert.Contains("is a file, not a SavedModel folder", refused.Message);
                Assert.AreEqual("not a model", File.ReadAllText(file));

                string served = Path.Combine(root, "served");
                model.save(served, overwrite: false);
                float[] first = model.predict(x).numpy().ToArray<float>();
                var exists = Assert.Throws<TfNetTrain.TfNetTrainIOException>(() => model.save(served, overwrite: false));
                StringAssert.Contains("holds an earlier export and overwrite=False", exists.Message);
                Assert.AreEqual("FileExistsError", exists.PythonType);
                model.fit(x, Data.Uniform(5, 4, 2), epochs: 1, verbose: 0);
                float[] trained = model.predict(x).numpy().ToArray<float>();
                Assert.AreNotEqual(first, trained);
                model.save(served); // overwrite: true, TF.NET's default, replaces the earlier export
                Assert.AreEqual(trained, keras.models.load_model(served).predict(x).numpy().ToArray<float>());
                CollectionAssert.AreEquivalent(new[] { "results", "model_file", "served" },
                    Directory.GetFileSystemEntries(root).Select(Path.GetFileName).ToArray(), "no temporary or old copy left");
            }
            finally
            {
                Directory.Delete(root, true);
            }
        }

        [Test]
        public void ResetContextStartsKerasNamesAfresh()
        {
            tf.Context.reset_context();
            string first = Dense3To2().Name;
            string second = Dense3To2().Name;
            Assert.AreNotEqual(first, second, "Keras numbers the names of one session");
            tf.Context.reset_context();
            Assert.AreEqual(first, Dense3To2().Name, "reset_context clears Keras's name counters as clear_session does");
        }

        [Test]
        public void MetricShorthandsAreLoggedUnderTfNetNames()
        {
            var inputs = keras.Input(shape: 3);
            var classifier = keras.Model(inputs, keras.layers.Dense(2, activation: "softmax").Apply(inputs));
            classifier.compile(new SGD(0.1f), keras.losses.SparseCategoricalCrossentropy(), new[] { "acc" });
            var x = Data.Uniform(4, 8, 3);
            float[] labels = { 0, 1, 1, 0, 1, 0, 0, 1 };
            Dictionary<string, float> logs = classifier.evaluate(x, new NDArray(labels, new[] { 8 }), verbose: 0);
            CollectionAssert.Contains(logs.Keys, "accuracy");
            CollectionAssert.DoesNotContain(logs.Keys, "acc");
            float[] p = classifier.predict(x).numpy().ToArray<float>();
            float hits = 0;
            for (int i = 0; i < 8; i++) hits += (p[2 * i + 1] > p[2 * i] ? 1f : 0f) == labels[i] ? 1 : 0;
            Assert.AreEqual(hits / 8, logs["accuracy"], 1e-6, "acc is Keras's sparse categorical accuracy");

            var regressor = Dense3To2();
            regressor.compile("sgd", "mse", new[] { "mae", "mape" });
            var y = Data.Uniform(5, 8, 2);
            logs = regressor.evaluate(x, y, verbose: 0);
            CollectionAssert.Contains(logs.Keys, "mean_absolute_error");
            CollectionAssert.Contains(logs.Keys, "mean_absolute_percentage_error");
            float[] q = regressor.predict(x).numpy().ToArray<float>(), t = y.ToArray<float>();
            Assert.AreEqual(q.Zip(t, (a, b) => Math.Abs(a - b)).Average(), logs["mean_absolute_error"], 1e-6);
        }

        [Test]
        public void MathOpsAreTheTensorFlowOps()
        {
            var d = tf.constant(new float[] { 1, -2, 3, 0.5f });
            float mean = math_ops.reduce_mean(math_ops.square(d)).numpy().ToArray<float>()[0];
            Assert.AreEqual((1f + 4f + 9f + 0.25f) / 4f, mean, 1e-6);
        }

        [Test]
        public void NewAxisAndEllipsisMixWithSlices()
        {
            NDArray a = np.arange(24).astype(np.float32);
            Assert.AreEqual(new[] { 1, 24 }, a[np.newaxis, Slice.All].Shape);
            Assert.AreEqual(new[] { 24, 1 }, a[Slice.All, np.newaxis].Shape);
            NDArray b = a.reshape((2, 3, 4));
            Assert.AreEqual(new[] { 2, 3, 1 }, b[Slice.Ellipsis, new Slice(1, 2)].Shape);
            Assert.AreEqual(5f, b[Slice.Ellipsis, new Slice(1, 2)].ToArray<float>()[1], "b[..., 1:2][0, 1, 0] is b[0, 1, 1] = 5");
            Assert.AreEqual(new long[] { 1, 24 }, tf.constant(a)[np.newaxis, Slice.All].shape.dims);
        }

        [Test]
        public void TensorWithArrayOperandsIsElementwise()
        {
            var W = tf.Variable(2f);
            NDArray x = new NDArray(new float[] { 1, 2, 3 }, new[] { 3 });
            Assert.AreEqual(new float[] { 3, 5, 7 }, (W * x + 1f).numpy().ToArray<float>(), "W * x: every element, not x as one float");
            Assert.AreEqual(new float[] { 1, 0, -1 }, (W - x).numpy().ToArray<float>());
            Assert.AreEqual(new float[] { -1, 0, 1 }, (x - W).numpy().ToArray<float>());
            Assert.AreEqual(new float[] { 3, 4, 5 }, (x + W).numpy().ToArray<float>());
            Assert.AreEqual(new float[] { 2, 4, 6 }, (x * W).numpy().ToArray<float>());
            Assert.AreEqual(new float[] { 2, 1, 2f / 3 }, (W / x).numpy().ToArray<float>());
            Assert.AreEqual(new float[] { 0.5f, 1, 1.5f }, (x / W).numpy().ToArray<float>());
        }

        [Test]
        public void TensorsDeconstructIntoTheFirstAndTheRest()
        {
            Tensor a = tf.constant(1f), b = tf.constant(2f), c = tf.constant(3f);
            Tensor first;
            Tensors rest;
            new Tensors(a, b, c).Deconstruct(out first, out rest);
            Assert.AreSame(a, first);
            Assert.AreEqual(2, rest.Length);
            Assert.AreSame(c, rest[1]);
            new Tensors(a).Deconstruct(out first, out rest);
            Assert.IsNull(rest);
        }

        [Test]
        public void LayerConfigIsKerasConfig()
        {
            var dense = keras.layers.Dense(7, activation: "relu");
            string config = dense.get_config();
            Assert.IsNotInstanceOf<FunctionalConfig>(dense.get_config());
            StringAssert.Contains("\"units\": 7", config);
            StringAssert.Contains("\"activation\": \"relu\"", config);
        }

        [Test]
        public void FromConfigRebuildsAFunctionalModelThroughKeras()
        {
            IModel model = Dense3To2();
            KerasConfig config = model.get_config();
            Assert.IsInstanceOf<FunctionalConfig>(config);
            Assert.IsNotInstanceOf<FunctionalConfig>(keras.Sequential(new List<ILayer> { keras.layers.Dense(1, input_shape: 3) }).get_config());
            Functional rebuilt = new ModelsApi().from_config((FunctionalConfig)config);
            Assert.AreEqual(model.Layers.Count, rebuilt.Layers.Count);
            Assert.AreEqual(new[] { 3, 2 }, rebuilt.get_weights()[0].Shape, "the same architecture: Dense(2) on 3 inputs");
            string text = config;
            StringAssert.Contains("\"input_layers\"", text);
            Assert.AreEqual(text, config.ToString());
            Assert.Throws<ArgumentNullException>(() => keras.models.from_config(null));
        }

        private static Functional TwoInputs()
        {
            var a = keras.Input(shape: 3);
            var b = keras.Input(shape: 3);
            Tensors joined = keras.layers.Concatenate().Apply((a, b));
            return keras.Model((a, b), keras.layers.Dense(1).Apply(joined));
        }

        [Test]
        public void TupleInputsMakeATwoInputModel()
        {
            var model = TwoInputs();
            var x1 = Data.Uniform(5, 4, 3);
            var x2 = Data.Uniform(6, 4, 3);
            float[] expected = model.predict(new[] { x1, x2 }).numpy().ToArray<float>();
            Assert.AreEqual(expected, model.predict((x1, x2)).numpy().ToArray<float>());
            Assert.AreNotEqual(expected, model.predict((x2, x1)).numpy().ToArray<float>(), "the tuple's order is the inputs' order");
        }

        [Test]
        public void FirstInputTensorCountGroupsTheLeadingComponentsAsInputs()
        {
            var model = TwoInputs();
            model.compile(new SGD(0.1f), keras.losses.MeanSquaredError());
            var x1 = Data.Uniform(7, 8, 3);
            var x2 = Data.Uniform(8, 8, 3);
            var y = Data.Uniform(9, 8, 1);
            Func<IDatasetV2> three = () => tf.data.Dataset.zip(tf.data.Dataset.from_tensor_slices(x1), tf.data.Dataset.from_tensor_slices(x2),
                                                               tf.data.Dataset.from_tensor_slices(y)).batch(4);
            float expected = model.evaluate(new[] { x1, x2 }, y, verbose: 0)["loss"];
            var data = three();
            Assert.AreEqual(1, data.FirstInputTensorCount);
            data.FirstInputTensorCount = 2;
            Assert.AreEqual(2, data.FirstInputTensorCount);
            Assert.AreEqual(expected, model.evaluate(data, verbose: 0)["loss"], 1e-6);
            var inputsOnly = tf.data.Dataset.zip(tf.data.Dataset.from_tensor_slices(x1), tf.data.Dataset.from_tensor_slices(x2)).batch(4);
            inputsOnly.FirstInputTensorCount = 2;
            Assert.AreEqual(model.predict(new[] { x1, x2 }).numpy().ToArray<float>(), model.predict(inputsOnly).numpy().ToArray<float>());
            History history = model.fit(data, epochs: 2, verbose: 0);
            Assert.AreEqual(2, history.history["loss"].Count);
            data.FirstInputTensorCount = 1;
            Assert.Throws<TfNetTrainArgumentException>(() => data.ToList(), "ungrouped again: elements of three components, which C# enumeration refuses");
            var other = three();
            Assert.Throws<TfNetTrainArgumentException>(() => other.FirstInputTensorCount = 0);
            Assert.Throws<TfNetTrainArgumentException>(() => other.FirstInputTensorCount = 4);
            Assert.AreEqual(1, other.FirstInputTensorCount, "a refused count changes nothing");
        }
    }
}
