using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using NUnit.Framework;

namespace TfNetTrain.Tests
{
    [TestFixture]
    public class CallbackTests
    {
        /// <summary>Implements ICallback directly: records every hook with a copy of its logs.</summary>
        private sealed class Recorder : ICallback
        {
            public readonly List<string> Calls = new List<string>();
            public readonly List<IDictionary<string, float>> Logs = new List<IDictionary<string, float>>();
            public int ThreadId = -1;
            public Dictionary<string, List<float>> history { get; } = new Dictionary<string, List<float>>();

            private void Record(string what, IDictionary<string, float> logs)
            {
                Calls.Add(what);
                Logs.Add(new Dictionary<string, float>(logs));
                ThreadId = Thread.CurrentThread.ManagedThreadId;
            }

            public void OnTrainBegin(IDictionary<string, float> logs) => Record("train_begin", logs);
            public void OnTrainEnd(IDictionary<string, float> logs) => Record("train_end", logs);
            public void OnEpochBegin(int epoch, IDictionary<string, float> logs) => Record("epoch_begin " + epoch, logs);
            public void OnEpochEnd(int epoch, IDictionary<string, float> logs) => Record("epoch_end " + epoch, logs);
            public void OnTrainBatchBegin(long batch, IDictionary<string, float> logs) => Record("batch_begin " + batch, logs);
            public void OnTrainBatchEnd(long batch, IDictionary<string, float> logs) => Record("batch_end " + batch, logs);
        }

        private sealed class EpochEndOnly : CallbackBase
        {
            public readonly List<int> Epochs = new List<int>();
            public readonly List<IList<NDArray>> Weights = new List<IList<NDArray>>();

            public override void OnEpochEnd(int epoch, IDictionary<string, float> logs)
            {
                Epochs.Add(epoch);
                Weights.Add(Model.GetWeights()); // calls back into Python from inside the hook
            }
        }

        private sealed class StopAfterFirstEpoch : CallbackBase
        {
            public override void OnEpochEnd(int epoch, IDictionary<string, float> logs) => Model.StopTraining = true;
        }

        private sealed class Throwing : CallbackBase
        {
            public override void OnTrainBatchEnd(long batch, IDictionary<string, float> logs)
            {
                if (batch == 1) throw new InvalidOperationException("stop here");
            }
        }

        [Test]
        public void EveryHookArrivesInOrderWithThePythonLogs()
        {
            using (var model = ModelParityTests.Classifier())
            {
                ModelParityTests.CompileSgd(model);
                IList<NDArray> w0 = model.GetWeights();
                NDArray x = Data.Uniform(60, 12, 4), y = Data.Labels(61, 12, 3);
                var recorder = new Recorder();
                History history = model.Fit(x, y, batchSize: 4, epochs: 2, verbose: 0, shuffle: false, callbacks: new ICallback[] { recorder });
                var expectedCalls = new List<string> { "train_begin" };
                for (int epoch = 0; epoch < 2; epoch++)
                {
                    expectedCalls.Add("epoch_begin " + epoch);
                    for (int batch = 0; batch < 3; batch++)
                    {
                        expectedCalls.Add("batch_begin " + batch);
                        expectedCalls.Add("batch_end " + batch);
                    }
                    expectedCalls.Add("epoch_end " + epoch);
                }
                expectedCalls.Add("train_end");
                CollectionAssert.AreEqual(expectedCalls, recorder.Calls);
                Assert.AreNotEqual(Thread.CurrentThread.ManagedThreadId, recorder.ThreadId, "hooks run on the Python worker thread");

                var expected = PyScript.Run(
                    "model = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation='relu'), keras.layers.Dense(3)])\n" +
                    "model.set_weights(w0)\n" +
                    "model.compile(optimizers.SGD(learning_rate=0.1, momentum=0.9, clipnorm=1.0),\n" +
                    "              keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=['accuracy'])\n" +
                    "seen = []\n" +
                    "class Keep(tfnet_train.callbacks.Callback):\n" +
                    "    def on_train_batch_end(self, batch, logs=None):\n" +
                    "        seen.append(dict(logs))\n" +
                    "h = model.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False, callbacks=[Keep()])\n" +
                    "put('batch', seen)\n" +
                    "put('history', h.history)\n",
                    "w0", w0, "x", x, "y", y);
                var batchEnds = recorder.Calls.Select((c, i) => new { c, i }).Where(p => p.c.StartsWith("batch_end")).Select(p => recorder.Logs[p.i]).ToList();
                Assert.AreEqual(6, batchEnds.Count);
                for (int i = 0; i < batchEnds.Count; i++) Data.AssertLogs(expected, "batch/" + i, batchEnds[i]);
                var epochEnds = recorder.Calls.Select((c, i) => new { c, i }).Where(p => p.c.StartsWith("epoch_end")).Select(p => recorder.Logs[p.i]).ToList();
                for (int e = 0; e < 2; e++)
                {
                    foreach (var metric in epochEnds[e])
                    {
                        Data.AssertBitwise(expected[$"history/{metric.Key}/{e}"], metric.Value, $"epoch {e} {metric.Key}");
                        Assert.AreEqual(history[metric.Key][e], metric.Value);
                    }
                }
                Data.AssertLogs(expected, "batch/5", recorder.Logs.Last());
                Assert.AreEqual(0, recorder.Logs[0].Count, "train_begin gets empty logs");
            }
        }

        [Test]
        public void CallbackBaseReceivesOnlyItsOverridesAndMayCallTheModel()
        {
            using (var model = ModelParityTests.Classifier())
            {
                ModelParityTests.CompileSgd(model);
                var callback = new EpochEndOnly();
                model.Fit(Data.Uniform(62, 8, 4), Data.Labels(63, 8, 3), batchSize: 4, epochs: 3, verbose: 0, callbacks: new ICallback[] { callback });
                CollectionAssert.AreEqual(new[] { 0, 1, 2 }, callback.Epochs);
                Assert.AreSame(model, callback.Model);
                Assert.AreEqual(3, callback.Weights.Count);
                Assert.IsFalse(callback.Weights[0][0].BitwiseEquals(callback.Weights[2][0]), "weights moved between epochs");
                var final = model.GetWeights();
                Data.AssertBitwise(final[0], callback.Weights[2][0], "weights seen at the last epoch end");
            }
        }

        [Test]
        public void StopTrainingFromACallbackEndsFit()
        {
            using (var model = ModelParityTests.Classifier())
            {
                ModelParityTests.CompileSgd(model);
                History history = model.Fit(Data.Uniform(64, 8, 4), Data.Labels(65, 8, 3), batchSize: 4, epochs: 5, verbose: 0,
                                            callbacks: new ICallback[] { new StopAfterFirstEpoch() });
                CollectionAssert.AreEqual(new[] { 0 }, history.Epochs);
                Assert.AreEqual(2L, model.TrainCounter);
            }
        }

        [Test]
        public void ACallbackExceptionComesOutOfFitUnchanged()
        {
            using (var model = ModelParityTests.Classifier())
            {
                ModelParityTests.CompileSgd(model);
                NDArray x = Data.Uniform(66, 16, 4), y = Data.Labels(67, 16, 3);
                var e = Assert.Throws<InvalidOperationException>(() =>
                    model.Fit(x, y, batchSize: 4, epochs: 1, verbose: 0, callbacks: new ICallback[] { new Throwing() }));
                Assert.AreEqual("stop here", e.Message);
                Assert.AreEqual(2L, model.TrainCounter, "fit stopped after the failing hook");
                History history = model.Fit(x, y, batchSize: 4, epochs: 1, verbose: 0);
                Assert.AreEqual(1, history.Epochs.Count);
                Assert.AreEqual(4L, model.TrainCounter);
            }
        }

        [Test]
        public void NullCallbacksAreRejected()
        {
            using (var model = ModelParityTests.Classifier())
            {
                ModelParityTests.CompileSgd(model);
                var e = Assert.Throws<ArgumentNullException>(() =>
                    model.Fit(Data.Uniform(1, 4, 4), Data.Labels(1, 4, 3), verbose: 0, callbacks: new ICallback[] { null }));
                Assert.AreEqual("callbacks", e.ParamName);
            }
        }
    }
}
