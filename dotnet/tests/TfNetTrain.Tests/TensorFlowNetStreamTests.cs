using System;
using System.Collections;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using NUnit.Framework;
using TfNetTrain.TensorFlowNet;
using static TfNetTrain.TensorFlowNet.Binding;
using static TfNetTrain.TensorFlowNet.KerasApi;

namespace TfNetTrain.Tests
{
    /// <summary>
    /// C#-produced batches streamed into fit/evaluate/predict: read lazily, once per pass, on a thread of their own;
    /// bad batches, bad datasets and failing enumerators give typed exceptions and leave the model unchanged.
    /// </summary>
    [TestFixture]
    public class TensorFlowNetStreamTests
    {
        /// <summary>Batches of rows of x (and y), counting enumerations and batches made; optional faults.</summary>
        private sealed class Batches : IEnumerable<NDArray[]>
        {
            private readonly NDArray _x, _y;
            private readonly int _size;
            public int Enumerations;
            public int Made;            // batches made in the current pass
            public readonly List<int> ProducerThreads = new List<int>();
            public int BadAt = -1;      // this batch gets 5 features instead of 4
            public int ThrowAt = -1;    // the enumerator throws an IOException here
            public Action CallFromEnumerator;

            public Batches(NDArray x, NDArray y, int size) { _x = x; _y = y; _size = size; }

            public IEnumerator<NDArray[]> GetEnumerator()
            {
                Interlocked.Increment(ref Enumerations);
                Made = 0;
                float[] xs = _x.ToArray<float>();
                long[] ys = _y?.ToArray<long>();
                int rows = _x.Dim(0), width = _x.Dim(1);
                for (int start = 0, index = 0; start < rows; start += _size, index++)
                {
                    lock (ProducerThreads) ProducerThreads.Add(Thread.CurrentThread.ManagedThreadId);
                    if (index == ThrowAt) throw new IOException("the database went away");
                    CallFromEnumerator?.Invoke();
                    int n = Math.Min(_size, rows - start);
                    int w = index == BadAt ? width + 1 : width;
                    var xb = new NDArray(xs.Skip(start * width).Take(n * width).Concat(new float[n * (w - width)]).ToArray(), n, w);
                    Made++;
                    yield return ys == null ? new[] { xb } : new[] { xb, new NDArray(ys.Skip(start).Take(n).ToArray(), n) };
                }
            }

            IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
        }

        /// <summary>At every batch end, how many batches the enumerator had made in this pass.</summary>
        private sealed class MadeAtBatchEnd : CallbackBase
        {
            private readonly Batches _batches;
            public readonly List<(long, int)> Seen = new List<(long, int)>();

            public MadeAtBatchEnd(Batches batches) { _batches = batches; }

            public override void OnTrainBatchEnd(long batch, IDictionary<string, float> logs) => Seen.Add((batch, _batches.Made));
        }

        private static Sequential Compiled(IList<NDArray> weights = null)
        {
            var model = keras.Sequential();
            model.add(keras.layers.Dense(8, activation: "relu", input_shape: 4));
            model.add(keras.layers.Dense(3));
            if (weights != null) model.set_weights(weights);
            model.compile(keras.optimizers.Adam(0.01f), keras.losses.SparseCategoricalCrossentropy(from_logits: true), new[] { "accuracy" });
            return model;
        }

        [Test]
        public void BatchesAreReadLazilyOncePerPassOffTheCallingThread()
        {
            NDArray x = Data.Uniform(51, 120, 4), y = Data.Labels(52, 120, 3);
            var batches = new Batches(x, y, 1); // 120 batches a pass: more than fit reads ahead
            var dataset = tf.data.Dataset.from_generator(batches, materialize: false);
            Assert.AreEqual(1, batches.Enumerations, "the first batch is read once, for the signature");
            batches.ProducerThreads.Clear();
            List<NDArray> w0;
            using (var reference = Compiled()) w0 = reference.get_weights();
            using (var model = Compiled(w0))
            {
                var seen = new MadeAtBatchEnd(batches);
                History streamed = model.fit(dataset, epochs: 2, verbose: 0, callbacks: new List<ICallback> { seen });
                Assert.AreEqual(3, batches.Enumerations, "one enumeration per epoch");
                Assert.AreEqual(240, seen.Seen.Count);
                // fit reads ahead a bounded window, not the stream: 32 batches held, 8 requested, 1 being made
                foreach (var pair in seen.Seen)
                    Assert.LessOrEqual(pair.Item2, pair.Item1 + 1 + 32 + 8 + 1, $"at the end of batch {pair.Item1}, {pair.Item2} of 120 batches were made: not a bounded window");
                Assert.IsFalse(batches.ProducerThreads.Contains(Thread.CurrentThread.ManagedThreadId), "the enumerator runs on the producer thread");

                model.evaluate(dataset, verbose: 0);
                Tensors predicted = model.predict(tf.data.Dataset.from_generator(new Batches(x, null, 4), materialize: false));
                Assert.AreEqual(4, batches.Enumerations, "evaluate is one more pass");
                using (var arrays = Compiled(w0))
                {
                    History expected = arrays.fit(x, y, batch_size: 1, epochs: 2, verbose: 0, shuffle: false);
                    Assert.AreEqual(expected["loss"], streamed["loss"], "same numbers as array fit");
                    Data.AssertBitwise(arrays.predict(x, batch_size: 4).numpy(), predicted.numpy(), "predict over streamed x-only batches");
                }
            }
        }

        /// <summary>Every batch written into the same two arrays, as a producer reading rows into a buffer would.</summary>
        private static IEnumerable<NDArray[]> Refilled(NDArray x, NDArray y, int size)
        {
            float[] xs = x.ToArray<float>();
            long[] ys = y.ToArray<long>();
            int width = x.Dim(1);
            var bx = new float[size * width];
            var by = new long[size];
            var batch = new[] { new NDArray(bx, size, width), new NDArray(by, size) };
            for (int start = 0; start + size <= x.Dim(0); start += size)
            {
                Array.Copy(xs, start * width, bx, 0, bx.Length);
                Array.Copy(ys, start, by, 0, size);
                yield return batch;
            }
        }

        [TestCase(false)]
        [TestCase(true)]
        public void ABatchIsCopiedBeforeTheNextIsMadeSoAProducerMayRefillItsArrays(bool materialize)
        {
            NDArray x = Data.Uniform(57, 96, 4), y = Data.Labels(58, 96, 3);
            List<NDArray> w0;
            using (var reference = Compiled()) w0 = reference.get_weights();
            using (var streamed = Compiled(w0))
            using (var arrays = Compiled(w0))
            {
                var dataset = tf.data.Dataset.from_generator(new Replay(() => Refilled(x, y, 8)), materialize);
                History got = streamed.fit(dataset, epochs: 3, verbose: 0);
                History expected = arrays.fit(x, y, batch_size: 8, epochs: 3, verbose: 0, shuffle: false);
                Assert.AreEqual(expected["loss"], got["loss"], "the same numbers as array fit");
                List<NDArray> a = streamed.get_weights(), b = arrays.get_weights();
                for (int i = 0; i < a.Count; i++) Assert.IsTrue(a[i].BitwiseEquals(b[i]), $"weight {i}");
                Assert.AreEqual(arrays.evaluate(x, y, batch_size: 8, verbose: 0)["loss"], streamed.evaluate(dataset, verbose: 0)["loss"]);
            }
        }

        private sealed class Replay : IEnumerable<NDArray[]>
        {
            private readonly Func<IEnumerable<NDArray[]>> _make;

            public Replay(Func<IEnumerable<NDArray[]>> make) { _make = make; }

            public IEnumerator<NDArray[]> GetEnumerator() => _make().GetEnumerator();

            IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
        }

        /// <summary>
        /// Batches held in Python, made before the pass (np results: a copy, and a strided view), stream as C#
        /// ones do into fit (read ahead), evaluate and predict (tf.data's generator): the producer thread hands
        /// each Python-held part to the Python side to read rather than asking the Python thread for it — which is
        /// busy in fit, waiting for that very batch. The arrays stay in Python.
        /// </summary>
        [Test, Timeout(120000)]
        public void PythonHeldBatchesStreamWithoutWaitingForThePythonThread()
        {
            NDArray x = Data.Uniform(59, 48, 4), y = Data.Labels(60, 48, 3);
            float[] xs = x.ToArray<float>();
            long[] ys = y.ToArray<long>();
            var batches = new List<NDArray[]>();
            var inputs = new List<NDArray[]>();
            for (int start = 0; start < 48; start += 8)
            {
                var xb = new NDArray(xs.Skip(start * 4).Take(32).ToArray(), 8, 4);
                var yb = new NDArray(ys.Skip(start).Take(8).ToArray(), 8);
                NDArray held = start % 16 == 0 ? np.copy(xb) : np.transpose(np.copy(np.transpose(xb))); // C order, and a Fortran-ordered view
                batches.Add(new[] { held, start == 8 ? yb : np.copy(yb) }); // one batch mixes a C# part in
                inputs.Add(new[] { held });
            }
            Assert.IsTrue(batches.All(b => b[0].IsPythonBacked), "np results are held in Python");
            List<NDArray> w0;
            using (var reference = Compiled()) w0 = reference.get_weights();
            using (var streamed = Compiled(w0))
            using (var arrays = Compiled(w0))
            {
                var dataset = tf.data.Dataset.from_generator(batches, materialize: false);
                var reads = new ReadsAtFirstBatchEnd(batches[0][0]); // moves a lent array into C# storage mid-pass
                History got = streamed.fit(dataset, epochs: 2, verbose: 0, callbacks: new List<ICallback> { reads });
                Assert.IsFalse(batches[0][0].IsPythonBacked, "read into C# by the callback; the next pass sends its bytes");
                History expected = arrays.fit(x, y, batch_size: 8, epochs: 2, verbose: 0, shuffle: false);
                Assert.AreEqual(expected["loss"], got["loss"], "the same numbers as array fit");
                List<NDArray> a = streamed.get_weights(), b = arrays.get_weights();
                for (int i = 0; i < a.Count; i++) Assert.IsTrue(a[i].BitwiseEquals(b[i]), $"weight {i}");
                Assert.AreEqual(arrays.evaluate(x, y, batch_size: 8, verbose: 0)["loss"], streamed.evaluate(dataset, verbose: 0)["loss"]);
                Tensors predicted = streamed.predict(tf.data.Dataset.from_generator(inputs, materialize: false));
                Data.AssertBitwise(arrays.predict(x, batch_size: 8).numpy(), predicted.numpy(), "predict over Python-held x batches");
            }
            Assert.IsTrue(batches.Skip(1).All(b => b[0].IsPythonBacked), "the stream read them in Python: still held there");
        }

        /// <summary>Reads an array's elements into C# (GetData) at the end of the first batch.</summary>
        private sealed class ReadsAtFirstBatchEnd : CallbackBase
        {
            private readonly NDArray _array;

            public ReadsAtFirstBatchEnd(NDArray array) { _array = array; }

            public override void OnTrainBatchEnd(long batch, IDictionary<string, float> logs)
            {
                if (batch == 0 && _array.IsPythonBacked) _array.GetData<float>();
            }
        }

        /// <summary>
        /// Disposing the runtime from inside a batch enumerator (the Python thread waits in fit for that batch) is
        /// refused at once: an InvalidOperationException, the fit's error, and the runtime goes on.
        /// </summary>
        [Test, Timeout(120000)]
        public void DisposeFromABatchEnumeratorIsRefusedInsteadOfWaitingForFit()
        {
            NDArray x = Data.Uniform(61, 24, 4), y = Data.Labels(62, 24, 3);
            using (var model = Compiled())
            {
                var disposing = new Batches(x, y, 4);
                var dataset = tf.data.Dataset.from_generator(disposing, materialize: false);
                disposing.CallFromEnumerator = () => PythonSetup.Runtime.Dispose();
                var refused = Assert.Throws<TfNetTrainException>(() => model.fit(dataset, verbose: 0));
                StringAssert.Contains("InvalidOperationException", refused.Message);
                StringAssert.Contains("cannot be disposed from a batch enumerator", refused.Message);
                Assert.IsFalse(PythonSetup.Runtime.IsDisposed);
                History resumed = model.fit(tf.data.Dataset.from_generator(new Batches(x, y, 4), materialize: false), verbose: 0);
                Assert.AreEqual(1, resumed["loss"].Count, "the runtime trains on");
            }
        }

        [Test]
        public void BadBatchesAndDatasetsAreTypedAndLeaveTheModelUnchanged()
        {
            NDArray x = Data.Uniform(53, 24, 4), y = Data.Labels(54, 24, 3);
            using (var model = Compiled())
            {
                model.fit(x, y, batch_size: 8, epochs: 1, verbose: 0); // optimizer state exists
                List<NDArray> before = model.get_weights();
                long counter = model.Model.TrainCounter;
                Action unchanged = () =>
                {
                    List<NDArray> after = model.get_weights();
                    for (int i = 0; i < before.Count; i++) Assert.IsTrue(before[i].BitwiseEquals(after[i]), $"weight {i} unchanged");
                    Assert.AreEqual(counter, model.Model.TrainCounter, "train counter unchanged");
                };

                var bad = new Batches(x, y, 4) { BadAt = 3 };
                var error = Assert.Throws<TfNetTrainArgumentException>(() => model.fit(tf.data.Dataset.from_generator(bad, materialize: false), epochs: 1, verbose: 0));
                StringAssert.Contains("batch 3 part 0 is float32 (4, 5); the first batch fixed float32 (n, 4)", error.Message);
                unchanged();
                Assert.Throws<TfNetTrainArgumentException>(() => model.evaluate(tf.data.Dataset.from_generator(new Batches(x, y, 4) { BadAt = 1 }, materialize: false), verbose: 0));

                var failing = Assert.Throws<TfNetTrainException>(() => model.fit(tf.data.Dataset.from_generator(new Batches(x, y, 4) { ThrowAt = 2 }, materialize: false), verbose: 0));
                StringAssert.Contains("IOException: the database went away", failing.Message);
                unchanged();

                var calling = new Batches(x, y, 4);
                var dataset = tf.data.Dataset.from_generator(calling, materialize: false);
                calling.CallFromEnumerator = () => model.Model.TrainCounter.ToString();
                var refused = Assert.Throws<TfNetTrainException>(() => model.fit(dataset, verbose: 0));
                StringAssert.Contains("must not call TfNetTrain", refused.Message);
                unchanged();

                Assert.Throws<TfNetTrainArgumentException>(() => model.fit(tf.data.Dataset.from_tensor_slices(x).batch(4)), "x alone cannot train");
                Assert.Throws<TfNetTrainArgumentException>(() => model.fit(tf.data.Dataset.from_tensor_slices(Data.Uniform(55, 24, 6), y).batch(4), verbose: 0));
                unchanged();
                Assert.Throws<TfNetTrainArgumentException>(() => tf.data.Dataset.from_generator(new[] { new[] { x, Data.Labels(56, 23, 3) } }), "rows of x and y differ");

                History resumed = model.fit(tf.data.Dataset.from_generator(new Batches(x, y, 4), materialize: false), verbose: 0);
                Assert.AreEqual(1, resumed["loss"].Count, "the model trains on after every refusal");
            }
        }
    }
}
