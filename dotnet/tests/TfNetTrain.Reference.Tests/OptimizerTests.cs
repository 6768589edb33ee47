using System;
using System.Collections.Generic;
using System.Linq;
using NUnit.Framework;

namespace TfNetTrain.Reference.Tests
{
    /// <summary>The first two updates of each optimizer against the update rules written out by hand.</summary>
    [TestFixture]
    public class OptimizerTests
    {
        private static readonly double[] Start = { 1.0, -2.0 };
        private static readonly double[] G1 = { 0.5, -0.25 };
        private static readonly double[] G2 = { 0.1, 0.3 };

        private static ReferenceOptimizer Optimizer(OptimizerSpec spec, Semantics semantics, Numerics numerics = null)
        {
            return ReferenceOptimizer.Create(spec, semantics, numerics ?? Numerics.Float64, new List<int[]> { new[] { 2 } });
        }

        private static Tensor Vector(double[] values)
        {
            return new Tensor(new[] { values.Length }, (double[])values.Clone());
        }

        /// <summary>Runs two steps from <see cref="Start"/> with G1 then G2; returns the variable after each.</summary>
        private static double[][] TwoSteps(ReferenceOptimizer optimizer)
        {
            var variable = Vector(Start);
            optimizer.Apply(new[] { variable }, new[] { Vector(G1) });
            double[] first = (double[])variable.Data.Clone();
            optimizer.Apply(new[] { variable }, new[] { Vector(G2) });
            return new[] { first, (double[])variable.Data.Clone() };
        }

        private static void AssertVector(double[] expected, double[] actual, string what)
        {
            for (int i = 0; i < expected.Length; i++) Assert.AreEqual(expected[i], actual[i], 1e-12, what + "[" + i + "]");
        }

        private static double[] Map(Func<int, double> f)
        {
            return Enumerable.Range(0, 2).Select(f).ToArray();
        }

        [TestCase(Semantics.Keras)]
        [TestCase(Semantics.TfNet)]
        public void SgdWithoutMomentum(Semantics semantics)
        {
            OptimizerSpec spec = OptimizerSpec.ForKind(OptimizerKind.Sgd);
            spec.LearningRate = 0.1;
            ReferenceOptimizer sgd = Optimizer(spec, semantics);
            double[][] steps = TwoSteps(sgd);
            AssertVector(new[] { 0.95, -1.975 }, steps[0], "step 1");
            AssertVector(new[] { 0.94, -2.005 }, steps[1], "step 2");
            Assert.AreEqual(0, sgd.Slots.Count);
            Assert.AreEqual(2, sgd.Iterations);
        }

        [TestCase(Semantics.Keras, false)]
        [TestCase(Semantics.TfNet, false)]
        [TestCase(Semantics.TfNet, true)]
        public void SgdMomentum(Semantics semantics, bool nesterov)
        {
            OptimizerSpec spec = OptimizerSpec.ForKind(OptimizerKind.Sgd);
            spec.LearningRate = 0.1;
            spec.Momentum = 0.9;
            spec.Nesterov = nesterov;
            ReferenceOptimizer sgd = Optimizer(spec, semantics);
            double[][] steps = TwoSteps(sgd);
            // m1 = -0.1 g1 = [-0.05, 0.025]; var1 = var0 + m1; m2 = 0.9 m1 - 0.1 g2 = [-0.055, -0.0075]; var2 = var1 + m2.
            AssertVector(new[] { 0.95, -1.975 }, steps[0], "step 1");
            AssertVector(new[] { 0.895, -1.9825 }, steps[1], "step 2");
            AssertVector(new[] { -0.055, -0.0075 }, sgd.Slots["momentum"][0].Data, "momentum slot");
        }

        [Test]
        public void SgdNesterovUnderKeras()
        {
            OptimizerSpec spec = OptimizerSpec.ForKind(OptimizerKind.Sgd);
            spec.LearningRate = 0.1;
            spec.Momentum = 0.9;
            spec.Nesterov = true;
            double[][] steps = TwoSteps(Optimizer(spec, Semantics.Keras));
            // var1 = var0 + 0.9 m1 - 0.1 g1 = [1 - 0.045 - 0.05, -2 + 0.0225 + 0.025];
            // var2 = var1 + 0.9 m2 - 0.1 g2 = var1 + [-0.0495 - 0.01, -0.00675 - 0.03].
            AssertVector(new[] { 0.905, -1.9525 }, steps[0], "step 1");
            AssertVector(new[] { 0.8455, -1.98925 }, steps[1], "step 2");
        }

        [TestCase(Semantics.Keras)]
        [TestCase(Semantics.TfNet)]
        public void Adam(Semantics semantics)
        {
            OptimizerSpec spec = OptimizerSpec.ForKind(OptimizerKind.Adam);
            spec.LearningRate = 0.01;
            ReferenceOptimizer adam = Optimizer(spec, semantics);
            double[][] steps = TwoSteps(adam);
            double[] m1 = Map(i => 0.1 * G1[i]);
            double[] v1 = Map(i => 0.001 * G1[i] * G1[i]);
            double alpha1 = 0.01 * Math.Sqrt(1 - 0.999) / (1 - 0.9);
            double[] var1 = Map(i => Start[i] - m1[i] * alpha1 / (Math.Sqrt(v1[i]) + 1e-7));
            double[] m2 = Map(i => m1[i] + (G2[i] - m1[i]) * 0.1);
            double[] v2 = Map(i => v1[i] + (G2[i] * G2[i] - v1[i]) * 0.001);
            double alpha2 = 0.01 * Math.Sqrt(1 - 0.999 * 0.999) / (1 - 0.9 * 0.9);
            double[] var2 = Map(i => var1[i] - m2[i] * alpha2 / (Math.Sqrt(v2[i]) + 1e-7));
            AssertVector(var1, steps[0], "step 1");
            AssertVector(var2, steps[1], "step 2");
            AssertVector(m2, adam.Slots["m"][0].Data, "m");
            AssertVector(v2, adam.Slots["v"][0].Data, "v");
            CollectionAssert.AreEqual(new[] { "m", "v" }, adam.Slots.Keys.ToArray());
        }

        [Test]
        public void AdamAmsgradUnderKerasKeepsTheLargestSecondMoment()
        {
            OptimizerSpec spec = OptimizerSpec.ForKind(OptimizerKind.Adam);
            spec.LearningRate = 0.01;
            spec.Beta2 = 0.5;
            spec.Amsgrad = true;
            ReferenceOptimizer adam = Optimizer(spec, Semantics.Keras);
            double[][] steps = TwoSteps(adam);
            double[] m1 = Map(i => 0.1 * G1[i]);
            double[] v1 = Map(i => 0.5 * G1[i] * G1[i]);
            double alpha1 = 0.01 * Math.Sqrt(1 - 0.5) / (1 - 0.9);
            double[] var1 = Map(i => Start[i] - m1[i] * alpha1 / (Math.Sqrt(v1[i]) + 1e-7));
            double[] m2 = Map(i => m1[i] + (G2[i] - m1[i]) * 0.1);
            double[] v2 = Map(i => v1[i] + (G2[i] * G2[i] - v1[i]) * 0.5);
            double[] vhat2 = { v1[0], v2[1] }; // v fell for element 0 (0.0675 < 0.125) and rose for element 1
            Assert.Less(v2[0], v1[0]);
            Assert.Greater(v2[1], v1[1]);
            double alpha2 = 0.01 * Math.Sqrt(1 - 0.25) / (1 - 0.81);
            double[] var2 = Map(i => var1[i] - m2[i] * alpha2 / (Math.Sqrt(vhat2[i]) + 1e-7));
            AssertVector(var1, steps[0], "step 1");
            AssertVector(var2, steps[1], "step 2");
            AssertVector(vhat2, adam.Slots["vhat"][0].Data, "vhat");
        }

        [TestCase(Semantics.Keras)]
        [TestCase(Semantics.TfNet)]
        public void AdamWDecaysBeforeTheAdamStep(Semantics semantics)
        {
            OptimizerSpec spec = OptimizerSpec.ForKind(OptimizerKind.AdamW);
            spec.LearningRate = 0.01;
            spec.WeightDecay = 0.1;
            double[][] steps = TwoSteps(Optimizer(spec, semantics));
            double[] m1 = Map(i => 0.1 * G1[i]);
            double[] v1 = Map(i => 0.001 * G1[i] * G1[i]);
            double alpha1 = 0.01 * Math.Sqrt(1 - 0.999) / (1 - 0.9);
            double[] var1 = Map(i => Start[i] * (1 - 0.1 * 0.01) - m1[i] * alpha1 / (Math.Sqrt(v1[i]) + 1e-7));
            double[] m2 = Map(i => m1[i] + (G2[i] - m1[i]) * 0.1);
            double[] v2 = Map(i => v1[i] + (G2[i] * G2[i] - v1[i]) * 0.001);
            double alpha2 = 0.01 * Math.Sqrt(1 - 0.999 * 0.999) / (1 - 0.9 * 0.9);
            double[] var2 = Map(i => var1[i] * (1 - 0.1 * 0.01) - m2[i] * alpha2 / (Math.Sqrt(v2[i]) + 1e-7));
            AssertVector(var1, steps[0], "step 1");
            AssertVector(var2, steps[1], "step 2");
        }

        [Test]
        public void RmsPropUnderKerasPutsEpsilonInsideTheSquareRoot()
        {
            OptimizerSpec spec = OptimizerSpec.ForKind(OptimizerKind.RmsProp);
            spec.LearningRate = 0.01;
            spec.Epsilon = 0.1;
            ReferenceOptimizer rms = Optimizer(spec, Semantics.Keras);
            double[][] steps = TwoSteps(rms);
            double[] r1 = Map(i => 0.1 * G1[i] * G1[i]);
            double[] var1 = Map(i => Start[i] - 0.01 * G1[i] / Math.Sqrt(r1[i] + 0.1));
            double[] r2 = Map(i => 0.9 * r1[i] + 0.1 * G2[i] * G2[i]);
            double[] var2 = Map(i => var1[i] - 0.01 * G2[i] / Math.Sqrt(r2[i] + 0.1));
            AssertVector(var1, steps[0], "step 1");
            AssertVector(var2, steps[1], "step 2");
            AssertVector(r2, rms.Slots["rms"][0].Data, "rms");
        }

        [TestCase(0.0)]
        [TestCase(0.5)]
        public void RmsPropUnderTfNetPutsEpsilonOutsideAndIgnoresMomentum(double momentum)
        {
            OptimizerSpec spec = OptimizerSpec.ForKind(OptimizerKind.RmsProp);
            spec.LearningRate = 0.01;
            spec.Epsilon = 0.1;
            spec.Momentum = momentum;
            ReferenceOptimizer rms = Optimizer(spec, Semantics.TfNet);
            double[][] steps = TwoSteps(rms);
            double[] r1 = Map(i => 0.1 * G1[i] * G1[i]);
            double[] var1 = Map(i => Start[i] - 0.01 * G1[i] / (Math.Sqrt(r1[i]) + 0.1));
            double[] r2 = Map(i => 0.9 * r1[i] + 0.1 * G2[i] * G2[i]);
            double[] var2 = Map(i => var1[i] - 0.01 * G2[i] / (Math.Sqrt(r2[i]) + 0.1));
            AssertVector(var1, steps[0], "step 1");
            AssertVector(var2, steps[1], "step 2");
            CollectionAssert.AreEqual(new[] { "rms" }, rms.Slots.Keys.ToArray());
        }

        [Test]
        public void RmsPropMomentumUnderKeras()
        {
            OptimizerSpec spec = OptimizerSpec.ForKind(OptimizerKind.RmsProp);
            spec.LearningRate = 0.01;
            spec.Momentum = 0.5;
            ReferenceOptimizer rms = Optimizer(spec, Semantics.Keras);
            double[][] steps = TwoSteps(rms);
            double[] r1 = Map(i => 0.1 * G1[i] * G1[i]);
            double[] mom1 = Map(i => 0.01 * G1[i] / Math.Sqrt(r1[i] + 1e-7));
            double[] r2 = Map(i => 0.9 * r1[i] + 0.1 * G2[i] * G2[i]);
            double[] mom2 = Map(i => 0.5 * mom1[i] + 0.01 * G2[i] / Math.Sqrt(r2[i] + 1e-7));
            AssertVector(Map(i => Start[i] - mom1[i]), steps[0], "step 1");
            AssertVector(Map(i => Start[i] - mom1[i] - mom2[i]), steps[1], "step 2");
            AssertVector(mom2, rms.Slots["momentum"][0].Data, "momentum");
        }

        [Test]
        public void RmsPropCenteredUnderKeras()
        {
            OptimizerSpec spec = OptimizerSpec.ForKind(OptimizerKind.RmsProp);
            spec.LearningRate = 0.01;
            spec.Centered = true;
            ReferenceOptimizer rms = Optimizer(spec, Semantics.Keras);
            double[][] steps = TwoSteps(rms);
            double[] r1 = Map(i => 0.1 * G1[i] * G1[i]);
            double[] mg1 = Map(i => 0.1 * G1[i]);
            double[] var1 = Map(i => Start[i] - 0.01 * G1[i] / Math.Sqrt(r1[i] - mg1[i] * mg1[i] + 1e-7));
            double[] r2 = Map(i => 0.9 * r1[i] + 0.1 * G2[i] * G2[i]);
            double[] mg2 = Map(i => 0.9 * mg1[i] + 0.1 * G2[i]);
            double[] var2 = Map(i => var1[i] - 0.01 * G2[i] / Math.Sqrt(r2[i] - mg2[i] * mg2[i] + 1e-7));
            AssertVector(var1, steps[0], "step 1");
            AssertVector(var2, steps[1], "step 2");
            AssertVector(mg2, rms.Slots["mg"][0].Data, "mg");
        }

        [Test]
        public void TfNetRejectsAmsgradAndCentered()
        {
            OptimizerSpec adam = OptimizerSpec.ForKind(OptimizerKind.Adam);
            adam.Amsgrad = true;
            var e = Assert.Throws<ProfileNotSupportedException>(() => Optimizer(adam, Semantics.TfNet));
            Assert.AreEqual("optimizer.amsgrad=true", e.Option);
            OptimizerSpec rms = OptimizerSpec.ForKind(OptimizerKind.RmsProp);
            rms.Centered = true;
            e = Assert.Throws<ProfileNotSupportedException>(() => Optimizer(rms, Semantics.TfNet));
            Assert.AreEqual("optimizer.centered=true", e.Option);
        }

        [Test]
        public void Float32StoresEveryResultAsFloat32()
        {
            OptimizerSpec spec = OptimizerSpec.ForKind(OptimizerKind.Adam);
            spec.LearningRate = 0.01;
            double[][] single = TwoSteps(Optimizer(spec, Semantics.Keras, Numerics.Float32));
            double[][] exact = TwoSteps(Optimizer(spec, Semantics.Keras, Numerics.Float64));
            for (int s = 0; s < 2; s++)
            {
                for (int i = 0; i < 2; i++)
                {
                    Assert.AreEqual((double)(float)single[s][i], single[s][i], "float32-representable");
                    Assert.AreEqual(exact[s][i], single[s][i], 1e-6 * Math.Abs(exact[s][i]));
                }
            }
        }

        [Test]
        public void LearningRateIsStoredAsFloat32()
        {
            OptimizerSpec spec = OptimizerSpec.ForKind(OptimizerKind.Sgd);
            spec.LearningRate = 0.1;
            Assert.AreEqual((double)0.1f, Optimizer(spec, Semantics.Keras, Numerics.Float32).LearningRate);
        }
    }
}
