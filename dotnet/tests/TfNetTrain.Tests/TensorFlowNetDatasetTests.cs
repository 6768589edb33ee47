using System.Collections.Generic;
using System.Linq;
using NUnit.Framework;
using TfNetTrain.TensorFlowNet;
using static TfNetTrain.TensorFlowNet.Binding;
using static TfNetTrain.TensorFlowNet.KerasApi;

namespace TfNetTrain.Tests
{
    /// <summary>tf.data datasets from C# (tensor slices, C#-produced batches) give the numbers of the array path.</summary>
    [TestFixture]
    public class TensorFlowNetDatasetTests
    {
        private static Sequential Compiled(IList<NDArray> weights)
        {
            var model = keras.Sequential();
            model.add(keras.layers.Dense(8, activation: "relu", input_shape: 4));
            model.add(keras.layers.Dense(3));
            if (weights != null) model.set_weights(weights);
            model.compile(keras.optimizers.SGD(0.1f, momentum: 0.9f), keras.losses.SparseCategoricalCrossentropy(from_logits: true), new[] { "accuracy" });
            return model;
        }

        /// <summary>Consecutive batches of x and y, enumerated again on every pass.</summary>
        private static IEnumerable<NDArray[]> CSharpBatches(NDArray x, NDArray y, int batchSize)
        {
            float[] xs = x.ToArray<float>();
            long[] ys = y.ToArray<long>();
            int rows = x.Dim(0), width = x.Dim(1);
            for (int start = 0; start < rows; start += batchSize)
            {
                int n = System.Math.Min(batchSize, rows - start);
                yield return new[]
                {
                    new NDArray(xs.Skip(start * width).Take(n * width).ToArray(), n, width),
                    new NDArray(ys.Skip(start).Take(n).ToArray(), n),
                };
            }
        }

        private sealed class Replayable : IEnumerable<NDArray[]>
        {
            private readonly NDArray _x, _y;
            private readonly int _batch;

            public Replayable(NDArray x, NDArray y, int batch) { _x = x; _y = y; _batch = batch; }

            public IEnumerator<NDArray[]> GetEnumerator() => CSharpBatches(_x, _y, _batch).GetEnumerator();

            System.Collections.IEnumerator System.Collections.IEnumerable.GetEnumerator() => GetEnumerator();
        }

        [Test]
        public void SlicesAndCSharpBatchesTrainAsArrays()
        {
            NDArray x = Data.Uniform(1, 20, 4), y = Data.Labels(2, 20, 3);
            List<NDArray> w0;
            using (var reference = Compiled(null)) w0 = reference.get_weights();

            History arrays, slices, streamed;
            List<NDArray> wArrays, wSlices, wStreamed;
            Dictionary<string, float> eArrays, eSlices, eStreamed;
            NDArray pArrays, pSlices, pStreamed;
            using (var model = Compiled(w0))
            {
                arrays = model.fit(x, y, batch_size: 6, epochs: 3, verbose: 0, shuffle: false);
                wArrays = model.get_weights();
                eArrays = model.evaluate(x, y, batch_size: 6, verbose: 0);
                pArrays = model.predict(x, batch_size: 6).numpy();
            }
            using (var model = Compiled(w0))
            {
                var dataset = tf.data.Dataset.from_tensor_slices(x, y).batch(6).prefetch(tf.data.AUTOTUNE);
                Assert.AreEqual(4, dataset.length);
                slices = model.fit(dataset, epochs: 3, verbose: 0);
                wSlices = model.get_weights();
                eSlices = model.evaluate(dataset, verbose: 0);
                pSlices = model.predict(tf.data.Dataset.from_tensor_slices(x).batch(6)).numpy();
            }
            using (var model = Compiled(w0))
            {
                var dataset = tf.data.Dataset.from_generator(new Replayable(x, y, 6));
                streamed = model.fit(dataset, epochs: 3, verbose: 0);
                wStreamed = model.get_weights();
                eStreamed = model.evaluate(dataset, verbose: 0);
                pStreamed = model.predict(dataset).numpy();
            }
            foreach (var run in new[] { ("slices", slices, wSlices, eSlices, pSlices), ("streamed", streamed, wStreamed, eStreamed, pStreamed) })
            {
                string name = run.Item1;
                History h = run.Item2;
                List<NDArray> w = run.Item3;
                Dictionary<string, float> e = run.Item4;
                NDArray p = run.Item5;
                Assert.AreEqual(arrays["loss"], h["loss"], $"{name}: loss per epoch");
                Assert.AreEqual(arrays["accuracy"], h["accuracy"], $"{name}: accuracy per epoch");
                for (int i = 0; i < w.Count; i++) Assert.IsTrue(wArrays[i].BitwiseEquals(w[i]), $"{name}: weight {i}");
                Assert.AreEqual(eArrays["loss"], e["loss"], $"{name}: evaluate loss");
                Assert.IsTrue(pArrays.BitwiseEquals(p), $"{name}: predict");
            }
        }

        [Test]
        public void TheEngineModelTrainsOnDatasetsAsTheFaceDoes()
        {
            NDArray x = Data.Uniform(5, 18, 4), y = Data.Labels(6, 18, 3);
            List<NDArray> w0;
            using (var reference = Compiled(null)) w0 = reference.get_weights();
            History face, engine;
            List<NDArray> wFace;
            Dictionary<string, float> eFace;
            IDictionary<string, float> eEngine;
            NDArray pFace;
            IList<NDArray> pEngine;
            using (var model = Compiled(w0))
            {
                var dataset = tf.data.Dataset.from_tensor_slices(x, y).batch(5);
                face = model.fit(dataset, epochs: 2, verbose: 0);
                wFace = model.get_weights();
                eFace = model.evaluate(dataset, verbose: 0);
                pFace = model.predict(dataset).numpy();
            }
            using (var model = Compiled(w0))
            {
                TfNetTrain.Model core = model.EngineModel;
                var dataset = tf.data.Dataset.from_tensor_slices(x, y).batch(5);
                engine = core.Fit(dataset, epochs: 2, verbose: 0);
                eEngine = core.Evaluate(dataset);
                pEngine = core.PredictOutputs(dataset);
                IList<NDArray> w = core.GetWeights();
                for (int i = 0; i < w.Count; i++) Assert.IsTrue(wFace[i].BitwiseEquals(w[i]), $"weight {i}");
            }
            Assert.AreEqual(face["loss"], engine["loss"], "loss per epoch");
            Assert.AreEqual(eFace["loss"], eEngine["loss"], "evaluate loss");
            Assert.AreEqual(1, pEngine.Count);
            Assert.IsTrue(pFace.BitwiseEquals(pEngine[0]), "predict");
            Assert.Throws<System.ArgumentNullException>(() => Compiled(null).EngineModel.Fit((IDatasetV2)null));
        }

        [Test]
        public void ShuffledSlicesMatchPythonDataset()
        {
            NDArray x = Data.Uniform(3, 16, 4), y = Data.Labels(4, 16, 3);
            using (var model = Compiled(null))
            {
                List<NDArray> w0 = model.get_weights();
                Keras.SetRandomSeed(5);
                var history = model.fit(tf.data.Dataset.from_tensor_slices(x, y).shuffle(16, seed: 7).batch(4), epochs: 2, verbose: 0);
                var expected = PyScript.Run(
                    "model = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation='relu'), keras.layers.Dense(3)])\n" +
                    "model.set_weights(w0)\n" +
                    "model.compile(optimizers.SGD(learning_rate=0.1, momentum=0.9), keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=['accuracy'])\n" +
                    "keras.utils.set_random_seed(5)\n" +
                    "h = model.fit(tf.data.Dataset.from_tensor_slices((x, y)).shuffle(16, seed=7).batch(4), epochs=2, verbose=0)\n" +
                    "put('loss', np.asarray(h.history['loss'], np.float32))\n" +
                    "put('w', model.get_weights())\n",
                    "w0", w0, "x", x, "y", y);
                Data.AssertBitwise(expected["loss"], new NDArray(history["loss"].ToArray()), "loss per epoch");
                Data.AssertBitwise(expected, "w", model.get_weights(), "weights");
            }
        }

        [Test]
        public void BadDatasetInputIsTyped()
        {
            NDArray x = Data.Uniform(1, 8, 4), y = Data.Labels(2, 8, 3);
            Assert.Throws<TfNetTrainArgumentException>(() => tf.data.Dataset.from_generator(new List<NDArray[]>()));
            Assert.Throws<TfNetTrainArgumentException>(() => tf.data.Dataset.from_tensor_slices(x, Data.Labels(2, 7, 3)));
            Assert.Throws<TfNetTrainArgumentException>(() => tf.data.Dataset.from_tensor_slices(x, y).batch(0));
            var wrong = Assert.Throws<TfNetTrainArgumentException>(() => tf.data.Dataset.from_generator(
                new List<NDArray[]> { new[] { x, y }, new[] { Data.Uniform(3, 8, 5), y } }, materialize: true));
            StringAssert.Contains("batch 1 part 0 is float32 (8, 5); the first batch fixed float32 (n, 4)", wrong.Message);
        }
    }
}
