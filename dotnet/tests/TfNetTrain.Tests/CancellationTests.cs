using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using NUnit.Framework;
using TfNetTrain.TensorFlowNet;
using static TfNetTrain.TensorFlowNet.KerasApi;

namespace TfNetTrain.Tests
{
    /// <summary>CancellationToken on Fit, Evaluate and Predict (and the face's fit, evaluate, predict); the Async forms.</summary>
    [TestFixture]
    public class CancellationTests
    {
        private const int BatchSize = 4;
        private const int Rows = 20; // 5 batches per epoch

        private static NDArray X(int rows) => Data.Uniform(70, rows, 4); // a prefix of rows is a prefix of the values
        private static NDArray Y(int rows) => Data.Labels(71, rows, 3);

        /// <summary>Counts batch ends; at batch end number <see cref="At"/> (counted over the fit) runs <see cref="Action"/>.</summary>
        private sealed class BatchCounter : CallbackBase
        {
            public int Ends;
            public int At = -1;
            public Action Action;

            public override void OnTrainBatchEnd(long batch, IDictionary<string, float> logs)
            {
                Ends++;
                if (Ends == At) Action();
            }
        }

        private static Model NewModel(IList<NDArray> weights = null)
        {
            Model model = ModelParityTests.Classifier();
            if (weights != null) model.SetWeights(weights);
            ModelParityTests.CompileSgd(model);
            return model;
        }

        private static long Iterations(Model model) =>
            (long)PyScript.Run("put('i', int(m.optimizer.iterations.numpy()))", "m", model)["i"].GetDouble(0);

        /// <summary>Every weight and optimizer variable, and the train counter, as Python holds them.</summary>
        private static Dictionary<string, NDArray> State(Model model) => PyScript.Run(
            "put('v', [v.numpy() for v in m.weights + m.optimizer.variables])\nput('counter', int(m._train_counter.numpy()))", "m", model);

        /// <summary>A fresh model with weights <paramref name="w0"/>, trained for exactly <paramref name="steps"/> steps of unshuffled epochs.</summary>
        private static Model Reference(IList<NDArray> w0, int steps)
        {
            Model model = NewModel(w0);
            int batchesPerEpoch = Rows / BatchSize;
            int epochs = steps / batchesPerEpoch, rest = steps % batchesPerEpoch;
            if (epochs > 0) model.Fit(X(Rows), Y(Rows), batchSize: BatchSize, epochs: epochs, verbose: 0, shuffle: false);
            if (rest > 0) model.Fit(X(rest * BatchSize), Y(rest * BatchSize), batchSize: BatchSize, verbose: 0, shuffle: false);
            Assert.AreEqual(steps, Iterations(model), "the reference's steps");
            return model;
        }

        private static void AssertSameWeightsAndOptimizer(Model expected, Model actual, string what)
        {
            Dictionary<string, NDArray> a = PyScript.Run("put('v', [v.numpy() for v in m.weights + m.optimizer.variables])", "m", expected);
            Dictionary<string, NDArray> b = PyScript.Run("put('v', [v.numpy() for v in m.weights + m.optimizer.variables])", "m", actual);
            CollectionAssert.AreEquivalent(a.Keys, b.Keys, what);
            foreach (var pair in a) Data.AssertBitwise(pair.Value, b[pair.Key], $"{what}: {pair.Key}");
        }

        private static void AssertStepsKept(Model model, IList<NDArray> w0, int steps)
        {
            Assert.AreEqual(steps, Iterations(model), "optimizer iterations");
            Assert.AreEqual(steps, model.TrainCounter, "_train_counter");
            using (Model reference = Reference(w0, steps)) AssertSameWeightsAndOptimizer(reference, model, steps + " steps");
        }

        [Test]
        public void FitCancelledInABatchEndStopsThereAndKeepsExactlyTheStepsDone()
        {
            using (var cts = new CancellationTokenSource())
            using (Model model = NewModel())
            {
                IList<NDArray> w0 = model.GetWeights();
                var counter = new BatchCounter { At = 8, Action = cts.Cancel }; // batch 3 of the second epoch
                var error = Assert.Throws<OperationCanceledException>(() => model.Fit(
                    X(Rows), Y(Rows), batchSize: BatchSize, epochs: 10, verbose: 0, shuffle: false,
                    callbacks: new ICallback[] { counter }, cancellationToken: cts.Token));
                Assert.AreEqual(cts.Token, error.CancellationToken);
                StringAssert.Contains("after batch 2", error.Message);
                Assert.IsInstanceOf<TfNetTrainException>(error.InnerException);
                Assert.AreEqual(8, counter.Ends, "no step after the cancelling batch");
                AssertStepsKept(model, w0, 8);
                // still usable, and a fit afterwards goes on from there
                model.Fit(X(Rows), Y(Rows), batchSize: BatchSize, verbose: 0, shuffle: false);
                Assert.AreEqual(13, Iterations(model));
            }
        }

        [Test]
        public void FitCancelledFromAnotherThreadKeepsExactlyTheStepsDone()
        {
            using (var cts = new CancellationTokenSource())
            using (var reached = new ManualResetEventSlim(false))
            using (Model model = NewModel())
            {
                IList<NDArray> w0 = model.GetWeights();
                var counter = new BatchCounter { At = 3, Action = () => reached.Set() };
                int workerThread = -1;
                var canceller = new Thread(() =>
                {
                    reached.Wait();
                    cts.Cancel(); // on this thread: the registration only sets the flag
                });
                canceller.Start();
                var error = Assert.Throws<OperationCanceledException>(() => model.Fit(
                    X(Rows), Y(Rows), batchSize: BatchSize, epochs: 1000, verbose: 0, shuffle: false,
                    callbacks: new ICallback[] { counter, new ThreadRecorder(id => workerThread = id) }, cancellationToken: cts.Token));
                canceller.Join();
                Assert.AreEqual(cts.Token, error.CancellationToken);
                Assert.AreNotEqual(canceller.ManagedThreadId, workerThread);
                Assert.GreaterOrEqual(counter.Ends, 3);
                Assert.Less(counter.Ends, 1000 * Rows / BatchSize, "stopped long before the end");
                AssertStepsKept(model, w0, counter.Ends);
            }
        }

        private sealed class ThreadRecorder : CallbackBase
        {
            private readonly Action<int> _record;
            public ThreadRecorder(Action<int> record) { _record = record; }
            public override void OnTrainBatchEnd(long batch, IDictionary<string, float> logs) => _record(Thread.CurrentThread.ManagedThreadId);
        }

        [Test]
        public void APreCancelledTokenThrowsBeforeAnythingRuns()
        {
            using (var cts = new CancellationTokenSource())
            using (Model model = NewModel())
            {
                model.Fit(X(Rows), Y(Rows), batchSize: BatchSize, verbose: 0, shuffle: false); // optimizer state exists
                Dictionary<string, NDArray> before = State(model);
                cts.Cancel();
                var counter = new BatchCounter();
                var fit = Assert.Throws<OperationCanceledException>(() => model.Fit(
                    X(Rows), Y(Rows), batchSize: BatchSize, verbose: 0, callbacks: new ICallback[] { counter }, cancellationToken: cts.Token));
                Assert.AreEqual(cts.Token, fit.CancellationToken);
                Assert.IsNull(fit.InnerException, "thrown in C#, before Python");
                Assert.AreEqual(0, counter.Ends);
                Assert.Throws<OperationCanceledException>(() => model.Fit(X(Rows), null, cancellationToken: cts.Token), "even before argument checks");
                Assert.Throws<OperationCanceledException>(() => model.Evaluate(X(Rows), Y(Rows), cancellationToken: cts.Token));
                Assert.Throws<OperationCanceledException>(() => model.Predict(X(Rows), cancellationToken: cts.Token));
                Assert.Throws<OperationCanceledException>(() => model.PredictOutputs(X(Rows), cancellationToken: cts.Token));
                var output = new NDArray(new float[Rows * 3], Rows, 3);
                Assert.Throws<OperationCanceledException>(() => model.Predict(X(Rows), output, cancellationToken: cts.Token));
                Assert.IsTrue(model.FitAsync(X(Rows), Y(Rows), cancellationToken: cts.Token).IsCanceled);
                Assert.IsTrue(model.EvaluateAsync(X(Rows), Y(Rows), cancellationToken: cts.Token).IsCanceled);
                Assert.IsTrue(model.PredictAsync(X(Rows), cancellationToken: cts.Token).IsCanceled);
                Dictionary<string, NDArray> after = State(model);
                foreach (var pair in before) Data.AssertBitwise(pair.Value, after[pair.Key], "unchanged: " + pair.Key);
            }
        }

        [Test]
        public void AnUncancelledTokenGivesTheSameResults()
        {
            using (var cts = new CancellationTokenSource())
            using (Model model = NewModel())
            using (Model twin = NewModel(model.GetWeights()))
            {
                History ours = model.Fit(X(Rows), Y(Rows), batchSize: BatchSize, epochs: 2, verbose: 0, shuffle: false, cancellationToken: cts.Token);
                History theirs = twin.Fit(X(Rows), Y(Rows), batchSize: BatchSize, epochs: 2, verbose: 0, shuffle: false);
                CollectionAssert.AreEqual(theirs["loss"], ours["loss"]);
                AssertSameWeightsAndOptimizer(twin, model, "fit");
                CollectionAssert.AreEqual(twin.Evaluate(X(Rows), Y(Rows), batchSize: BatchSize), model.Evaluate(X(Rows), Y(Rows), batchSize: BatchSize, cancellationToken: cts.Token));
                Data.AssertBitwise(twin.Predict(X(Rows), batchSize: BatchSize), model.Predict(X(Rows), batchSize: BatchSize, cancellationToken: cts.Token), "predict");
            }
        }

        /// <summary>Rows enough for a batch-by-batch pass of many seconds (batches of one); an OperationCanceledException means a batch end stopped the rest.</summary>
        private const int LongRows = 20000;

        [Test]
        public void EvaluateAndPredictCancelledFromAnotherThreadStopAtABatchEnd()
        {
            using (Model model = NewModel())
            {
                model.Fit(X(Rows), Y(Rows), batchSize: BatchSize, verbose: 0);
                Dictionary<string, NDArray> before = State(model);
                NDArray x = X(LongRows), y = Y(LongRows);
                var output = new NDArray(new float[LongRows * 3], LongRows, 3);
                var calls = new Dictionary<string, Action<CancellationToken>>
                {
                    { "Evaluate", t => model.Evaluate(x, y, batchSize: 1, cancellationToken: t) },
                    { "Predict", t => model.Predict(x, batchSize: 1, cancellationToken: t) },
                    { "Predict into", t => model.Predict(x, output, batchSize: 1, cancellationToken: t) },
                };
                foreach (var call in calls)
                {
                    using (var cts = new CancellationTokenSource())
                    {
                        var clock = Stopwatch.StartNew();
                        cts.CancelAfter(TimeSpan.FromMilliseconds(300));
                        var error = Assert.Throws<OperationCanceledException>(() => call.Value(cts.Token), call.Key);
                        Assert.AreEqual(cts.Token, error.CancellationToken, call.Key);
                        Assert.Less(clock.Elapsed.TotalSeconds, 60, call.Key + ": stopped at a batch end, not at the end");
                    }
                }
                Assert.IsTrue(output.ToArray<float>().All(v => v == 0f), "a cancelled predict writes nothing into the output");
                Dictionary<string, NDArray> after = State(model);
                foreach (var pair in before) Data.AssertBitwise(pair.Value, after[pair.Key], "unchanged: " + pair.Key);
            }
        }

        [Test]
        public void FitAsyncEqualsFitAndItsCancellationEndsTheTaskCanceled()
        {
            using (Model model = NewModel())
            using (Model twin = NewModel(model.GetWeights()))
            {
                History expected = twin.Fit(X(Rows), Y(Rows), batchSize: BatchSize, epochs: 3, verbose: 0, shuffle: false);
                Task<History> task = model.FitAsync(X(Rows), Y(Rows), batchSize: BatchSize, epochs: 3, verbose: 0, shuffle: false);
                History actual = task.Result;
                CollectionAssert.AreEqual(expected["loss"], actual["loss"]);
                CollectionAssert.AreEqual(expected["accuracy"], actual["accuracy"]);
                AssertSameWeightsAndOptimizer(twin, model, "FitAsync");

                CollectionAssert.AreEqual(twin.Evaluate(X(Rows), Y(Rows)), model.EvaluateAsync(X(Rows), Y(Rows)).Result);
                Data.AssertBitwise(twin.Predict(X(Rows)), model.PredictAsync(X(Rows)).Result, "PredictAsync");

                using (var cts = new CancellationTokenSource())
                {
                    var counter = new BatchCounter { At = 4, Action = cts.Cancel };
                    Task<History> cancelled = model.FitAsync(X(Rows), Y(Rows), batchSize: BatchSize, epochs: 100, verbose: 0,
                        shuffle: false, callbacks: new ICallback[] { counter }, cancellationToken: cts.Token);
                    var aggregate = Assert.Throws<AggregateException>(() => cancelled.Wait());
                    Assert.IsInstanceOf<OperationCanceledException>(aggregate.InnerException);
                    Assert.IsTrue(cancelled.IsCanceled);
                    Assert.AreEqual(4, counter.Ends);
                    Assert.AreEqual(4, model.TrainCounter);
                    Assert.AreEqual(15 + 4, Iterations(model));
                }
            }
        }

        [Test]
        public void FaceFitEvaluatePredictTakeTheToken()
        {
            var inputs = keras.Input(shape: 4);
            var outputs = keras.layers.Dense(3).Apply(inputs);
            IModel model = keras.Model(inputs, outputs);
            model.compile(new SGD(0.1f), keras.losses.MeanSquaredError());
            NDArray x = X(Rows), y = Data.Uniform(72, Rows, 3);
            using (var cts = new CancellationTokenSource())
            {
                ICallback history = model.fit(x, y, batch_size: BatchSize, epochs: 1, verbose: 0, cancellationToken: cts.Token);
                Assert.AreEqual(1, ((History)history).history["loss"].Count);
                Assert.AreEqual(1, model.evaluate(x, y, batch_size: BatchSize, verbose: 0, cancellationToken: cts.Token).Count);
                Assert.AreEqual(new[] { Rows, 3 }, model.predict(x, batch_size: BatchSize, cancellationToken: cts.Token).numpy().Shape);
                cts.Cancel();
                Assert.Throws<OperationCanceledException>(() => model.fit(x, y, batch_size: BatchSize, epochs: 1, verbose: 0, cancellationToken: cts.Token));
                Assert.Throws<OperationCanceledException>(() => model.evaluate(x, y, cancellationToken: cts.Token));
                Assert.Throws<OperationCanceledException>(() => model.predict(x, cancellationToken: cts.Token));
            }
            using (var cts = new CancellationTokenSource())
            {
                cts.CancelAfter(TimeSpan.FromMilliseconds(300));
                NDArray big = X(LongRows);
                Assert.Throws<OperationCanceledException>(() => model.predict(big, batch_size: 1, cancellationToken: cts.Token));
            }
        }
    }
}
