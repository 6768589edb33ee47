using NUnit.Framework;
using TfNetTrain.TensorFlowNet;
using static TfNetTrain.TensorFlowNet.Binding;
using static TfNetTrain.TensorFlowNet.KerasApi;

namespace TfNetTrain.Tests
{
    /// <summary>TF.NET's recurrent cells and wrappers: a cell's step, stacked cells, RNN over a cell, Bidirectional —
    /// shapes as Keras gives them, and the RNN's output equal to Keras's own RNN over the same cell.</summary>
    [TestFixture]
    public class TensorFlowNetRnnTests
    {
        [Test]
        public void CellStepReturnsOutputThenStates()
        {
            var cell = keras.layers.SimpleRNNCell(6, dropout: 0.5f, recurrent_dropout: 0.5f);
            Tensors result = cell.Apply(tf.constant(Data.Uniform(1, 4, 10)), new Tensors(tf.zeros(new Shape(4, 6))));
            Assert.AreEqual(2, result.Length, "the output and the one state");
            Assert.AreEqual(new Shape(4, 6), result[0].shape);
            Assert.AreEqual(new Shape(4, 6), result[1].shape);

            var lstm = keras.layers.LSTMCell(4);
            Tensors step = lstm.Apply(tf.ones(new Shape(2, 7)), new Tensors(tf.zeros(new Shape(2, 4)), tf.zeros(new Shape(2, 4))));
            Assert.AreEqual(3, step.Length, "the output, h and c");
            var error = Assert.Throws<TfNetTrainArgumentException>(() => lstm.Apply(tf.ones(new Shape(2, 7))));
            StringAssert.Contains("states", error.Message);
        }

        [Test]
        public void StackedCellsRunInOrder()
        {
            var stacked = keras.layers.StackedRNNCells(new IRnnCell[] { keras.layers.SimpleRNNCell(4), keras.layers.SimpleRNNCell(5) });
            Tensors result = stacked.Apply(tf.ones(new Shape(3, 10)), new Tensors(tf.zeros(new Shape(3, 4)), tf.zeros(new Shape(3, 5))));
            Assert.AreEqual(new Shape(3, 5), result[0].shape, "the last cell's output");
            Assert.AreEqual(new Shape(3, 4), result[1].shape, "the first cell's state first");
            Assert.AreEqual(new Shape(3, 5), result[2].shape);
            var rnn = keras.layers.RNN(stacked);
            Assert.AreEqual(new Shape(3, 5), rnn.Apply(tf.constant(Data.Uniform(2, 3, 6, 10))).shape);
        }

        [Test]
        public void RnnOverACellEqualsKerasRnn()
        {
            var x = Data.Uniform(3, 5, 6, 8);
            var cell = keras.layers.GRUCell(4, reset_after: false, use_bias: false);
            var rnn = keras.layers.RNN(cell, return_sequences: true);
            NDArray output = rnn.Apply(tf.constant(x)).numpy();
            Assert.AreEqual(new[] { 5, 6, 4 }, output.Shape);
            var weights = rnn.Weights;
            Assert.AreEqual(2, weights.Count, "the cell's kernel and recurrent kernel (no bias), shared with the RNN");
            var expected = PyScript.Run(
                "cell = keras.layers.GRUCell(4, reset_after=False, use_bias=False)\n" +
                "rnn = keras.layers.RNN(cell, return_sequences=True)\n" +
                "rnn(x)\n" +
                "rnn.set_weights(w)\n" +
                "put('y', rnn(x))\n",
                "x", x, "w", new System.Collections.Generic.List<NDArray> { weights[0].numpy(), weights[1].numpy() });
            Assert.IsTrue(expected["y"].BitwiseEquals(output), "the same numbers as Keras's RNN");
        }

        [Test]
        public void BidirectionalConcatenatesBothDirections()
        {
            var bi = keras.layers.Bidirectional(keras.layers.LSTM(10, return_sequences: true));
            Assert.AreEqual(new Shape(4, 6, 20), bi.Apply(tf.constant(Data.Uniform(4, 4, 6, 8))).shape);
        }
    }
}
