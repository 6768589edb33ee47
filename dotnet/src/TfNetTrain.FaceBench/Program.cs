using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using TfNetTrain.TensorFlowNet;
using static TfNetTrain.TensorFlowNet.Binding;
using static TfNetTrain.TensorFlowNet.KerasApi;

namespace TfNetTrain.FaceBench
{
    /// <summary>
    /// The C# half of benchmarks/bench_tfnet_face.py, written against the TensorFlow.NET-shaped surface. Modes:
    /// "tape" (the eager GradientTape loop, seconds per step), "dataset" (fit over tf.data from_tensor_slices),
    /// "stream" (fit over C#-made batches streamed by from_generator, and array Fit of the same rows). One
    /// "RESULT {json}" line per measurement; nothing is judged here.
    /// </summary>
    public static partial class Program
    {
        private const int Features = 784, Hidden = 128, Classes = 10, Batch = 128, Samples = 64 * Batch;

        public static int Main(string[] args)
        {
            string mode = args.Length > 0 ? args[0] : "tape";
            int repeats = args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 3;
            int size = args.Length > 2 ? int.Parse(args[2], CultureInfo.InvariantCulture) : 3;
            using (PythonRuntime.Start())
            {
                switch (mode)
                {
                    case "tape": Tape(repeats, size); break;
                    case "dataset": DatasetFit(repeats, size); break;
                    case "stream": Stream(repeats, size, true); break;
                    case "stream-only": Stream(repeats, size, false); break;
                    case "linreg": LinearRegressionLoop(repeats, size); break;
                    case "xor": XorLoop(repeats, size); break;
                    case "np": NumPyOps(repeats, size); break;
                    default:
                        Console.Error.WriteLine("usage: TfNetTrain.FaceBench.exe tape|dataset|stream|linreg|xor|np [repeats] [steps|epochs|megabytes]");
                        return 2;
                }
            }
            return 0;
        }

        private static void Result(string name, double seconds, int steps)
        {
            Console.WriteLine("RESULT {\"name\": \"" + name + "\", \"seconds\": " + seconds.ToString("R", CultureInfo.InvariantCulture) +
                              ", \"steps\": " + steps + "}");
            Console.Out.Flush();
        }

        private static Sequential Mlp()
        {
            var model = keras.Sequential();
            model.add(keras.layers.Dense(Hidden, activation: "relu", input_shape: Features));
            model.add(keras.layers.Dense(Classes));
            model.compile(keras.optimizers.SGD(0.01f), keras.losses.SparseCategoricalCrossentropy(from_logits: true), new[] { "accuracy" });
            return model;
        }

        private static (NDArray, NDArray) Data(int seed, int rows)
        {
            var random = new Random(seed);
            var x = new float[rows * Features];
            for (int i = 0; i < x.Length; i++) x[i] = (float)random.NextDouble();
            var y = new long[rows];
            for (int i = 0; i < rows; i++) y[i] = random.Next(Classes);
            return (new NDArray(x, rows, Features), new NDArray(y, rows));
        }

        /// <summary>The custom loop of TF.NET programs, eager; variables read once, batches made tensors once.</summary>
        private static void Tape(int repeats, int steps)
        {
            var model = Mlp();
            var optimizer = keras.optimizers.SGD(0.01f);
            var lossFn = keras.losses.SparseCategoricalCrossentropy(from_logits: true);
            var batches = Enumerable.Range(0, 8).Select(i => Data(10 + i, Batch)).Select(b => ((Tensor)b.Item1, (Tensor)b.Item2)).ToList();
            var variables = model.TrainableVariables;
            Action<int> run = count =>
            {
                for (int step = 0; step < count; step++)
                {
                    var (x, y) = batches[step % batches.Count];
                    using (var tape = tf.GradientTape())
                    {
                        Tensor logits = model.Apply(x, training: true);
                        Tensor loss = lossFn.Call(y, logits);
                        var grads = tape.gradient(loss, variables);
                        optimizer.apply_gradients(zip(grads, variables));
                    }
                }
            };
            run(20);
            for (int r = 0; r < repeats; r++)
            {
                var clock = Stopwatch.StartNew();
                run(steps);
                Result("tape", clock.Elapsed.TotalSeconds, steps);
            }
        }

        private static void DatasetFit(int repeats, int epochs)
        {
            var (x, y) = Data(1, Samples);
            var model = Mlp();
            var dataset = tf.data.Dataset.from_tensor_slices(x, y).batch(Batch);
            model.fit(dataset, epochs: 1, verbose: 0);
            for (int r = 0; r < repeats; r++)
            {
                var clock = Stopwatch.StartNew();
                model.fit(dataset, epochs: epochs, verbose: 0);
                Result("dataset_fit", clock.Elapsed.TotalSeconds, epochs * Samples / Batch);
            }
        }

        /// <summary>Batches a C# program makes (here: the rows of x and y, cut in order), streamed; and array Fit.</summary>
        private static void Stream(int repeats, int epochs, bool withArrays)
        {
            var (x, y) = Data(2, Samples);
            float[] xs = x.ToArray<float>();
            long[] ys = y.ToArray<long>();
            var streamed = Mlp();
            var reused = Mlp();
            var arrays = Mlp();
            string how = Environment.GetEnvironmentVariable("TFNET_BENCH_MATERIALIZE"); // "true"/"false"; unset: the runtime's default
            var dataset = tf.data.Dataset.from_generator(new Replay(() => Batches(xs, ys)), string.IsNullOrEmpty(how) ? (bool?)null : bool.Parse(how));
            var refilled = tf.data.Dataset.from_generator(new Replay(() => RefilledBatches(xs, ys)), string.IsNullOrEmpty(how) ? (bool?)null : bool.Parse(how));
            streamed.fit(dataset, epochs: 1, verbose: 0);
            reused.fit(refilled, epochs: 1, verbose: 0);
            if (withArrays) arrays.Model.Fit(x, y, batchSize: Batch, epochs: 1, verbose: 0, shuffle: false);
            for (int r = 0; r < repeats; r++)
            {
                var clock = Stopwatch.StartNew();
                streamed.fit(dataset, epochs: epochs, verbose: 0);
                Result("stream_fit", clock.Elapsed.TotalSeconds, epochs * Samples / Batch);
                clock = Stopwatch.StartNew();
                reused.fit(refilled, epochs: epochs, verbose: 0);
                Result("stream_refill_fit", clock.Elapsed.TotalSeconds, epochs * Samples / Batch);
                if (!withArrays) continue;
                clock = Stopwatch.StartNew();
                arrays.Model.Fit(x, y, batchSize: Batch, epochs: epochs, verbose: 0, shuffle: false);
                Result("array_fit", clock.Elapsed.TotalSeconds, epochs * Samples / Batch);
            }
        }

        private static IEnumerable<NDArray[]> Batches(float[] xs, long[] ys)
        {
            for (int start = 0; start < Samples; start += Batch)
            {
                var bx = new float[Batch * Features];
                Array.Copy(xs, start * Features, bx, 0, bx.Length);
                var by = new long[Batch];
                Array.Copy(ys, start, by, 0, Batch);
                yield return new[] { new NDArray(bx, Batch, Features), new NDArray(by, Batch) };
            }
        }

        /// <summary>The same batches, written into the same two arrays each time: a batch is copied before the next is asked for.</summary>
        private static IEnumerable<NDArray[]> RefilledBatches(float[] xs, long[] ys)
        {
            var bx = new float[Batch * Features];
            var by = new long[Batch];
            var batch = new[] { new NDArray(bx, Batch, Features), new NDArray(by, Batch) };
            for (int start = 0; start < Samples; start += Batch)
            {
                Array.Copy(xs, start * Features, bx, 0, bx.Length);
                Array.Copy(ys, start, by, 0, Batch);
                yield return batch;
            }
        }

        private sealed class Replay : IEnumerable<NDArray[]>
        {
            private readonly Func<IEnumerable<NDArray[]>> _make;

            public Replay(Func<IEnumerable<NDArray[]>> make) { _make = make; }

            public IEnumerator<NDArray[]> GetEnumerator() => _make().GetEnumerator();

            System.Collections.IEnumerator System.Collections.IEnumerable.GetEnumerator() => GetEnumerator();
        }
    }
}
