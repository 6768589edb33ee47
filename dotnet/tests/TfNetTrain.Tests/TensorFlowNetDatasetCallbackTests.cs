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
    /// <summary>Callbacks on fit over a tf.data dataset: the same hooks and logs as the array path.</summary>
    [TestFixture]
    public class TensorFlowNetDatasetCallbackTests
    {
        /// <summary>Every hook with a copy of its logs, and the model's weights at each epoch end.</summary>
        private sealed class Recorder : CallbackBase
        {
            public readonly List<string> Calls = new List<string>();
            public readonly List<IDictionary<string, float>> Logs = new List<IDictionary<string, float>>();
            public readonly List<IList<NDArray>> EpochWeights = new List<IList<NDArray>>();

            private void Record(string what, IDictionary<string, float> logs)
            {
                Calls.Add(what);
                Logs.Add(new Dictionary<string, float>(logs));
            }

            public override void OnTrainBegin(IDictionary<string, float> logs) => Record("train_begin", logs);
            public override void OnTrainEnd(IDictionary<string, float> logs) => Record("train_end", logs);
            public override void OnEpochBegin(int epoch, IDictionary<string, float> logs) => Record("epoch_begin " + epoch, logs);
            public override void OnTrainBatchBegin(long batch, IDictionary<string, float> logs) => Record("batch_begin " + batch, logs);
            public override void OnTrainBatchEnd(long batch, IDictionary<string, float> logs) => Record("batch_end " + batch, logs);

            public override void OnEpochEnd(int epoch, IDictionary<string, float> logs)
            {
                Record("epoch_end " + epoch, logs);
                EpochWeights.Add(Model.GetWeights()); // the hook may call the model
            }
        }

        private sealed class StopAfterFirstEpoch : CallbackBase
        {
            public override void OnEpochEnd(int epoch, IDictionary<string, float> logs) => Model.StopTraining = true;
        }

        private sealed class ThrowAtBatch1 : CallbackBase
        {
            public override void OnTrainBatchEnd(long batch, IDictionary<string, float> logs)
            {
                if (batch == 1) throw new InvalidOperationException("stop here");
            }
        }

        private static Sequential Compiled(IList<NDArray> weights)
        {
            var model = keras.Sequential();
            model.add(keras.layers.Dense(8, activation: "relu", input_shape: 4));
            model.add(keras.layers.Dense(3));
            if (weights != null) model.set_weights(weights);
            model.compile(keras.optimizers.SGD(0.1f, momentum: 0.9f), keras.losses.SparseCategoricalCrossentropy(from_logits: true), new[] { "accuracy" });
            return model;
        }

        [Test]
        public void DatasetFitSendsTheHooksAndLogsOfArrayFit()
        {
            NDArray x = Data.Uniform(41, 20, 4), y = Data.Labels(42, 20, 3);
            NDArray vx = Data.Uniform(43, 8, 4), vy = Data.Labels(44, 8, 3);
            List<NDArray> w0;
            using (var reference = Compiled(null)) w0 = reference.get_weights();

            var onArrays = new Recorder();
            var onDataset = new Recorder();
            using (var model = Compiled(w0))
            {
                model.fit(x, y, batch_size: 6, epochs: 2, verbose: 0, shuffle: false, validation_data: (vx, vy),
                          callbacks: new List<ICallback> { onArrays });
            }
            using (var model = Compiled(w0))
            {
                model.fit(tf.data.Dataset.from_tensor_slices(x, y).batch(6), epochs: 2, verbose: 0,
                          validation_data: tf.data.Dataset.from_tensor_slices(vx, vy).batch(6),
                          callbacks: new List<ICallback> { onDataset });
                Assert.AreSame(model.Model, onDataset.Model, "CallbackBase.Model is the model being trained");
            }
            Assert.AreEqual(1 + 2 * (1 + 2 * 4 + 1) + 1, onArrays.Calls.Count, "array path: every hook");
            CollectionAssert.AreEqual(onArrays.Calls, onDataset.Calls, "same hooks in the same order");
            for (int i = 0; i < onArrays.Logs.Count; i++)
            {
                CollectionAssert.AreEquivalent(onArrays.Logs[i].Keys, onDataset.Logs[i].Keys, $"{onArrays.Calls[i]}: log names");
                foreach (var pair in onArrays.Logs[i])
                    Assert.AreEqual(pair.Value, onDataset.Logs[i][pair.Key], $"{onArrays.Calls[i]}: {pair.Key}");
            }
            Assert.IsTrue(onDataset.Logs[onDataset.Calls.IndexOf("epoch_end 1")].ContainsKey("val_loss"), "validation logs reach epoch_end");
            for (int e = 0; e < 2; e++)
                for (int i = 0; i < w0.Count; i++)
                    Assert.IsTrue(onArrays.EpochWeights[e][i].BitwiseEquals(onDataset.EpochWeights[e][i]), $"epoch {e} weight {i}");
        }

        [Test]
        public void DatasetFitHonoursStopTrainingKerasSpecsAndThrowingHooks()
        {
            NDArray x = Data.Uniform(45, 12, 4), y = Data.Labels(46, 12, 3);
            using (var model = Compiled(null))
            {
                var dataset = tf.data.Dataset.from_tensor_slices(x, y).batch(4);
                History stopped = model.fit(dataset, epochs: 5, verbose: 0, callbacks: new List<ICallback> { new StopAfterFirstEpoch() });
                Assert.AreEqual(1, stopped["loss"].Count, "StopTraining from a hook ends the fit after epoch 0");

                string folder = Path.Combine(Path.GetTempPath(), "tfnet-dataset-ckpt-" + Guid.NewGuid().ToString("N"));
                Directory.CreateDirectory(folder);
                try
                {
                    model.fit(dataset, epochs: 2, verbose: 0, callbacks: new List<ICallback>
                    {
                        new ModelCheckpoint(Path.Combine(folder, "e{epoch:02d}.weights.h5"), saveWeightsOnly: true),
                    });
                    CollectionAssert.AreEquivalent(new[] { "e01.weights.h5", "e02.weights.h5" },
                        Directory.GetFiles(folder).Select(Path.GetFileName).ToArray(), "a Keras callback spec runs on the dataset path");
                }
                finally
                {
                    Directory.Delete(folder, true);
                }

                var thrown = Assert.Throws<InvalidOperationException>(() =>
                    model.fit(dataset, epochs: 1, verbose: 0, callbacks: new List<ICallback> { new ThrowAtBatch1() }));
                Assert.AreEqual("stop here", thrown.Message);
                Assert.AreEqual(2, model.Model.TrainCounter, "the fit stopped after its second step");
                Assert.Throws<ArgumentNullException>(() => model.fit(dataset, callbacks: new List<ICallback> { null }));
                Assert.Throws<TfNetTrainArgumentException>(() => model.fit(dataset, batch_size: 4));
                Assert.AreEqual(2, model.Model.TrainCounter, "refused fits train nothing");
            }
        }
    }
}
