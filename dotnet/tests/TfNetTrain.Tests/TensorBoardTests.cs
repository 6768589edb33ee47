using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using NUnit.Framework;
using TfNetTrain.TensorFlowNet;
using static TfNetTrain.TensorFlowNet.KerasApi;

namespace TfNetTrain.Tests
{
    /// <summary>TensorBoard from C# (both spellings) writes the event files Python's fit writes; they are read back
    /// through Python.</summary>
    [TestFixture]
    public class TensorBoardTests
    {
        private string _folder;

        [SetUp]
        public void MakeFolder()
        {
            _folder = Path.Combine(Path.GetTempPath(), "tfnet-train-tensorboard-" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(_folder);
        }

        [TearDown]
        public void RemoveFolder()
        {
            if (Directory.Exists(_folder)) Directory.Delete(_folder, recursive: true);
        }

        // The C# run's events against a Python fit of the same model from the same weights: same tags (weight names
        // counted by layer position), same steps, same values; the epoch losses come back for History.
        private const string CompareWithPython =
            "from tfnet_train.callbacks.tensorboard import read_events\n" +
            "from tfnet_train.tolerances import allclose\n" +
            "def named(m, events):\n" +
            "    def tag(t):\n" +
            "        for i, layer in enumerate(m.layers):\n" +
            "            t = t.replace(f'{m.name}/{layer.name}/', f'layer{i}/')\n" +
            "        return t\n" +
            "    return ({(f, tag(t)): v for (f, t), v in events.scalars.items()},\n" +
            "            {(f, tag(t)): v for (f, t), v in events.tensors.items()})\n" +
            "m = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation='relu'), keras.layers.Dense(3)])\n" +
            "m.set_weights(w0)\n" +
            "m.compile(optimizers.SGD(0.5, momentum=0.9), keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=['accuracy'], semantics=semantics)\n" +
            "m.fit(x, y, batch_size=8, epochs=3, verbose=0, shuffle=False, validation_data=(vx, vy), callbacks=[keras.callbacks.TensorBoard(theirs, **options)])\n" +
            "got_scalars, got_tensors = named(model, read_events(mine))\n" +
            "want_scalars, want_tensors = named(m, read_events(theirs))\n" +
            "assert set(got_scalars) | set(got_tensors) == set(want_scalars) | set(want_tensors), (sorted(got_scalars), sorted(want_scalars))\n" +
            "assert got_tensors == want_tensors, (got_tensors, want_tensors)\n" +
            "for key, values in want_scalars.items():\n" +
            "    assert sorted(got_scalars[key]) == sorted(values), key\n" +
            "    assert allclose([got_scalars[key][s] for s in sorted(values)], [values[s] for s in sorted(values)]), key\n" +
            "assert read_events(mine).graphs == {'train': 1}\n" +
            "put('tags', np.asarray(len(got_scalars) + len(got_tensors)))\n" +
            "put('loss', [got_scalars[('train', 'epoch_loss')][i] for i in range(3)])\n" +
            "put('val_loss', [got_scalars[('validation', 'epoch_loss')][i] for i in range(3)])\n" +
            "put('batches', sorted(got_scalars.get(('train', 'batch_loss'), {})))\n";

        private static void AssertEpochs(Dictionary<string, NDArray> events, History history)
        {
            foreach (string name in new[] { "loss", "val_loss" })
            {
                Assert.AreEqual(3, history[name].Count, name);
                for (int i = 0; i < 3; i++) Assert.AreEqual(history[name][i], events[$"{name}/{i}"].GetDouble(0), 1e-6 + 1e-5 * Math.Abs(history[name][i]), $"{name}[{i}] event vs History");
            }
        }

        [TestCase("keras")]
        [TestCase("tfnet")]
        public void TensorBoardSpecWritesWhatPythonWrites(string semantics)
        {
            NDArray x = Data.Uniform(900, 24, 4), y = Data.Labels(901, 24, 3);
            NDArray vx = Data.Uniform(902, 16, 4), vy = Data.Labels(903, 16, 3);
            string mine = Path.Combine(_folder, "csharp"), theirs = Path.Combine(_folder, "python");
            using (var model = ModelParityTests.Classifier())
            {
                SavingTests.CompileClassifier(model, Optimizers.SGD(0.5f, momentum: 0.9f), semantics);
                IList<NDArray> w0 = model.GetWeights();
                var board = new TensorBoard(mine, histogramFreq: 1);
                Assert.AreEqual(mine, board.LogDir);
                History history = model.Fit(x, y, batchSize: 8, epochs: 3, verbose: 0, shuffle: false,
                                            validationX: vx, validationY: vy, callbacks: new ICallback[] { board });
                var events = PyScript.Run(
                    "options = dict(histogram_freq=1)\n" + CompareWithPython,
                    "model", model, "w0", w0, "x", x, "y", y, "vx", vx, "vy", vy, "mine", mine, "theirs", theirs,
                    "semantics", semantics);
                Assert.Greater(events["tags"].GetDouble(0), 8.0, "epoch scalars, learning rate, histograms, model");
                AssertEpochs(events, history);
                Assert.IsFalse(events.ContainsKey("batches/0"), "per-epoch logging writes no batch scalars");
            }
        }

        [Test]
        public void KerasCallbacksSpellingBuildsTheSpecs()
        {
            var board = keras.callbacks.TensorBoard("tb", histogram_freq: 1, update_freq: 2, profile_batch: new[] { 2, 3 });
            Assert.AreEqual(2, board.UpdateFreq);
            Assert.AreEqual(1, board.HistogramFreq);
            Assert.AreEqual(new[] { 2, 3 }, board.ProfileBatch);
            StringAssert.StartsWith("TensorBoard(", board.ToString());
            StringAssert.Contains("profile_batch=(2, 3)", board.ToString());
            Assert.AreEqual("batch", keras.callbacks.TensorBoard("tb", update_freq: "batch").UpdateFreq);
            Assert.AreEqual("epoch", keras.callbacks.TensorBoard().UpdateFreq);
            Assert.AreEqual(4, keras.callbacks.TensorBoard(profile_batch: 4).ProfileBatch);
            Assert.AreEqual("update_freq", Assert.Throws<TfNetTrainArgumentException>(() => keras.callbacks.TensorBoard(update_freq: 1.5)).ParamName);
            Assert.AreEqual("updateFreq", Assert.Throws<TfNetTrainArgumentException>(() => keras.callbacks.TensorBoard(update_freq: "step")).ParamName);
            Assert.AreEqual("updateFreq", Assert.Throws<TfNetTrainArgumentException>(() => new TensorBoard("tb", 0)).ParamName);
            Assert.AreEqual("profileBatchEnd", Assert.Throws<TfNetTrainArgumentException>(() => new TensorBoard("tb", profileBatch: 3, profileBatchEnd: 2)).ParamName);
            Assert.AreEqual("profile_batch", Assert.Throws<TfNetTrainArgumentException>(() => keras.callbacks.TensorBoard(profile_batch: "2,3")).ParamName);
            Assert.Throws<ArgumentNullException>(() => keras.callbacks.TensorBoard(null));

            var stop = keras.callbacks.EarlyStopping(monitor: "loss", patience: 2, restore_best_weights: true);
            Assert.AreEqual("loss", stop.Monitor);
            Assert.AreEqual(2, stop.Patience);
            Assert.IsTrue(stop.RestoreBestWeights);
            var checkpoint = keras.callbacks.ModelCheckpoint("m.weights.h5", save_weights_only: true, save_freq: 5);
            Assert.AreEqual(5, checkpoint.SaveFreq);
            Assert.IsTrue(checkpoint.SaveWeightsOnly);
            Assert.AreEqual("epoch", keras.callbacks.ModelCheckpoint("m.keras", save_freq: "epoch").SaveFreq);
            Assert.AreEqual("save_freq", Assert.Throws<TfNetTrainArgumentException>(() => keras.callbacks.ModelCheckpoint("m.keras", save_freq: "daily")).ParamName);
            var backup = keras.callbacks.BackupAndRestore("b", save_freq: 3, delete_checkpoint: false);
            Assert.AreEqual(3, backup.SaveFreq);
            Assert.IsFalse(backup.DeleteCheckpoint);
            Assert.AreEqual("epoch", keras.callbacks.BackupAndRestore("b").SaveFreq);
        }

        [Test]
        public void KerasCallbacksTensorBoardInTheFaceFitWritesBatchAndEpochScalars()
        {
            NDArray x = Data.Uniform(910, 24, 4), y = Data.Labels(911, 24, 3);
            NDArray vx = Data.Uniform(912, 16, 4), vy = Data.Labels(913, 16, 3);
            string mine = Path.Combine(_folder, "csharp"), theirs = Path.Combine(_folder, "python");
            var model = keras.Sequential();
            model.add(keras.layers.Dense(8, activation: "relu", input_shape: 4));
            model.add(keras.layers.Dense(3));
            using (model)
            {
                model.compile(keras.optimizers.SGD(0.5f, momentum: 0.9f), keras.losses.SparseCategoricalCrossentropy(from_logits: true), new[] { "accuracy" });
                List<NDArray> w0 = model.get_weights();
                History history = model.fit(x, y, batch_size: 8, epochs: 3, verbose: 0, shuffle: false,
                                            validation_data: (vx, vy),
                                            callbacks: new List<ICallback> { keras.callbacks.TensorBoard(mine, update_freq: 1) });
                var events = PyScript.Run(
                    "options = dict(update_freq=1)\n" + CompareWithPython,
                    "model", model.Model, "w0", w0, "x", x, "y", y, "vx", vx, "vy", vy, "mine", mine, "theirs", theirs,
                    "semantics", "keras");
                AssertEpochs(events, history);
                Assert.AreEqual(Enumerable.Range(1, 9).ToArray(), Enumerable.Range(0, 9).Select(i => (int)events[$"batches/{i}"].GetDouble(0)).ToArray(), "one batch scalar per step");
            }
        }
    }
}
