using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using NUnit.Framework;

namespace TfNetTrain.Tests
{
    /// <summary>EarlyStopping, ModelCheckpoint and BackupAndRestore from C# do what the same callbacks do in Python.</summary>
    [TestFixture]
    public class KerasCallbackTests
    {
        private string _folder;

        [SetUp]
        public void MakeFolder()
        {
            _folder = Path.Combine(Path.GetTempPath(), "tfnet-train-callbacks-" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(_folder);
        }

        [TearDown]
        public void RemoveFolder()
        {
            if (Directory.Exists(_folder)) Directory.Delete(_folder, recursive: true);
        }

        private const string PythonModel =
            "m = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation='relu'), keras.layers.Dense(3)])\n" +
            "m.set_weights(w0)\n" +
            "m.compile(optimizers.SGD(0.5, momentum=0.9), keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=['accuracy'])\n";

        private static Model CSharpModel()
        {
            var model = ModelParityTests.Classifier();
            SavingTests.CompileClassifier(model, Optimizers.SGD(0.5f, momentum: 0.9f));
            return model;
        }

        private static void AssertHistory(Dictionary<string, NDArray> expected, History history)
        {
            var names = expected.Keys.Where(k => k.StartsWith("h/", StringComparison.Ordinal))
                                .Select(k => k.Split('/')[1]).Distinct().ToList();
            CollectionAssert.AreEquivalent(names, history.Values.Keys, "history names");
            foreach (string name in names)
            {
                Assert.AreEqual(expected.Keys.Count(k => k.StartsWith("h/" + name + "/", StringComparison.Ordinal)), history[name].Count, name + " epochs");
                for (int i = 0; i < history[name].Count; i++) Data.AssertBitwise(expected[$"h/{name}/{i}"], history[name][i], $"{name}[{i}]");
            }
        }

        [Test]
        public void SpecsCarryKerasArguments()
        {
            var stop = new EarlyStopping(monitor: "val_accuracy", minDelta: 0.01f, patience: 3, mode: "max", restoreBestWeights: true);
            Assert.AreEqual("val_accuracy", stop.Monitor);
            Assert.AreEqual(0.01f, stop.MinDelta);
            Assert.AreEqual(3, stop.Patience);
            Assert.AreEqual("max", stop.Mode);
            Assert.IsTrue(stop.RestoreBestWeights);
            StringAssert.StartsWith("EarlyStopping(", stop.ToString());
            StringAssert.Contains("restore_best_weights=True", stop.ToString());
            Assert.AreEqual(5, new BackupAndRestore("b", 5).SaveFreq);
            Assert.AreEqual("epoch", new ModelCheckpoint("m.keras").SaveFreq);
            var e = Assert.Throws<TfNetTrainArgumentException>(() => new EarlyStopping(mode: "up"));
            Assert.AreEqual("mode", e.ParamName);
            Assert.AreEqual("patience", Assert.Throws<TfNetTrainArgumentException>(() => new EarlyStopping(patience: -1)).ParamName);
            Assert.AreEqual("saveFreq", Assert.Throws<TfNetTrainArgumentException>(() => new BackupAndRestore("b", 0)).ParamName);
            Assert.Throws<ArgumentNullException>(() => new ModelCheckpoint(null));
        }

        [Test]
        public void EarlyStoppingWithRestoreBestWeightsMatchesPython()
        {
            NDArray x = Data.Uniform(800, 32, 4), y = Data.Labels(801, 32, 3);
            NDArray vx = Data.Uniform(802, 16, 4), vy = Data.Labels(803, 16, 3);
            using (var model = CSharpModel())
            {
                IList<NDArray> w0 = model.GetWeights();
                var stop = new EarlyStopping(monitor: "val_loss", minDelta: 0.001f, patience: 2, restoreBestWeights: true);
                History history = model.Fit(x, y, batchSize: 8, epochs: 30, verbose: 0, shuffle: false,
                                            validationX: vx, validationY: vy, callbacks: new ICallback[] { stop });
                var expected = PyScript.Run(
                    PythonModel +
                    "es = tfnet_train.callbacks.EarlyStopping(monitor='val_loss', min_delta=0.001, patience=2, restore_best_weights=True)\n" +
                    "h = m.fit(x, y, batch_size=8, epochs=30, verbose=0, shuffle=False, validation_data=(vx, vy), callbacks=[es])\n" +
                    "put('h', h.history)\n" +
                    "put('w', m.get_weights())\n" +
                    "put('stopped', np.asarray(es.stopped_epoch))\n",
                    "w0", w0, "x", x, "y", y, "vx", vx, "vy", vy);
                Assert.Greater(expected["stopped"].GetDouble(0), 0.0, "training stopped early");
                Assert.Less(history.Epochs.Count, 30, "C# training stopped early too");
                AssertHistory(expected, history);
                Data.AssertBitwise(expected, "w", model.GetWeights(), "restored best weights");
                int best = history["val_loss"].Select((v, i) => new { v, i }).OrderBy(p => p.v).First().i;
                Assert.Less(best, history.Epochs.Count - 1, "the best epoch is not the last, so restoring mattered");
            }
        }

        private static Dictionary<string, string> Files(string folder)
        {
            return Directory.GetFiles(folder).ToDictionary(Path.GetFileName, f => f);
        }

        [Test]
        public void ModelCheckpointWritesThePythonFiles()
        {
            NDArray x = Data.Uniform(810, 24, 4), y = Data.Labels(811, 24, 3);
            string mine = Path.Combine(_folder, "csharp"), theirs = Path.Combine(_folder, "python");
            Directory.CreateDirectory(mine);
            Directory.CreateDirectory(theirs);
            using (var model = CSharpModel())
            {
                IList<NDArray> w0 = model.GetWeights();
                model.Fit(x, y, batchSize: 8, epochs: 3, verbose: 0, shuffle: false, callbacks: new ICallback[]
                {
                    new ModelCheckpoint(Path.Combine(mine, "w-{epoch:02d}.weights.h5"), saveWeightsOnly: true),
                    new ModelCheckpoint(Path.Combine(mine, "best.keras"), monitor: "loss", saveBestOnly: true),
                    new ModelCheckpoint(Path.Combine(mine, "step.weights.h5"), 2, saveWeightsOnly: true),
                });
                PyScript.Run(
                    PythonModel +
                    "cb = tfnet_train.callbacks\n" +
                    "m.fit(x, y, batch_size=8, epochs=3, verbose=0, shuffle=False, callbacks=[\n" +
                    "    cb.ModelCheckpoint(folder + '/w-{epoch:02d}.weights.h5', save_weights_only=True),\n" +
                    "    cb.ModelCheckpoint(folder + '/best.keras', monitor='loss', save_best_only=True),\n" +
                    "    cb.ModelCheckpoint(folder + '/step.weights.h5', save_freq=2, save_weights_only=True)])\n",
                    "w0", w0, "x", x, "y", y, "folder", theirs);
            }
            var a = Files(mine);
            var b = Files(theirs);
            CollectionAssert.AreEquivalent(b.Keys, a.Keys, "the same files");
            CollectionAssert.IsSubsetOf(new[] { "w-01.weights.h5", "w-03.weights.h5", "best.keras", "step.weights.h5" }, a.Keys);
            foreach (string name in a.Keys)
            {
                var same = PyScript.Run(
                    "import h5py, zipfile, io, json\n" +
                    "def datasets(f):\n" +
                    "    items = {}\n" +
                    "    f.visititems(lambda k, v: items.__setitem__(k, np.asarray(v)) if isinstance(v, h5py.Dataset) else None)\n" +
                    "    return items\n" +
                    "def read(path):\n" +
                    "    if path.endswith('.keras'):\n" +
                    "        with zipfile.ZipFile(path) as z:\n" +
                    "            with h5py.File(io.BytesIO(z.read('model.weights.h5')), 'r') as f:\n" +
                    "                config = json.loads(z.read('config.json'))['compile_config']\n" +
                    "                config['optimizer']['config'].pop('name')  # numbered per process: sgd, sgd_1, ...\n" +
                    "                return datasets(f), config\n" +
                    "    with h5py.File(path, 'r') as f:\n" +
                    "        return datasets(f), None\n" +
                    "(da, ca), (db, cb_) = read(a), read(b)\n" +
                    "put('count', np.asarray(len(da)))\n" +
                    "put('same', np.asarray(ca == cb_ and da.keys() == db.keys() and all(np.array_equal(da[k], db[k]) for k in da)))\n",
                    "a", a[name], "b", b[name]);
                Assert.Greater(same["count"].GetDouble(0), 4.0, name + " holds the variables");
                Assert.AreEqual(1.0, same["same"].GetDouble(0), name + ": same content as Python's");
            }
        }

        private sealed class ThrowAt : CallbackBase
        {
            private readonly int _epoch;
            private readonly long _batch;
            private int _current;

            public ThrowAt(int epoch, long batch)
            {
                _epoch = epoch;
                _batch = batch;
            }

            public override void OnEpochBegin(int epoch, IDictionary<string, float> logs) => _current = epoch;

            public override void OnTrainBatchEnd(long batch, IDictionary<string, float> logs)
            {
                if (_current == _epoch && batch == _batch) throw new InvalidOperationException("interrupted");
            }
        }

        [Test]
        public void BackupAndRestoreResumesAFitThatThrewExactly()
        {
            NDArray x = Data.Uniform(820, 40, 4), y = Data.Labels(821, 40, 3);
            string backup = Path.Combine(_folder, "backup");
            Dictionary<string, NDArray> whole;
            History wholeHistory;
            Keras.SetRandomSeed(5);
            using (var model = CSharpModel())
            {
                Keras.SetRandomSeed(6);
                wholeHistory = model.Fit(x, y, batchSize: 8, epochs: 3, verbose: 0, shuffle: true);
                whole = SavingTests.State(model);
            }
            Keras.SetRandomSeed(5);
            using (var model = CSharpModel())
            {
                Keras.SetRandomSeed(6);
                var e = Assert.Throws<InvalidOperationException>(() => model.Fit(x, y, batchSize: 8, epochs: 3, verbose: 0, shuffle: true,
                    callbacks: new ICallback[] { new BackupAndRestore(backup, 1), new ThrowAt(1, 2) }));
                Assert.AreEqual("interrupted", e.Message);
                Assert.IsTrue(Directory.Exists(backup) && Directory.GetFiles(backup).Length > 0, "a backup was left");
            }
            Keras.SetRandomSeed(5);
            using (var model = CSharpModel())
            {
                Keras.SetRandomSeed(6);
                History resumed = model.Fit(x, y, batchSize: 8, epochs: 3, verbose: 0, shuffle: true,
                                            callbacks: new ICallback[] { new BackupAndRestore(backup, 1) });
                var state = SavingTests.State(model);
                state.Remove("counter"); // counts the steps of this fit only
                whole.Remove("counter");
                SavingTests.AssertSameState(whole, state, "resumed");
                CollectionAssert.AreEqual(new[] { 1, 2 }, resumed.Epochs, "the epochs this fit ran");
                Assert.AreEqual(BitConverter.GetBytes(wholeHistory["loss"][2]), BitConverter.GetBytes(resumed["loss"].Last()), "last epoch's loss");
                Assert.IsFalse(Directory.Exists(backup) && Directory.GetFiles(backup).Length > 0, "the backup is removed when fit completes");
            }
        }
    }
}
