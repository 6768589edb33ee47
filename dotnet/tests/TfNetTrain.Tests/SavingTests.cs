using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using NUnit.Framework;

namespace TfNetTrain.Tests
{
    /// <summary>
    /// Whole-model files, TF.NET's ".h5" weight names, resuming in another process bit for bit, and calls that fail
    /// leaving the model as it was.
    /// </summary>
    [TestFixture]
    public class SavingTests
    {
        private const int Batch = 8;
        private const int Steps = 6;
        private string _folder;

        [SetUp]
        public void MakeFolder()
        {
            _folder = Path.Combine(Path.GetTempPath(), "tfnet-train-saving-" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(_folder);
        }

        [TearDown]
        public void RemoveFolder()
        {
            if (Directory.Exists(_folder)) Directory.Delete(_folder, recursive: true);
        }

        internal static void CompileClassifier(Model model, OptimizerSpec optimizer, string semantics = "keras")
        {
            model.Compile(optimizer, Losses.SparseCategoricalCrossentropy(fromLogits: true), new[] { "accuracy" }, semantics);
        }

        /// <summary>Model and optimizer variables and the train counter, as Python sees them.</summary>
        internal static Dictionary<string, NDArray> State(Model model)
        {
            return PyScript.Run(
                "put('w', model.get_weights())\n" +
                "put('o', [np.asarray(v) for v in model.optimizer.variables])\n" +
                "put('counter', np.asarray(int(model._train_counter.numpy())))\n", "model", model);
        }

        internal static void AssertSameState(Dictionary<string, NDArray> expected, Dictionary<string, NDArray> actual, string what)
        {
            CollectionAssert.AreEquivalent(expected.Keys, actual.Keys, what + ": variables");
            Assert.Greater(expected.Keys.Count(k => k.StartsWith("o/", StringComparison.Ordinal)), 1, what + ": optimizer variables");
            foreach (var key in expected.Keys) Data.AssertBitwise(expected[key], actual[key], what + " " + key);
        }

        private static readonly string[] Profiles = { "keras", "tfnet" };

        private static Dictionary<string, OptimizerSpec> Optimizers_()
        {
            return new Dictionary<string, OptimizerSpec>
            {
                { "sgd_momentum", Optimizers.SGD(0.05f, momentum: 0.9f) },
                { "sgd_nesterov", Optimizers.SGD(0.05f, momentum: 0.9f, nesterov: true) },
                { "adam", Optimizers.Adam(0.01f) },
                { "adamw", Optimizers.AdamW(0.01f, weightDecay: 0.05f) },
                { "rmsprop_momentum", Optimizers.RMSprop(0.01f, momentum: 0.5f) },
            };
        }

        private static void TrainSteps(Model model, IList<NDArray> xs, IList<NDArray> ys, int start, int stop)
        {
            for (int i = start; i < stop; i++) model.TrainOnBatch(xs[i], ys[i]);
        }

        /// <summary>The script a second process runs: open each C# file, train on, save again.</summary>
        private const string ContinueScript =
            "import os, sys\n" +
            "os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')\n" +
            "import numpy as np\n" +
            "import tfnet_train\n" +
            "folder, names, start, stop = sys.argv[1], sys.argv[2].split(','), int(sys.argv[3]), int(sys.argv[4])\n" +
            "data = np.load(os.path.join(folder, 'data.npz'))\n" +
            "for name in names:\n" +
            "    m = tfnet_train.load_model(os.path.join(folder, name + '.keras'))\n" +
            "    assert int(m.optimizer.iterations.numpy()) == start, (name, int(m.optimizer.iterations.numpy()))\n" +
            "    for i in range(start, stop):\n" +
            "        m.train_on_batch(data[f'x{i}'], data[f'y{i}'])\n" +
            "    m.save(os.path.join(folder, name + '.rest.keras'))\n" +
            "print('continued', len(names), flush=True)\n";

        private static void RunPython(string script, params string[] arguments)
        {
            string python = PythonSetup.Runtime.Location.ProgramName;
            string source = PythonSetup.Runtime.Run(() =>
            {
                using (var package = Python.Runtime.Py.Import("tfnet_train"))
                using (var file = package.GetAttr("__file__"))
                {
                    return Path.GetDirectoryName(Path.GetDirectoryName(file.As<string>()));
                }
            });
            var info = new ProcessStartInfo(python)
            {
                Arguments = string.Join(" ", new[] { script }.Concat(arguments).Select(a => "\"" + a + "\"")),
                UseShellExecute = false,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
            };
            info.EnvironmentVariables["PYTHONPATH"] = source;
            info.EnvironmentVariables["TF_CPP_MIN_LOG_LEVEL"] = "3";
            using (var process = Process.Start(info))
            {
                var error = process.StandardError.ReadToEndAsync();
                string output = process.StandardOutput.ReadToEnd();
                Assert.IsTrue(process.WaitForExit(600000), "the second process did not finish");
                Assert.AreEqual(0, process.ExitCode, "second process failed:\n" + output + "\n" + error.Result);
            }
        }

        [Test]
        public void ResumeInAnotherProcessIsBitExactForEveryOptimizerAndProfile()
        {
            var xs = Enumerable.Range(0, Steps).Select(i => Data.Uniform(500 + i, Batch, 4)).ToList();
            var ys = Enumerable.Range(0, Steps).Select(i => Data.Labels(600 + i, Batch, 3)).ToList();
            PyScript.Run(
                "np.savez(path, **{f'x{i}': v for i, v in enumerate(xs)}, **{f'y{i}': v for i, v in enumerate(ys)})\n",
                "path", Path.Combine(_folder, "data.npz"), "xs", xs, "ys", ys);
            var whole = new Dictionary<string, Dictionary<string, NDArray>>();
            var names = new List<string>();
            foreach (string profile in Profiles)
            {
                foreach (var pair in Optimizers_())
                {
                    string name = profile + "_" + pair.Key;
                    names.Add(name);
                    Keras.SetRandomSeed(0);
                    using (var uninterrupted = ModelParityTests.Classifier())
                    {
                        Keras.SetRandomSeed(0);
                        using (var first = ModelParityTests.Classifier())
                        {
                            CompileClassifier(uninterrupted, pair.Value, profile);
                            CompileClassifier(first, pair.Value, profile);
                            TrainSteps(uninterrupted, xs, ys, 0, Steps);
                            whole[name] = State(uninterrupted);
                            TrainSteps(first, xs, ys, 0, 2);
                            first.Save(Path.Combine(_folder, name + ".keras"));
                        }
                    }
                }
            }
            // steps 2..4 in a fresh Python process, steps 4..6 back in C# from the file it wrote
            RunPython(WriteScript("continue.py", ContinueScript), _folder, string.Join(",", names), "2", "4");
            foreach (string name in names)
            {
                using (var resumed = Keras.Models.LoadModel(Path.Combine(_folder, name + ".rest.keras")))
                {
                    Assert.AreEqual(4, resumed.TrainCounter, name + ": train counter in the file");
                    TrainSteps(resumed, xs, ys, 4, Steps);
                    AssertSameState(whole[name], State(resumed), name);
                }
            }
        }

        private string WriteScript(string name, string text)
        {
            string path = Path.Combine(_folder, name);
            File.WriteAllText(path, text);
            return path;
        }

        [Test]
        public void SaveAndLoadModelKeepArchitectureCompileAndState()
        {
            using (var model = ModelParityTests.Classifier())
            {
                CompileClassifier(model, Optimizers.Adam(0.01f));
                NDArray x = Data.Uniform(700, Batch, 4), y = Data.Labels(701, Batch, 3);
                model.TrainOnBatch(x, y);
                string path = Path.Combine(_folder, "model.keras");
                model.Save(path);
                NDArray saved = model.Predict(x);
                Assert.IsTrue(File.Exists(path));
                CollectionAssert.IsEmpty(Directory.GetFiles(_folder).Where(f => !f.EndsWith("model.keras", StringComparison.Ordinal)),
                                         "no temporary file left beside the model");
                using (var loaded = Keras.Models.LoadModel(path))
                {
                    AssertSameState(State(model), State(loaded), "loaded");
                    CollectionAssert.AreEqual(model.WeightShapes, loaded.WeightShapes);
                    Data.AssertBitwise(model.Predict(x), loaded.Predict(x), "predictions");
                    var a = model.TrainOnBatch(x, y);
                    var b = loaded.TrainOnBatch(x, y);
                    CollectionAssert.AreEqual(a, b, "the next step's logs");
                    AssertSameState(State(model), State(loaded), "after one more step");
                }
                using (var uncompiled = Keras.Models.LoadModel(path, compile: false))
                {
                    Data.AssertBitwise(saved, uncompiled.Predict(x), "an uncompiled load predicts the same");
                    var e = Assert.Throws<TfNetTrainArgumentException>(() => uncompiled.TrainOnBatch(x, y));
                    StringAssert.Contains("compile", e.Message);
                }
                var exists = Assert.Throws<TfNetTrainIOException>(() => model.Save(path, overwrite: false));
                StringAssert.Contains("overwrite", exists.Message);
                var missing = Assert.Throws(Is.InstanceOf<TfNetTrainException>(), () => Keras.Models.LoadModel(Path.Combine(_folder, "none.keras")));
                StringAssert.Contains("none.keras", missing.Message);
            }
        }

        [Test]
        public void KerasFilesOpenAndSafeModeRefusesCode()
        {
            string plain = Path.Combine(_folder, "keras.keras");
            string lambda = Path.Combine(_folder, "lambda.keras");
            var expected = PyScript.Run(
                "m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])\n" +
                "m.compile(keras.optimizers.SGD(0.1), 'mse')\n" +
                "m.save(plain)\n" +
                "put('w', m.get_weights())\n" +
                "l = keras.Sequential([keras.Input((4,)), keras.layers.Lambda(lambda t: t * 2.0)])\n" +
                "l.save(lambda_path)\n", "plain", plain, "lambda_path", lambda);
            using (var model = Keras.Models.LoadModel(plain))
            {
                Data.AssertBitwise(expected, "w", model.GetWeights(), "a plain Keras file");
                var types = PyScript.Run("put('engine', np.asarray(isinstance(model, tfnet_train.Model)))\n", "model", model);
                Assert.AreEqual(1.0, types["engine"].GetDouble(0), "opened as an engine model");
            }
            var refused = Assert.Throws<TfNetTrainArgumentException>(() => Keras.Models.LoadModel(lambda));
            StringAssert.Contains("safe_mode", refused.Message);
            using (var trusted = Keras.Models.LoadModel(lambda, safeMode: false))
            {
                NDArray x = Data.Uniform(710, 2, 4);
                var doubled = x.ToArray<float>().Select(v => v * 2f).ToArray();
                CollectionAssert.AreEqual(doubled, trusted.Predict(x).ToArray<float>());
            }
        }

        [Test]
        public void H5NamesHoldTheWeightsH5Content()
        {
            using (var model = ModelParityTests.Classifier())
            using (var other = ModelParityTests.Classifier())
            {
                CompileClassifier(model, Optimizers.Adam(0.01f));
                CompileClassifier(other, Optimizers.Adam(0.01f));
                model.TrainOnBatch(Data.Uniform(720, Batch, 4), Data.Labels(721, Batch, 3));
                string h5 = Path.Combine(_folder, "model.h5");
                string keras = Path.Combine(_folder, "model.weights.h5");
                model.SaveWeights(h5);
                model.SaveWeights(keras);
                other.LoadWeights(h5);
                var expected = State(model);
                expected.Remove("counter"); // weights files hold variables only, as Keras's do
                var loaded = State(other);
                loaded.Remove("counter");
                AssertSameState(expected, loaded, "loaded from .h5");
                var same = PyScript.Run(
                    "import h5py\n" +
                    "def walk(path):\n" +
                    "    items = {}\n" +
                    "    with h5py.File(path, 'r') as f:\n" +
                    "        f.visititems(lambda k, v: items.__setitem__(k, np.asarray(v)) if isinstance(v, h5py.Dataset) else None)\n" +
                    "    return items\n" +
                    "a, b = walk(h5), walk(keras_name)\n" +
                    "put('same', np.asarray(a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)))\n" +
                    "put('count', np.asarray(len(a)))\n", "h5", h5, "keras_name", keras);
                Assert.AreEqual(1.0, same["same"].GetDouble(0), ".h5 and .weights.h5 hold the same datasets");
                Assert.Greater(same["count"].GetDouble(0), 4.0);
                var refused = Assert.Throws<TfNetTrainArgumentException>(() => model.SaveWeights(Path.Combine(_folder, "model.bin")));
                StringAssert.Contains(".weights.h5", refused.Message);
            }
        }

        [Test]
        public void LoadWeightsOfADeeperModelChangesNothing()
        {
            string path = Path.Combine(_folder, "deeper.weights.h5");
            using (var deeper = Keras.Sequential(Layers.Input(4), Layers.Dense(8, activation: "relu"), Layers.Dense(8), Layers.Dense(3)))
            {
                CompileClassifier(deeper, Optimizers.Adam(0.01f));
                deeper.TrainOnBatch(Data.Uniform(732, Batch, 4), Data.Labels(733, Batch, 3));
                deeper.SaveWeights(path);
            }
            using (var model = ModelParityTests.Classifier())
            {
                CompileClassifier(model, Optimizers.Adam(0.01f));
                model.TrainOnBatch(Data.Uniform(730, Batch, 4), Data.Labels(731, Batch, 3));
                var before = State(model);
                var e = Assert.Throws<TfNetTrainArgumentException>(() => model.LoadWeights(path));
                StringAssert.Contains("could not be loaded", e.Message);
                AssertSameState(before, State(model), "after a failed load");
                Assert.Throws<TfNetTrainIOException>(() => model.LoadWeights(Path.Combine(_folder, "missing.weights.h5")));
                AssertSameState(before, State(model), "after loading a missing file");
            }
        }

        [Test]
        public void FitWithBatchSizeZeroChangesNothing()
        {
            using (var model = ModelParityTests.Classifier())
            {
                CompileClassifier(model, Optimizers.SGD(0.1f));
                NDArray x = Data.Uniform(740, 16, 4), y = Data.Labels(741, 16, 3);
                model.TrainOnBatch(x, y);
                var before = State(model);
                foreach (int size in new[] { 0, -3 })
                {
                    var e = Assert.Throws<TfNetTrainArgumentException>(() => model.Fit(x, y, batchSize: size, verbose: 0));
                    Assert.AreEqual("ValueError", e.PythonType);
                    StringAssert.Contains("batch_size must be an integer >= 1, got " + size, e.PythonMessage);
                }
                Assert.AreEqual(1, model.TrainCounter);
                AssertSameState(before, State(model), "after a refused fit");
            }
        }

        [Test]
        public void ValidationDataOfTheWrongWidthFailsBeforeAnyStep()
        {
            using (var model = ModelParityTests.Classifier())
            {
                CompileClassifier(model, Optimizers.SGD(0.1f));
                NDArray x = Data.Uniform(750, 16, 4), y = Data.Labels(751, 16, 3);
                model.TrainOnBatch(x, y);
                var before = State(model);
                var e = Assert.Throws<TfNetTrainArgumentException>(() => model.Fit(
                    x, y, batchSize: 4, epochs: 2, verbose: 0, validationX: Data.Uniform(752, 6, 5), validationY: Data.Labels(753, 6, 3)));
                Assert.AreEqual("validation_data: x has shape (6, 5); the model expects shape (None, 4)", e.PythonMessage);
                Assert.AreEqual(1, model.TrainCounter, "no step ran");
                AssertSameState(before, State(model), "after a refused fit");
            }
        }
    }
}
