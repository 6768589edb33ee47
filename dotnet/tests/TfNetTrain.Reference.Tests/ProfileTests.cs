using System;
using System.Collections.Generic;
using System.Linq;
using NUnit.Framework;

namespace TfNetTrain.Reference.Tests
{
    /// <summary>Where the tfnet profile (TensorFlow.NET) computes something else than the keras profile (Keras 3).</summary>
    [TestFixture]
    public class ProfileTests
    {
        /// <summary>A one-unit identity model, so y_pred equals x.</summary>
        private static ObjectiveResult Identity(Semantics semantics, LossKind loss, double[] x, double[] y, double[] w, bool fromLogits = false)
        {
            var objective = new TrainingObjective(1, new List<LayerSpec> { new LayerSpec(1, Activation.Linear) },
                new LossSpec(loss, fromLogits), semantics, Numerics.Float64);
            var weights = new List<Tensor> { new Tensor(new[] { 1, 1 }, new[] { 1.0 }), new Tensor(new[] { 1 }, new[] { 0.0 }) };
            int b = x.Length;
            Tensor sw = w == null ? null : new Tensor(new[] { b, 1 }, w);
            return objective.Evaluate(weights, new Tensor(new[] { b, 1 }, x), new Tensor(new[] { b, 1 }, y), sw);
        }

        [Test]
        public void WeightedLossUnderTfNetIsMeanWeightTimesMeanLoss()
        {
            double[] x = { 1, 2, 3 }, y = { 0, 0, 0 }, w = { 1, 0, 2 };
            // per-sample squared errors 1, 4, 9
            double keras = Identity(Semantics.Keras, LossKind.MeanSquaredError, x, y, w).Loss;
            double tfnet = Identity(Semantics.TfNet, LossKind.MeanSquaredError, x, y, w).Loss;
            Assert.AreEqual((1 * 1 + 4 * 0 + 9 * 2) / 3.0, keras, 1e-12);
            Assert.AreEqual(((1 + 0 + 2) / 3.0) * ((1 + 4 + 9) / 3.0), tfnet, 1e-12);
        }

        [Test]
        public void WeightedGradientUnderTfNetUsesMeanWeightForEverySample()
        {
            double[] x = { 1, 2, 3 }, y = { 0, 0, 0 }, w = { 1, 0, 2 };
            // d/dkernel of mean(w) * mean((x k)^2) at k = 1 is mean(w) * mean(2 x^2) = 1 * 28 / 3.
            ObjectiveResult tfnet = Identity(Semantics.TfNet, LossKind.MeanSquaredError, x, y, w);
            Assert.AreEqual(28.0 / 3.0, tfnet.Gradients[0].Data[0], 1e-12);
            // keras: sum(w 2 x^2) / 3 = (2 + 0 + 36) / 3.
            ObjectiveResult keras = Identity(Semantics.Keras, LossKind.MeanSquaredError, x, y, w);
            Assert.AreEqual(38.0 / 3.0, keras.Gradients[0].Data[0], 1e-12);
        }

        [Test]
        public void UnweightedLossIsTheSameInBothProfiles()
        {
            double[] x = { 1, 2, 3 }, y = { 0.5, 0, -1 };
            Assert.AreEqual(Identity(Semantics.Keras, LossKind.MeanAbsoluteError, x, y, null).Loss,
                Identity(Semantics.TfNet, LossKind.MeanAbsoluteError, x, y, null).Loss);
        }

        [Test]
        public void BinaryCrossentropyUnderTfNetAddsEpsilonInsideTheLogarithms()
        {
            double[] p = { 1e-5 }, y = { 1 };
            Assert.AreEqual(-Math.Log(1e-5), Identity(Semantics.Keras, LossKind.BinaryCrossentropy, p, y, null).Loss, 1e-9);
            Assert.AreEqual(-Math.Log(1e-5 + 1e-7), Identity(Semantics.TfNet, LossKind.BinaryCrossentropy, p, y, null).Loss, 1e-9);
        }

        [Test]
        public void ProbabilitiesAreClippedToEpsilon()
        {
            // p = -3 is clipped to 1e-7 in both profiles; then the gradient through the clip is zero.
            ObjectiveResult keras = Identity(Semantics.Keras, LossKind.BinaryCrossentropy, new[] { -3.0 }, new[] { 1.0 }, null);
            Assert.AreEqual(-Math.Log(1e-7), keras.Loss, 1e-9);
            Assert.AreEqual(0.0, keras.Gradients[0].Data[0]);
        }

        [Test]
        public void SaturatedSoftmaxUsesLogitsUnderKerasAndClippedProbabilitiesUnderTfNet()
        {
            var layers = new List<LayerSpec> { new LayerSpec(2, Activation.Softmax) };
            var weights = new List<Tensor> { new Tensor(new[] { 1, 2 }, new[] { 20.0, -20.0 }), new Tensor(new[] { 2 }, new[] { 0.0, 0.0 }) };
            var x = new Tensor(new[] { 1, 1 }, new[] { 1.0 });
            var y = new Tensor(new[] { 1, 2 }, new[] { 0.0, 1.0 });
            var loss = new LossSpec(LossKind.CategoricalCrossentropy);
            ObjectiveResult keras = new TrainingObjective(1, layers, loss, Semantics.Keras, Numerics.Float64).Evaluate(weights, x, y, null);
            ObjectiveResult tfnet = new TrainingObjective(1, layers, loss, Semantics.TfNet, Numerics.Float64).Evaluate(weights, x, y, null);
            Assert.AreEqual(40.0 + Math.Log(1 + Math.Exp(-40)), keras.Loss, 1e-9, "log-sum-exp of the logits");
            Assert.AreEqual(-Math.Log(1e-7), tfnet.Loss, 1e-9, "probability clipped to epsilon");
            Assert.AreEqual(-1.0, keras.Gradients[0].Data[1], 1e-9, "softmax - y on the logits");
            Assert.AreEqual(0.0, tfnet.Gradients[0].Data[1], "no gradient through the clip");
        }

        [Test]
        public void SparseLabelsWorkWithLogitsAndProbabilities()
        {
            var layers = new List<LayerSpec> { new LayerSpec(3, Activation.Linear) };
            var weights = new List<Tensor> { new Tensor(new[] { 1, 3 }, new[] { 1.0, 2.0, 3.0 }), new Tensor(new[] { 3 }, new double[3]) };
            var x = new Tensor(new[] { 1, 1 }, new[] { 0.1 });
            var y = new Tensor(new[] { 1, 1 }, new[] { 2.0 });
            double fromLogits = new TrainingObjective(1, layers, new LossSpec(LossKind.SparseCategoricalCrossentropy, true), Semantics.TfNet, Numerics.Float64)
                .Evaluate(weights, x, y, null).Loss;
            double lse = Math.Log(Math.Exp(0.1) + Math.Exp(0.2) + Math.Exp(0.3));
            Assert.AreEqual(lse - 0.3, fromLogits, 1e-12);
            double fromProbabilities = new TrainingObjective(1, layers, new LossSpec(LossKind.SparseCategoricalCrossentropy), Semantics.TfNet, Numerics.Float64)
                .Evaluate(weights, x, y, null).Loss;
            Assert.AreEqual(-Math.Log(0.3 / 0.6), fromProbabilities, 1e-12, "log-probabilities renormalised by the softmax kernel");
        }

        [TestCase("acc", "acc", "accuracy")]
        [TestCase("accuracy", "accuracy", "accuracy")]
        [TestCase("mae", "mae", "mean_absolute_error")]
        [TestCase("mape", "mape", "mean_absolute_percentage_error")]
        [TestCase("mse", "mse", null)]
        public void MetricNames(string identifier, string keras, string tfnet)
        {
            Assert.AreEqual(keras, CompiledMetrics.ReportedName(identifier, Semantics.Keras));
            if (tfnet == null)
            {
                var e = Assert.Throws<ProfileNotSupportedException>(() => CompiledMetrics.ReportedName(identifier, Semantics.TfNet));
                StringAssert.Contains("\"" + identifier + "\"", e.Message);
            }
            else
            {
                Assert.AreEqual(tfnet, CompiledMetrics.ReportedName(identifier, Semantics.TfNet));
            }
        }

        [Test]
        public void TfNetTrainerIgnoresClippingAndKerasTrainerClips()
        {
            Dictionary<string, NpyArray> keras = FirstStep("keras");
            Dictionary<string, NpyArray> tfnet = FirstStep("tfnet");
            for (int i = 0; i < 4; i++)
            {
                CollectionAssert.AreEqual(tfnet["gradients/" + i].Data, tfnet["clipped_gradients/" + i].Data);
                foreach (float g in (float[])keras["clipped_gradients/" + i].Data) Assert.LessOrEqual(Math.Abs(g), 1e-3f);
            }
            Assert.IsTrue(((float[])keras["gradients/0"].Data).Any(g => Math.Abs(g) > 1e-3f), "the case must need clipping");
            Assert.IsTrue(keras.ContainsKey("metrics/mae"));
            Assert.IsTrue(tfnet.ContainsKey("metrics/mean_absolute_error"));
        }

        private static Dictionary<string, NpyArray> FirstStep(string semantics)
        {
            string optimizer = "{\"name\": \"sgd\", \"learning_rate\": 0.1, \"clipvalue\": 0.001}";
            ConformanceCase c = ConformanceCase.ParseSpec(TestData.CaseJson(semantics: semantics, optimizer: optimizer));
            c.AttachArrays(TestData.CaseArrays());
            return new ReferenceTrainer(c).Step();
        }

        [Test]
        public void TfNetTrainerRejectsTheMseMetric()
        {
            ConformanceCase c = ConformanceCase.ParseSpec(TestData.CaseJson(semantics: "tfnet", metrics: "[\"acc\", \"mse\"]"));
            c.AttachArrays(TestData.CaseArrays());
            Assert.Throws<ProfileNotSupportedException>(() => new ReferenceTrainer(c));
        }
    }
}
