using System;
using System.Collections.Generic;
using System.Linq;
using NUnit.Framework;

namespace TfNetTrain.Reference.Tests
{
    /// <summary>Analytic gradients against central finite differences in double, for every activation, loss and profile.</summary>
    [TestFixture]
    public class GradientTests
    {
        private const int Batch = 5;
        private const int Features = 3;
        private const int Hidden = 4;

        public static IEnumerable<TestCaseData> Combinations()
        {
            foreach (Activation activation in Enum.GetValues(typeof(Activation)))
            foreach (LossKind loss in Enum.GetValues(typeof(LossKind)))
            foreach (Semantics semantics in Enum.GetValues(typeof(Semantics)))
            foreach (bool fromLogits in IsCrossEntropy(loss) ? new[] { false, true } : new[] { false })
            foreach (bool weighted in new[] { false, true })
            {
                yield return new TestCaseData(activation, loss, semantics, fromLogits, weighted).SetName(string.Format(
                    "Gradient_{0}_{1}_{2}{3}{4}", CaseNames.Of(activation), CaseNames.Of(loss), CaseNames.Of(semantics),
                    fromLogits ? "_from_logits" : "", weighted ? "_weighted" : ""));
            }
        }

        private static bool IsCrossEntropy(LossKind loss)
        {
            return loss == LossKind.BinaryCrossentropy || loss == LossKind.CategoricalCrossentropy
                || loss == LossKind.SparseCategoricalCrossentropy;
        }

        [TestCaseSource("Combinations")]
        public void AnalyticGradientsMatchCentralDifferences(Activation activation, LossKind loss, Semantics semantics, bool fromLogits, bool weighted)
        {
            int units = loss == LossKind.CategoricalCrossentropy || loss == LossKind.SparseCategoricalCrossentropy ? 3 : 2;
            var layers = new List<LayerSpec> { new LayerSpec(Hidden, activation), new LayerSpec(units, activation) };
            var objective = new TrainingObjective(Features, layers, new LossSpec(loss, fromLogits), semantics, Numerics.Float64);
            List<Tensor> weights = Weights(units);
            var x = new Tensor(new[] { Batch, Features }, TestData.Uniform(Batch * Features, 11));
            Tensor y = Targets(loss, units);
            Tensor sw = weighted ? new Tensor(new[] { Batch, 1 }, TestData.Uniform(Batch, 13).Select(v => 1.0 + 0.5 * v).ToArray()) : null;

            ObjectiveResult analytic = objective.Evaluate(weights, x, y, sw);
            Assert.IsFalse(double.IsNaN(analytic.Loss) || double.IsInfinity(analytic.Loss), "loss " + analytic.Loss);
            double total = 0;
            for (int t = 0; t < weights.Count; t++)
            {
                for (int i = 0; i < weights[t].Size; i++)
                {
                    double original = weights[t].Data[i];
                    double h = 1e-6 * Math.Max(1.0, Math.Abs(original));
                    weights[t].Data[i] = original + h;
                    double plus = objective.Evaluate(weights, x, y, sw).Loss;
                    weights[t].Data[i] = original - h;
                    double minus = objective.Evaluate(weights, x, y, sw).Loss;
                    weights[t].Data[i] = original;
                    double numeric = (plus - minus) / (2 * h);
                    double exact = analytic.Gradients[t].Data[i];
                    Assert.AreEqual(numeric, exact, 1e-7 + 1e-6 * Math.Abs(numeric), string.Format("weight {0}, element {1}", t, i));
                    total += Math.Abs(exact);
                }
            }
            Assert.Greater(total, 1e-3, "the gradients must not vanish, or the comparison proves nothing");
        }

        private static List<Tensor> Weights(int units)
        {
            return new List<Tensor>
            {
                new Tensor(new[] { Features, Hidden }, TestData.Uniform(Features * Hidden, 21, 0.8)),
                new Tensor(new[] { Hidden }, TestData.Uniform(Hidden, 22, 0.2)),
                new Tensor(new[] { Hidden, units }, TestData.Uniform(Hidden * units, 23, 0.5)),
                new Tensor(new[] { units }, TestData.Uniform(units, 24, 0.1).Select(v => 0.6 + v).ToArray()),
            };
        }

        private static Tensor Targets(LossKind loss, int units)
        {
            double[] u = TestData.Uniform(Batch * units, 31);
            switch (loss)
            {
                case LossKind.BinaryCrossentropy:
                    return new Tensor(new[] { Batch, units }, u.Select(v => v > 0 ? 1.0 : 0.0).ToArray());
                case LossKind.CategoricalCrossentropy:
                    var oneHot = Tensor.Zeros(Batch, units);
                    for (int r = 0; r < Batch; r++) oneHot[r, (r * 2 + 1) % units] = 1.0;
                    return oneHot;
                case LossKind.SparseCategoricalCrossentropy:
                    return new Tensor(new[] { Batch, 1 }, Enumerable.Range(0, Batch).Select(r => (double)((r * 2 + 1) % units)).ToArray());
                default:
                    return new Tensor(new[] { Batch, units }, u);
            }
        }
    }
}
