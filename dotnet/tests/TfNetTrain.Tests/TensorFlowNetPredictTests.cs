using System;
using System.Collections.Generic;
using System.Linq;
using NUnit.Framework;
using TfNetTrain.TensorFlowNet;
using static TfNetTrain.TensorFlowNet.Binding;
using static TfNetTrain.TensorFlowNet.KerasApi;

namespace TfNetTrain.Tests
{
    /// <summary>predict returns every model output (TF.NET's Tensors), equal to Python's predict on the same model.</summary>
    [TestFixture]
    public class TensorFlowNetPredictTests
    {
        private static Functional TwoHeads()
        {
            var input = keras.Input(4);
            var hidden = keras.layers.Dense(8, activation: "relu").Apply(input);
            var classes = keras.layers.Dense(3, name: "classes").Apply(hidden);
            var score = keras.layers.Dense(1, name: "score").Apply(hidden);
            return keras.Model(new[] { input }, new Tensor[] { classes, score });
        }

        [Test]
        public void MultiOutputPredictReturnsEveryOutput()
        {
            NDArray x = Data.Uniform(31, 11, 4);
            using (var model = TwoHeads())
            {
                Tensors fromArrays = model.predict(x, batch_size: 5);
                Tensors fromDataset = model.predict(tf.data.Dataset.from_tensor_slices(x).batch(5));
                var expected = PyScript.Run("put('p', model.predict(x, batch_size=5, verbose=0))\n", "model", model.Model, "x", x);
                foreach (var run in new[] { ("arrays", fromArrays), ("dataset", fromDataset) })
                {
                    Assert.AreEqual(2, run.Item2.Length, run.Item1 + ": one tensor per output");
                    Assert.IsFalse(run.Item2.IsSingle(), run.Item1);
                    Data.AssertBitwise(expected, "p", run.Item2.Select(t => t.numpy()).ToList(), run.Item1);
                    Assert.AreEqual(new Shape(11, 3), run.Item2[0].shape);
                    Assert.AreEqual(new Shape(11, 1), run.Item2[1].shape);
                }
                Tensor[] asArray = fromArrays;
                Assert.AreEqual(2, asArray.Length);
                Assert.Throws<InvalidOperationException>(() => ((Tensor)fromArrays).ToString(), "two outputs do not read as one Tensor");
                Assert.Throws<InvalidOperationException>(() => fromArrays.numpy());
            }
        }

        [Test]
        public void SingleOutputPredictReadsAsOneTensor()
        {
            NDArray x = Data.Uniform(32, 7, 4);
            var model = keras.Sequential();
            model.add(keras.layers.Dense(3, input_shape: 4));
            using (model)
            {
                Tensor y = model.predict(x);
                var expected = PyScript.Run("put('p', model.predict(x, verbose=0))\n", "model", model.Model, "x", x);
                Data.AssertBitwise(expected["p"], y.numpy(), "implicit Tensor");
                Data.AssertBitwise(expected["p"], model.predict(x).numpy(), "Tensors.numpy()");
                Assert.AreEqual(1, model.predict(tf.data.Dataset.from_tensor_slices(x).batch(3)).Length);
                Assert.AreEqual(new long[] { 7 }, tf.argmax(model.predict(x), 1).shape.dims, "a Tensors argument where a Tensor is expected");
            }
        }
    }
}
