using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using NUnit.Framework;

namespace TfNetTrain.Reference.Tests
{
    [TestFixture]
    public class TrainerTests
    {
        private static ConformanceCase Case(string optimizer = null, bool sampleWeight = true, string semantics = "keras", string metrics = "[\"mae\", \"mape\"]")
        {
            ConformanceCase c = ConformanceCase.ParseSpec(TestData.CaseJson(semantics: semantics, optimizer: optimizer, metrics: metrics));
            c.AttachArrays(TestData.CaseArrays(sampleWeight: sampleWeight));
            return c;
        }

        [Test]
        public void TraceHasExactlyTheDocumentedKeys()
        {
            string optimizer = "{\"name\": \"sgd\", \"learning_rate\": 0.1, \"momentum\": 0.9}";
            Dictionary<string, NpyArray> trace = new ReferenceTrainer(Case(optimizer)).Step();
            var expected = new List<string> { "inputs/x/0", "inputs/y/0", "inputs/sample_weight/0", "y_pred/0", "loss" };
            foreach (string stage in new[] { "gradients", "aggregated_gradients", "clipped_gradients", "weights", "optimizer_state/momentum" })
                for (int i = 0; i < 4; i++) expected.Add(stage + "/" + i);
            expected.AddRange(new[] { "optimizer_state/iterations", "optimizer_state/learning_rate", "metrics/loss", "metrics/mae", "metrics/mape" });
            CollectionAssert.AreEquivalent(expected, trace.Keys);
        }

        [Test]
        public void AdamAndRmsPropSlotsAreNamedAsDocumented()
        {
            var adam = new ReferenceTrainer(Case("{\"name\": \"adam\", \"amsgrad\": true}")).Step();
            Assert.IsTrue(adam.ContainsKey("optimizer_state/m/3") && adam.ContainsKey("optimizer_state/v/3") && adam.ContainsKey("optimizer_state/vhat/3"));
            var rms = new ReferenceTrainer(Case("{\"name\": \"rmsprop\", \"momentum\": 0.5, \"centered\": true}")).Step();
            Assert.IsTrue(rms.ContainsKey("optimizer_state/rms/0") && rms.ContainsKey("optimizer_state/mg/0") && rms.ContainsKey("optimizer_state/momentum/0"));
        }

        [Test]
        public void NoSampleWeightKeyWithoutSampleWeights()
        {
            Assert.IsFalse(new ReferenceTrainer(Case(sampleWeight: false)).Step().ContainsKey("inputs/sample_weight/0"));
        }

        [Test]
        public void InputsAreTheBatchAfterExpand1d()
        {
            Dictionary<string, NpyArray> trace = new ReferenceTrainer(Case()).Step();
            CollectionAssert.AreEqual(new[] { 4, 2 }, trace["inputs/x/0"].Shape);
            CollectionAssert.AreEqual(new[] { 4, 1 }, trace["inputs/y/0"].Shape);
            CollectionAssert.AreEqual(new[] { 4, 1 }, trace["inputs/sample_weight/0"].Shape);
            CollectionAssert.AreEqual(new[] { 4, 1 }, trace["y_pred/0"].Shape);
            Assert.AreEqual("float32", trace["y_pred/0"].Dtype);
            Assert.AreEqual("float64", trace["loss"].Dtype);
            Assert.AreEqual(0, trace["loss"].Rank);
            Assert.AreEqual("int64", trace["optimizer_state/iterations"].Dtype);
        }

        [Test]
        public void StepsWalkThroughTheRowsAndCountIterations()
        {
            ConformanceCase c = Case();
            var trainer = new ReferenceTrainer(c);
            Dictionary<string, NpyArray> first = trainer.Step();
            Dictionary<string, NpyArray> second = trainer.Step();
            CollectionAssert.AreEqual(((float[])c.X.Data).Skip(8).Take(8).ToArray(), (float[])second["inputs/x/0"].Data);
            Assert.AreEqual(1L, ((long[])first["optimizer_state/iterations"].Data)[0]);
            Assert.AreEqual(2L, ((long[])second["optimizer_state/iterations"].Data)[0]);
            Assert.AreEqual((double)0.1f, second["optimizer_state/learning_rate"].GetDouble(0));
            CollectionAssert.AreEqual(trainer.Weights[0].Data.Select(v => (float)v).ToArray(), (float[])second["weights/0"].Data);
            Assert.Throws<InvalidOperationException>(() => trainer.Step());
        }

        [Test]
        public void MetricsAreRunningMeansOverTheSteps()
        {
            var trainer = new ReferenceTrainer(Case());
            Dictionary<string, NpyArray> first = trainer.Step();
            Dictionary<string, NpyArray> second = trainer.Step();
            double loss1 = first["loss"].GetDouble(0), loss2 = second["loss"].GetDouble(0);
            Assert.AreEqual(loss1, first["metrics/loss"].GetDouble(0), 1e-6 * Math.Abs(loss1));
            Assert.AreEqual((loss1 + loss2) / 2, second["metrics/loss"].GetDouble(0), 1e-6 * Math.Abs(loss1 + loss2));
            double mae1 = MeanAbsoluteError(first), mae2 = MeanAbsoluteError(second);
            Assert.AreEqual(mae1, first["metrics/mae"].GetDouble(0), 1e-6);
            Assert.AreEqual((mae1 + mae2) / 2, second["metrics/mae"].GetDouble(0), 1e-6);
        }

        private static double MeanAbsoluteError(Dictionary<string, NpyArray> trace)
        {
            double[] y = trace["inputs/y/0"].ToDoubleArray(), p = trace["y_pred/0"].ToDoubleArray();
            return y.Zip(p, (a, b) => Math.Abs(a - b)).Average();
        }

        [Test]
        public void AccuracyResolvesFromShapes()
        {
            var metrics = new CompiledMetrics(new[] { "acc" }, Semantics.Keras, Numerics.Float64);
            metrics.Update(0.0, Tensor.FromRows(new[] { new[] { 1.0 }, new[] { 0.0 } }), Tensor.FromRows(new[] { new[] { 0.7 }, new[] { 0.6 } }));
            Assert.AreEqual(0.5, metrics.Results()[1].Value, "binary: threshold 0.5");

            var sparse = new CompiledMetrics(new[] { "accuracy" }, Semantics.TfNet, Numerics.Float64);
            sparse.Update(0.0, Tensor.FromRows(new[] { new[] { 2.0 }, new[] { 0.0 } }), Tensor.FromRows(new[] { new[] { 0.1, 0.2, 0.7 }, new[] { 0.1, 0.8, 0.1 } }));
            Assert.AreEqual("accuracy", sparse.Results()[1].Key);
            Assert.AreEqual(0.5, sparse.Results()[1].Value, "sparse: label against argmax");

            var categorical = new CompiledMetrics(new[] { "acc" }, Semantics.Keras, Numerics.Float64);
            categorical.Update(0.0, Tensor.FromRows(new[] { new[] { 0.0, 1.0 }, new[] { 1.0, 0.0 } }), Tensor.FromRows(new[] { new[] { 0.2, 0.8 }, new[] { 0.3, 0.7 } }));
            Assert.AreEqual(0.5, categorical.Results()[1].Value, "categorical: argmax against argmax");
        }

        [Test]
        public void LossMetricIsWeightedByBatchSize()
        {
            var metrics = new CompiledMetrics(new string[0], Semantics.Keras, Numerics.Float64);
            metrics.Update(1.0, Tensor.Zeros(1, 1), Tensor.Zeros(3, 1));
            metrics.Update(5.0, Tensor.Zeros(1, 1), Tensor.Zeros(1, 1));
            Assert.AreEqual((1.0 * 3 + 5.0 * 1) / 4, metrics.Results()[0].Value, 1e-12);
        }

        [Test]
        public void RunToNpzWritesEveryStepUnderItsPrefix()
        {
            string folder = TestData.NewFolder();
            try
            {
                string json = TestData.WriteCase(folder, TestData.CaseJson(), TestData.CaseArrays(sampleWeight: true));
                string output = Path.Combine(folder, "trace.npz");
                ReferenceRunner.RunToNpz(json, output);
                Dictionary<string, NpyArray> arrays = Npz.Load(output);
                List<Dictionary<string, NpyArray>> traces = ReferenceRunner.Run(ConformanceCase.Load(json));
                Assert.AreEqual(traces.Sum(t => t.Count), arrays.Count);
                for (int step = 0; step < 2; step++)
                    foreach (var entry in traces[step])
                        CollectionAssert.AreEqual(entry.Value.Data, arrays["step" + step + "/" + entry.Key].Data, entry.Key);
            }
            finally
            {
                Directory.Delete(folder, true);
            }
        }
    }
}
