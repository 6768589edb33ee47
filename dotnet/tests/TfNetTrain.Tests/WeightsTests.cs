using System.Collections.Generic;
using System.Linq;
using NUnit.Framework;

namespace TfNetTrain.Tests
{
    /// <summary>Weights of every layer kind and dtype move in and out bit for bit; output buffers are reused.</summary>
    [TestFixture]
    public class WeightsTests
    {
        private static IList<NDArray> RandomLike(Model model, int seed)
        {
            var result = new List<NDArray>();
            IList<int[]> shapes = model.WeightShapes;
            IList<NDArray> current = model.GetWeights();
            for (int i = 0; i < shapes.Count; i++)
            {
                NDArray values = Data.Uniform(seed + i, shapes[i]);
                if (current[i].DType == DType.Float64)
                {
                    var doubles = values.ToArray<float>().Select(v => (double)v * 1.000000001).ToArray();
                    values = new NDArray(doubles, shapes[i]);
                }
                result.Add(values);
            }
            return result;
        }

        [Test]
        public void SetRandomSeedGivesPythonsInitialWeights()
        {
            Keras.SetRandomSeed(7);
            using (var first = ModelParityTests.Classifier())
            {
                Keras.SetRandomSeed(7);
                using (var again = ModelParityTests.Classifier())
                {
                    Keras.SetRandomSeed(8);
                    using (var other = ModelParityTests.Classifier())
                    {
                        var expected = PyScript.Run(
                            "keras.utils.set_random_seed(7)\n" +
                            "model = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation='relu'), keras.layers.Dense(3)])\n" +
                            "put('weights', model.get_weights())\n");
                        Data.AssertBitwise(expected, "weights", first.GetWeights(), "seed 7 from C# vs Python");
                        Data.AssertBitwise(expected, "weights", again.GetWeights(), "seed 7 again");
                        Assert.IsFalse(expected["weights/0"].BitwiseEquals(other.GetWeights()[0]), "seed 8 draws other weights");
                    }
                }
            }
            var e = Assert.Throws<TfNetTrainArgumentException>(() => Keras.SetRandomSeed(-1));
            Assert.AreEqual("seed", e.ParamName);
            StringAssert.Contains("must be >= 0; got -1", e.Message);
        }

        [Test]
        public void ConvolutionalModelWeightsRoundTrip()
        {
            using (var model = Keras.Sequential(
                Layers.Input(8, 8, 2), Layers.Conv2D(3, 3, activation: "relu"), Layers.BatchNormalization(),
                Layers.MaxPooling2D(2), Layers.Flatten(), Layers.Dropout(0.25f, seed: 1), Layers.Dense(2)))
            {
                CollectionAssert.AreEqual(new[] { 3, 3, 2, 3 }, model.WeightShapes[0], "Conv2D kernel");
                Assert.AreEqual(8, model.WeightShapes.Count, "conv kernel+bias, 4 batch-norm vectors, dense kernel+bias");
                IList<NDArray> weights = RandomLike(model, 100);
                model.SetWeights(weights);
                IList<NDArray> back = model.GetWeights();
                for (int i = 0; i < weights.Count; i++) Data.AssertBitwise(weights[i], back[i], model.WeightNames[i]);
                var python = PyScript.Run("put('w', model.get_weights())\nput('names', np.asarray(len(model.weights)))\n", "model", model);
                Data.AssertBitwise(python, "w", weights, "weights seen by Python");
                StringAssert.Contains("conv2d", model.WeightNames[0]);
                StringAssert.Contains("moving_mean", model.WeightNames[4]);
            }
        }

        [Test]
        public void Float64ModelsTrainAndRoundTrip()
        {
            using (var model = Keras.Sequential(Layers.Input(new[] { 3 }, "float64"), Layers.Dense(2, dtype: "float64")))
            {
                Assert.AreEqual(DType.Float64, model.GetWeights()[0].DType);
                IList<NDArray> weights = RandomLike(model, 200);
                model.SetWeights(weights);
                IList<NDArray> back = model.GetWeights();
                for (int i = 0; i < weights.Count; i++) Data.AssertBitwise(weights[i], back[i], "float64 weight " + i);
                model.Compile(Optimizers.SGD(0.05f), "mse");
                var x = new NDArray(new double[] { 0.1, -0.2, 0.3, 0.4, 0.5, -0.6 }, 2, 3);
                var y = new NDArray(new double[] { 1, 0, 0, 1 }, 2, 2);
                var logs = model.TrainOnBatch(x, y);
                var expected = PyScript.Run(
                    "m = tfnet_train.Sequential([keras.Input((3,), dtype='float64'), keras.layers.Dense(2, dtype='float64')])\n" +
                    "m.set_weights(w)\n" +
                    "m.compile(optimizers.SGD(0.05), 'mse')\n" +
                    "put('logs', m.train_on_batch(x, y, return_dict=True))\n" +
                    "put('w', m.get_weights())\n",
                    "w", weights, "x", x, "y", y);
                Data.AssertLogs(expected, "logs", logs);
                Data.AssertBitwise(expected, "w", model.GetWeights(), "float64 weights after a step");
            }
        }

        [Test]
        public void IntegerInputsAndLabelsOfBothWidthsAreAccepted()
        {
            using (var model = Keras.Sequential(Layers.Input(new[] { 3 }, "int32"), Layers.Embedding(10, 2), Layers.Flatten(), Layers.Dense(2)))
            {
                model.Compile(Optimizers.SGD(0.1f), Losses.SparseCategoricalCrossentropy(fromLogits: true));
                IList<NDArray> w0 = model.GetWeights();
                var x = new NDArray(new[] { 1, 2, 3, 4, 5, 9 }, 2, 3);
                var y32 = new NDArray(new[] { 0, 1 });
                var y64 = new NDArray(new long[] { 1, 0 });
                var logs32 = model.TrainOnBatch(x, y32);
                var logs64 = model.TrainOnBatch(x, y64);
                var expected = PyScript.Run(
                    "m = tfnet_train.Sequential([keras.Input((3,), dtype='int32'), keras.layers.Embedding(10, 2), keras.layers.Flatten(), keras.layers.Dense(2)])\n" +
                    "m.set_weights(w0)\n" +
                    "m.compile(optimizers.SGD(0.1), keras.losses.SparseCategoricalCrossentropy(from_logits=True))\n" +
                    "put('a', m.train_on_batch(x, y32, return_dict=True))\n" +
                    "put('b', m.train_on_batch(x, y64, return_dict=True))\n",
                    "w0", w0, "x", x, "y32", y32, "y64", y64);
                Data.AssertLogs(expected, "a", logs32);
                Data.AssertLogs(expected, "b", logs64);
            }
        }

        [Test]
        public void OutputBuffersAreFilledInPlace()
        {
            using (var model = ModelParityTests.Classifier())
            {
                NDArray x = Data.Uniform(300, 5, 4);
                var output = NDArray.Zeros(DType.Float32, 5, 3);
                float[] storage = output.GetData<float>();
                model.Predict(x, output);
                Assert.AreSame(storage, output.GetData<float>());
                Data.AssertBitwise(model.Predict(x), output, "predict into a buffer");

                IList<NDArray> destination = model.WeightShapes.Select(s => NDArray.Zeros(DType.Float32, s)).ToList();
                var arrays = destination.Select(d => d.GetData<float>()).ToList();
                model.GetWeights(destination);
                IList<NDArray> fresh = model.GetWeights();
                for (int i = 0; i < fresh.Count; i++)
                {
                    Assert.AreSame(arrays[i], destination[i].GetData<float>());
                    Data.AssertBitwise(fresh[i], destination[i], "weight into a buffer " + i);
                }
            }
        }

        [Test]
        public void MultidimensionalCSharpArraysFeedTheModel()
        {
            using (var model = ModelParityTests.Classifier())
            {
                var rows = new float[3, 4];
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 4; j++) rows[i, j] = i - j * 0.5f;
                NDArray fromMatrix = NDArray.From(rows);
                NDArray flat = new NDArray(fromMatrix.ToArray<float>(), 3, 4);
                Data.AssertBitwise(model.Predict(flat), model.Predict(fromMatrix), "same prediction");
                var outputs = (float[,])model.Predict(fromMatrix).ToMultidimensionalArray();
                Assert.AreEqual(3, outputs.GetLength(0));
                Assert.AreEqual(3, outputs.GetLength(1));
            }
        }

        [Test]
        public void SummaryDescribesTheModel()
        {
            using (var model = ModelParityTests.Classifier())
            {
                string summary = model.Summary();
                StringAssert.Contains("Dense", summary);
                StringAssert.Contains("67", summary, "4*8+8 + 8*3+3 parameters");
            }
        }
    }
}
