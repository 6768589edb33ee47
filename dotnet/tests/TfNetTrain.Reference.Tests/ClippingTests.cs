using System.Collections.Generic;
using System.Linq;
using NUnit.Framework;

namespace TfNetTrain.Reference.Tests
{
    [TestFixture]
    public class ClippingTests
    {
        private static IList<Tensor> Grads(params double[][] tensors)
        {
            return tensors.Select(t => new Tensor(new[] { t.Length }, (double[])t.Clone())).ToList();
        }

        private static void AssertTensors(double[][] expected, IList<Tensor> actual, double tolerance = 1e-12)
        {
            Assert.AreEqual(expected.Length, actual.Count);
            for (int t = 0; t < expected.Length; t++)
                for (int i = 0; i < expected[t].Length; i++)
                    Assert.AreEqual(expected[t][i], actual[t].Data[i], tolerance, string.Format("tensor {0}, element {1}", t, i));
        }

        [Test]
        public void ClipValueBoundsEachElement()
        {
            IList<Tensor> clipped = GradientClipping.ClipByValue(Grads(new[] { 3.0, -0.5, 0.2 }, new[] { -7.0 }), 1.0, Numerics.Float64);
            AssertTensors(new[] { new[] { 1.0, -0.5, 0.2 }, new[] { -1.0 } }, clipped);
        }

        [Test]
        public void ClipNormRescalesEachTensorOnItsOwn()
        {
            // ||[3, 4]|| = 5 > 1 -> [3, 4] / 5; ||[0.3]|| = 0.3 <= 1 -> unchanged; a zero tensor stays zero.
            IList<Tensor> clipped = GradientClipping.ClipByNorm(Grads(new[] { 3.0, 4.0 }, new[] { 0.3 }, new[] { 0.0, 0.0 }), 1.0, Numerics.Float64);
            AssertTensors(new[] { new[] { 0.6, 0.8 }, new[] { 0.3 }, new[] { 0.0, 0.0 } }, clipped);
        }

        [Test]
        public void GlobalClipNormRescalesAllTensorsTogether()
        {
            // global norm sqrt(9 + 16 + 144) = 13; clip 6.5 -> every element times 0.5.
            IList<Tensor> clipped = GradientClipping.ClipByGlobalNorm(Grads(new[] { 3.0, 4.0 }, new[] { 12.0 }), 6.5, Numerics.Float64);
            AssertTensors(new[] { new[] { 1.5, 2.0 }, new[] { 6.0 } }, clipped);
            Assert.AreEqual(13.0, GradientClipping.GlobalNorm(Grads(new[] { 3.0, 4.0 }, new[] { 12.0 }), Numerics.Float64), 1e-12);
        }

        [Test]
        public void GlobalClipNormBelowThresholdKeepsGradients()
        {
            IList<Tensor> clipped = GradientClipping.ClipByGlobalNorm(Grads(new[] { 3.0, 4.0 }, new[] { 12.0 }), 20.0, Numerics.Float64);
            AssertTensors(new[] { new[] { 3.0, 4.0 }, new[] { 12.0 } }, clipped);
        }

        [Test]
        public void GlobalClipNormOfZeroGradientsStaysZero()
        {
            IList<Tensor> clipped = GradientClipping.ClipByGlobalNorm(Grads(new[] { 0.0, 0.0 }), 1.0, Numerics.Float64);
            AssertTensors(new[] { new[] { 0.0, 0.0 } }, clipped);
        }

        [Test]
        public void ApplyUsesTheOneOptionSet()
        {
            IList<Tensor> grads = Grads(new[] { 3.0, 4.0 }, new[] { 0.5 });
            OptimizerSpec byValue = OptimizerSpec.ForKind(OptimizerKind.Sgd);
            byValue.ClipValue = 2.0;
            AssertTensors(new[] { new[] { 2.0, 2.0 }, new[] { 0.5 } }, GradientClipping.Apply(byValue, grads, Numerics.Float64));
            OptimizerSpec byNorm = OptimizerSpec.ForKind(OptimizerKind.Sgd);
            byNorm.ClipNorm = 1.0;
            AssertTensors(new[] { new[] { 0.6, 0.8 }, new[] { 0.5 } }, GradientClipping.Apply(byNorm, grads, Numerics.Float64));
            OptimizerSpec byGlobal = OptimizerSpec.ForKind(OptimizerKind.Sgd);
            byGlobal.GlobalClipNorm = 0.5;
            double s = 0.5 / System.Math.Sqrt(25.25);
            AssertTensors(new[] { new[] { 3.0 * s, 4.0 * s }, new[] { 0.5 * s } }, GradientClipping.Apply(byGlobal, grads, Numerics.Float64));
        }

        [TestCase("ClipValue", "ClipNorm")]
        [TestCase("ClipNorm", "GlobalClipNorm")]
        [TestCase("GlobalClipNorm", "ClipValue")]
        public void ASecondClipOptionIsRefusedAndNothingChanges(string first, string second)
        {
            OptimizerSpec spec = OptimizerSpec.ForKind(OptimizerKind.Adam);
            typeof(OptimizerSpec).GetProperty(first).SetValue(spec, (double?)0.5);
            var e = Assert.Throws<System.Reflection.TargetInvocationException>(
                () => typeof(OptimizerSpec).GetProperty(second).SetValue(spec, (double?)1.0));
            var inner = e.InnerException as System.ArgumentException;
            Assert.IsNotNull(inner, "an ArgumentException");
            Assert.AreEqual(second, inner.ParamName);
            StringAssert.Contains("Only one of ClipNorm, ClipValue and GlobalClipNorm", inner.Message);
            StringAssert.Contains(first + " = 0.5", inner.Message);
            Assert.AreEqual(0.5, (double?)typeof(OptimizerSpec).GetProperty(first).GetValue(spec));
            Assert.IsNull(typeof(OptimizerSpec).GetProperty(second).GetValue(spec), "the refused value is not stored");
            typeof(OptimizerSpec).GetProperty(first).SetValue(spec, null);
            typeof(OptimizerSpec).GetProperty(second).SetValue(spec, (double?)1.0);
            Assert.AreEqual(1.0, (double?)typeof(OptimizerSpec).GetProperty(second).GetValue(spec), "allowed once the first is cleared");
        }

        [Test]
        public void NoOptionLeavesACopy()
        {
            IList<Tensor> grads = Grads(new[] { 3.0, 4.0 });
            IList<Tensor> clipped = GradientClipping.Apply(OptimizerSpec.ForKind(OptimizerKind.Adam), grads, Numerics.Float64);
            AssertTensors(new[] { new[] { 3.0, 4.0 } }, clipped);
            Assert.AreNotSame(grads[0], clipped[0]);
        }

        [Test]
        public void Float32ResultsAreFloat32Values()
        {
            IList<Tensor> clipped = GradientClipping.ClipByNorm(Grads(new[] { 3.0, 4.0 }), 1.0, Numerics.Float32);
            Assert.AreEqual((double)0.6f, clipped[0].Data[0]);
            Assert.AreEqual((double)0.8f, clipped[0].Data[1]);
        }
    }
}
