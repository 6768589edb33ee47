using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using NUnit.Framework;
using TfNetTrain.TensorFlowNet;
using static TfNetTrain.TensorFlowNet.KerasApi;

namespace TfNetTrain.Tests
{
    /// <summary>
    /// Transfer learning from C#: a tf.keras 2 ".h5" written by tf-keras in another process, loaded with its weights,
    /// frozen, given a new head and fine-tuned (equal to the same steps in Python, bit for bit); Pop, GetLayer, a
    /// loaded model as a layer, parameter counts, Export checked with TensorFlow and ONNX Runtime; both spellings.
    /// </summary>
    [TestFixture]
    public class TransferTests
    {
        private string _folder;

        /// <summary>What tf-keras writes: a functional base (Dense, BatchNormalization, Dense head), trained a little.</summary>
        private const string Writer =
            "import sys\n" +
            "import numpy as np\n" +
            "import tf_keras\n" +
            "folder = sys.argv[1]\n" +
            "tf_keras.utils.set_random_seed(3)\n" +
            "rng = np.random.default_rng(7)\n" +
            "x = rng.normal(size=(16, 6)).astype('float32'); y = rng.integers(0, 3, size=16)\n" +
            "inputs = tf_keras.Input(shape=(6,), name='features')\n" +
            "h = tf_keras.layers.Dense(8, activation='relu', name='base_dense')(inputs)\n" +
            "h = tf_keras.layers.BatchNormalization(name='base_norm')(h)\n" +
            "outputs = tf_keras.layers.Dense(3, name='head')(h)\n" +
            "model = tf_keras.Model(inputs, outputs)\n" +
            "model.compile(optimizer=tf_keras.optimizers.Adam(0.01),\n" +
            "              loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=['accuracy'])\n" +
            "model.fit(x, y, epochs=2, verbose=0)\n" +
            "model.save(folder + '/base.h5')\n" +
            "np.savez(folder + '/base.npz', *model.get_weights())\n";

        [TestFixtureSetUp]
        public void WriteLegacyFile()
        {
            _folder = Path.Combine(Path.GetTempPath(), "tfnet-train-transfer-" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(_folder);
            File.WriteAllText(Path.Combine(_folder, "writer.py"), Writer);
            RunPython(Path.Combine(_folder, "writer.py"), _folder);
        }

        [TestFixtureTearDown]
        public void RemoveFolder()
        {
            if (Directory.Exists(_folder)) Directory.Delete(_folder, recursive: true);
        }

        private string BaseH5 => Path.Combine(_folder, "base.h5");

        private static void RunPython(string script, params string[] arguments)
        {
            string python = PythonSetup.Runtime.Location.ProgramName;
            var info = new ProcessStartInfo(python)
            {
                Arguments = string.Join(" ", new[] { script }.Concat(arguments).Select(a => "\"" + a + "\"")),
                UseShellExecute = false,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
            };
            info.EnvironmentVariables["TF_CPP_MIN_LOG_LEVEL"] = "3";
            using (var process = Process.Start(info))
            {
                var error = process.StandardError.ReadToEndAsync();
                string output = process.StandardOutput.ReadToEnd();
                Assert.IsTrue(process.WaitForExit(600000), "the tf-keras writer did not finish");
                Assert.AreEqual(0, process.ExitCode, "the tf-keras writer failed:\n" + output + "\n" + error.Result);
            }
        }

        private static NDArray X(int seed, int n = 8) => Data.Uniform(seed, n, 6);

        [Test]
        public void LegacyH5LoadsWithTheWritersWeightsAndTrainingConfiguration()
        {
            using (var model = Keras.Models.LoadModel(BaseH5))
            {
                var expected = PyScript.Run("d = np.load(path)\nput('w', [d[f'arr_{i}'] for i in range(len(d.files))])\n", "path", Path.Combine(_folder, "base.npz"));
                Data.AssertBitwise(expected, "w", model.GetWeights(), "weights");
                var logs = model.TrainOnBatch(X(1), Data.Labels(2, 8, 3));
                CollectionAssert.AreEquivalent(new[] { "loss", "accuracy" }, logs.Keys);
                CollectionAssert.AreEqual(new[] { "base_dense", "base_norm", "head" }, model.Layers.Skip(1).Select(l => l.Name).ToArray());
            }
        }

        [Test]
        public void FreezeNewHeadAndFineTuneEqualPythonBitForBit()
        {
            var xs = Enumerable.Range(0, 3).Select(i => X(10 + i)).ToList();
            var ys = Enumerable.Range(0, 3).Select(i => Data.Labels(20 + i, 8, 5)).ToList();
            var weights = new List<NDArray>();
            var losses = new List<float>();
            using (var loaded = Keras.Models.LoadModel(BaseH5))
            {
                ModelLayer dense = loaded.GetLayer("base_dense");
                dense.Trainable = false;
                Assert.IsFalse(dense.Trainable);
                Keras.SetRandomSeed(0);
                SymbolicTensor input = Keras.Input(6);
                SymbolicTensor features = loaded.GetLayer("base_norm").Apply(dense.Apply(input));
                using (var model = Keras.Model(input, Layers.Dense(5, name: "new_head").Apply(features)))
                {
                    Assert.AreEqual(8 * 5 + 5 + 8 * 2, model.TrainableParamCount, "new head and BatchNormalization's gamma, beta");
                    Assert.AreEqual(6 * 8 + 8 + 8 * 2, model.NonTrainableParamCount, "frozen Dense and moving statistics");
                    StringAssert.Contains("Trainable params", model.Summary());
                    model.Compile(Optimizers.Adam(0.01f), Losses.SparseCategoricalCrossentropy(fromLogits: true));
                    for (int i = 0; i < xs.Count; i++) losses.Add(model.TrainOnBatch(xs[i], ys[i])["loss"]);
                    weights.AddRange(model.GetWeights());
                    // Unfreeze, recompile (Keras 3 fixes the trainable state at compile) and fine-tune at a lower rate.
                    dense.Trainable = true;
                    model.Compile(Optimizers.Adam(0.001f), Losses.SparseCategoricalCrossentropy(fromLogits: true));
                    losses.Add(model.TrainOnBatch(xs[0], ys[0])["loss"]);
                    weights.AddRange(model.GetWeights());
                }
            }
            var expected = PyScript.Run(
                "base = tfnet_train.load_model(path)\n" +
                "dense = base.get_layer('base_dense'); dense.trainable = False\n" +
                "keras.utils.set_random_seed(0)\n" +
                "inp = keras.Input((6,))\n" +
                "logits = keras.layers.Dense(5, name='new_head')(base.get_layer('base_norm')(dense(inp)))\n" +
                "model = tfnet_train.Model(inp, logits)\n" +
                "model.compile(optimizer=keras.optimizers.Adam(0.01), loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))\n" +
                "losses = [model.train_on_batch(x, y, return_dict=True)['loss'] for x, y in zip(xs, ys)]\n" +
                "w = model.get_weights()\n" +
                "dense.trainable = True\n" +
                "model.compile(optimizer=keras.optimizers.Adam(0.001), loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))\n" +
                "losses.append(model.train_on_batch(xs[0], ys[0], return_dict=True)['loss'])\n" +
                "put('loss', [np.float32(v) for v in losses])\n" +
                "put('w', w + model.get_weights())\n",
                "path", BaseH5, "xs", xs, "ys", ys);
            for (int i = 0; i < losses.Count; i++) Data.AssertBitwise(expected["loss/" + i], losses[i], "loss " + i);
            Data.AssertBitwise(expected, "w", weights, "weights");
        }

        [Test]
        public void FrozenLayersKeepTheirWeightsAfterRecompile()
        {
            using (var model = Keras.Models.LoadModel(BaseH5))
            {
                ModelLayer dense = model.GetLayer("base_dense");
                dense.Trainable = false;
                model.Compile(Optimizers.SGD(0.1f), Losses.SparseCategoricalCrossentropy(fromLogits: true));
                var before = model.GetWeights();
                model.Fit(X(3, 16), Data.Labels(4, 16, 3), batchSize: 8, epochs: 1, verbose: 0);
                var after = model.GetWeights();
                Data.AssertBitwise(before[0], after[0], "frozen kernel");
                Data.AssertBitwise(before[1], after[1], "frozen bias");
                Assert.IsFalse(before.Last().BitwiseEquals(after.Last()), "the head trains");
            }
        }

        [Test]
        public void PopAndALoadedModelAsTheBaseOfASequential()
        {
            using (var base_ = Keras.Models.LoadModel(BaseH5, compile: false))
            {
                var layers = base_.Layers;
                Assert.AreEqual(4, layers.Count);
                using (var trunk = Keras.Sequential(new object[] { Layers.Input(6), layers[1], layers[2] }, name: "trunk"))
                {
                    Assert.AreEqual("BatchNormalization", trunk.Pop().ClassName);
                    Assert.AreEqual(1, trunk.Layers.Count);
                    Assert.AreEqual(2, trunk.WeightNames.Count);
                    var error = Assert.Throws<TfNetTrainArgumentException>(() => base_.Pop());
                    StringAssert.Contains("Sequential", error.Message);
                    Assert.Throws<TfNetTrainArgumentException>(() => base_.GetLayer("nope"));
                }
                Keras.SetRandomSeed(1);
                using (var model = Keras.Sequential(new object[] { Layers.Input(6), base_, Layers.Dense(10, name: "digits") }))
                {
                    ModelLayer inner = model.Layers[0];
                    Assert.IsTrue(inner.IsModel);
                    inner.Trainable = false;
                    Assert.AreEqual(10 * 3 + 10, model.TrainableParamCount);
                    model.Compile(Optimizers.Adam(0.01f), Losses.SparseCategoricalCrossentropy(fromLogits: true));
                    var frozen = base_.GetWeights();
                    model.Fit(X(5, 16), Data.Labels(6, 16, 10), batchSize: 8, epochs: 1, verbose: 0);
                    var now = base_.GetWeights();
                    for (int i = 0; i < frozen.Count; i++) Data.AssertBitwise(frozen[i], now[i], "base weight " + i);
                }
            }
        }

        [Test]
        public void ExportsLoadBackInTensorFlowAndOnnxRuntime()
        {
            using (var model = Keras.Models.LoadModel(BaseH5))
            {
                NDArray x = X(7, 5);
                string served = Path.Combine(_folder, "served");
                string onnx = Path.Combine(_folder, "model.onnx");
                model.Export(served);
                model.Export(onnx, "onnx");
                var result = PyScript.Run(
                    "import onnxruntime\n" +
                    "from tfnet_train.tolerances import allclose\n" +
                    "expected = model.predict(x, verbose=0)\n" +
                    "loaded = tf.saved_model.load(served_path)\n" +
                    "served = loaded.serve(x).numpy()\n" +
                    "s = onnxruntime.InferenceSession(onnx_path, providers=['CPUExecutionProvider'])\n" +
                    "o = s.run(None, {s.get_inputs()[0].name: x})[0]\n" +
                    "put('ok', [np.int32(allclose(served, expected)), np.int32(allclose(o, expected))])\n",
                    "model", model, "x", x, "served_path", served, "onnx_path", onnx);
                Assert.AreEqual(1, result["ok/0"].GetDouble(0), "SavedModel serve equals predict");
                Assert.AreEqual(1, result["ok/1"].GetDouble(0), "ONNX Runtime equals predict");
                var error = Assert.Throws<TfNetTrainArgumentException>(() => model.Export(Path.Combine(_folder, "m"), "tflite"));
                StringAssert.Contains("format must be one of", error.Message);
                Assert.IsFalse(File.Exists(Path.Combine(_folder, "m")) || Directory.Exists(Path.Combine(_folder, "m")));
            }
        }

        [Test]
        public void BadFilesAreRefusedNamingThePath()
        {
            string weights = Path.Combine(_folder, "only.weights.h5");
            using (var model = Keras.Models.LoadModel(BaseH5)) model.SaveWeights(weights);
            var error = Assert.Throws<TfNetTrainArgumentException>(() => Keras.Models.LoadModel(weights));
            StringAssert.Contains("only.weights.h5", error.Message);
            StringAssert.Contains("weights only", error.Message);
            string text = Path.Combine(_folder, "notes.keras");
            File.WriteAllText(text, "hello");
            error = Assert.Throws<TfNetTrainArgumentException>(() => Keras.Models.LoadModel(text));
            StringAssert.Contains("none of the model formats", error.Message);
        }

        [Test]
        public void TensorFlowNetSpellings()
        {
            Functional model = keras.models.load_model(BaseH5);
            try
            {
                List<ILayer> layers = model.Layers;
                Assert.AreEqual("base_dense", layers[1].Name);
                var dense = (Layer)layers[1];
                Assert.IsTrue(dense.trainable);
                dense.trainable = false;
                Assert.IsFalse(((Layer)model.get_layer("base_dense")).trainable);
                Assert.AreEqual(6 * 8 + 8 + 8 * 2, model.non_trainable_params);
                Assert.AreEqual(8 * 2 + 8 * 3 + 3, model.trainable_params);
                Assert.AreEqual(6 * 8 + 8, dense.count_params());
                model.compile(keras.optimizers.Adam(learning_rate: 0.01f), keras.losses.SparseCategoricalCrossentropy(from_logits: true));
                var before = model.get_weights();
                model.fit(X(8, 16), Data.Labels(9, 16, 3), batch_size: 8, epochs: 1, verbose: 0);
                Data.AssertBitwise(before[0], model.get_weights()[0], "frozen kernel");
                string path = Path.Combine(_folder, "face.keras");
                model.save(path);
                model.export(Path.Combine(_folder, "face.onnx"), "onnx");
                Assert.IsTrue(File.Exists(Path.Combine(_folder, "face.onnx")));
                Functional again = keras.models.load_model(path);
                try
                {
                    Assert.IsFalse(((Layer)again.get_layer("base_dense")).trainable, "the flag is saved");
                    var seq = keras.Sequential();
                    seq.add(keras.layers.InputLayer(6));
                    seq.add(again);
                    seq.add(keras.layers.Dense(10));
                    Assert.AreEqual(16 + 3 * 8 + 3 + 10 * 3 + 10, seq.trainable_params, "base_dense stays frozen");
                    Assert.AreEqual(2, seq.Layers.Count, "the base model and the head, as Keras lists them");
                    ILayer head = seq.pop();
                    Assert.AreEqual("Dense", ((Layer)head).Spec.ClassName);
                }
                finally
                {
                    again.Dispose();
                }
            }
            finally
            {
                model.Dispose();
            }
        }
    }
}
