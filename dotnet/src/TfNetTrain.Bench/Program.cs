using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using Python.Runtime;

namespace TfNetTrain.Bench
{
    /// <summary>
    /// The C# half of benchmarks/bench_bridge.py and benchmarks/bench_bridge_calls.py. Modes: "startup" (start,
    /// build, one step, dispose), "train" (whole-fit and per-step timings), "exchange" (array copies against
    /// Buffer.BlockCopy), "rss" (resident memory over many bridged steps), "xor" (the XOR program's fits),
    /// "noop" (the cost of a call that does nothing). Each result is one line "RESULT {json}" for the driver;
    /// timings are printed, never judged here.
    /// </summary>
    public static class Program
    {
        private const int Features = 784, Classes = 10, Hidden = 128, Batch = 128;

        public static int Main(string[] args)
        {
            var clock = Stopwatch.StartNew();
            string mode = args.Length > 0 ? args[0] : "train";
            switch (mode)
            {
                case "startup": return Startup(clock);
                case "train": return WithRuntime(() => Train(Arg(args, 1, 3), Arg(args, 2, 3), Arg(args, 3, 200)));
                case "exchange": return WithRuntime(() => Exchange(Arg(args, 1, 7)));
                case "rss": return WithRuntime(() => Rss(Arg(args, 1, 10000)));
                case "xor": return WithRuntime(() => Xor(Arg(args, 1, 1000), Arg(args, 2, 3)));
                case "noop": return WithRuntime(Noop);
                default:
                    Console.Error.WriteLine("usage: TfNetTrain.Bench.exe startup | train [repeats epochs steps] | exchange [maxPower] " +
                                            "| rss [steps] | xor [epochs later] | noop");
                    return 2;
            }
        }

        private static int Arg(string[] args, int index, int fallback) =>
            args.Length > index ? int.Parse(args[index], CultureInfo.InvariantCulture) : fallback;

        private static void Result(string name, params object[] namesAndValues)
        {
            var parts = new List<string> { "\"name\": \"" + name + "\"" };
            for (int i = 0; i + 1 < namesAndValues.Length; i += 2)
            {
                object v = namesAndValues[i + 1];
                string text = v is double d ? d.ToString("R", CultureInfo.InvariantCulture)
                            : v is string s ? "\"" + s + "\"" : Convert.ToString(v, CultureInfo.InvariantCulture);
                parts.Add("\"" + namesAndValues[i] + "\": " + text);
            }
            Console.WriteLine("RESULT {" + string.Join(", ", parts) + "}");
            Console.Out.Flush();
        }

        private static int WithRuntime(Action body)
        {
            using (PythonRuntime.Start()) body();
            return 0;
        }

        private static Model Mlp(int features = Features, int hidden = Hidden, int classes = Classes)
        {
            var model = Keras.Sequential(Layers.Input(features), Layers.Dense(hidden, activation: "relu"), Layers.Dense(classes));
            model.Compile(Optimizers.SGD(learningRate: 0.01f), Losses.SparseCategoricalCrossentropy(fromLogits: true), new[] { "accuracy" });
            return model;
        }

        private static NDArray Uniform(Random random, params int[] shape)
        {
            var values = new float[shape.Aggregate(1, (a, b) => a * b)];
            for (int i = 0; i < values.Length; i++) values[i] = (float)random.NextDouble();
            return new NDArray(values, shape);
        }

        private static NDArray Labels(Random random, int count, int classes)
        {
            var values = new long[count];
            for (int i = 0; i < count; i++) values[i] = random.Next(classes);
            return new NDArray(values, count);
        }

        private static int Startup(Stopwatch sinceMain)
        {
            var python = PythonRuntime.Start();
            double started = sinceMain.Elapsed.TotalSeconds;
            var random = new Random(0);
            Model model = Mlp();
            model.TrainOnBatch(Uniform(random, Batch, Features), Labels(random, Batch, Classes));
            double firstStep = sinceMain.Elapsed.TotalSeconds;
            Console.WriteLine("FIRST_STEP");
            Console.Out.Flush();
            var dispose = Stopwatch.StartNew();
            python.Dispose();
            Result("startup", "runtime_start_s", started, "first_step_s", firstStep,
                   "dispose_s", dispose.Elapsed.TotalSeconds, "shutdown_s", python.ShutdownDuration.TotalSeconds);
            return 0;
        }

        private static void Train(int repeats, int epochs, int steps)
        {
            var random = new Random(1);
            const int samples = 64 * Batch;
            NDArray x = Uniform(random, samples, Features), y = Labels(random, samples, Classes);
            var batches = Enumerable.Range(0, 8).Select(_ => Tuple.Create(Uniform(random, Batch, Features), Labels(random, Batch, Classes))).ToList();
            using (Model model = Mlp())
            {
                model.Fit(x, y, batchSize: Batch, epochs: 1, verbose: 0, shuffle: false); // trace the step once
                for (int i = 0; i < 20; i++) model.TrainOnBatch(batches[i % 8].Item1, batches[i % 8].Item2);
                for (int r = 0; r < repeats; r++)
                {
                    var clock = Stopwatch.StartNew();
                    model.Fit(x, y, batchSize: Batch, epochs: epochs, verbose: 0, shuffle: false);
                    Result("fit", "seconds", clock.Elapsed.TotalSeconds, "steps", epochs * samples / Batch);
                    clock.Restart();
                    for (int i = 0; i < steps; i++) model.TrainOnBatch(batches[i % 8].Item1, batches[i % 8].Item2);
                    Result("steps", "seconds", clock.Elapsed.TotalSeconds, "steps", steps);
                }
            }
        }

        private static double Median(List<double> values)
        {
            values.Sort();
            return values[values.Count / 2];
        }

        /// <summary>Seconds per call of <paramref name="body"/> (median of 5 rounds of enough calls for ~40 ms).</summary>
        private static double Time(Action body)
        {
            body();
            var probe = Stopwatch.StartNew();
            body();
            int reps = Math.Max(1, (int)(0.04 / Math.Max(probe.Elapsed.TotalSeconds, 1e-7)));
            var rounds = new List<double>();
            for (int round = 0; round < 5; round++)
            {
                var clock = Stopwatch.StartNew();
                for (int i = 0; i < reps; i++) body();
                rounds.Add(clock.Elapsed.TotalSeconds / reps);
            }
            return Median(rounds);
        }

        private static void Exchange(int maxPower)
        {
            var runtime = PythonRuntime.Current;
            for (int power = 3; power <= maxPower; power++)
            {
                int n = (int)Math.Pow(10, power);
                double bytes = 4.0 * n;
                var source = new NDArray(Enumerable.Range(0, n).Select(i => (float)i).ToArray(), n);
                var target = NDArray.Zeros(DType.Float32, n);
                float[] plain = source.GetData<float>();
                var copy = new float[n];
                copy[n - 1] = 1; // both arrays are touched: fresh pages would read as the shared zero page
                double memcpy = Time(() => Buffer.BlockCopy(plain, 0, copy, 0, n * 4));
                double[] bridged = runtime.Run(() =>
                {
                    using (var existing = source.ToPython())
                    {
                        double toFresh = Time(() => { using (source.ToPython()) { } });
                        double toExisting = Time(() => source.CopyToPython(existing));
                        double fromInto = Time(() => target.CopyFromPython(existing));
                        double fromFresh = Time(() => NDArray.FromPython(existing));
                        return new[] { toFresh, toExisting, fromInto, fromFresh };
                    }
                });
                Result("exchange", "n", n, "memcpy_gbps", bytes / memcpy / 1e9,
                       "to_numpy_new_gbps", bytes / bridged[0] / 1e9, "to_numpy_existing_gbps", bytes / bridged[1] / 1e9,
                       "from_numpy_into_gbps", bytes / bridged[2] / 1e9, "from_numpy_new_gbps", bytes / bridged[3] / 1e9);
            }
        }

        /// <summary>
        /// The XOR program of TensorFlow.NET's tracker: 4 samples, a 2-8-1 network, SGD, MSE; the first
        /// Fit(epochs, verbose: 0) of a new model (tracing included), then the best of <paramref name="later"/> more.
        /// </summary>
        private static void Xor(int epochs, int later)
        {
            var x = new NDArray(new float[] { 0, 0, 0, 1, 1, 0, 1, 1 }, 4, 2);
            var y = new NDArray(new float[] { 0, 1, 1, 0 }, 4);
            Keras.SetRandomSeed(0);
            using (Model model = Keras.Sequential(Layers.Input(2), Layers.Dense(8, activation: "tanh"),
                                                  Layers.Dense(1, activation: "sigmoid")))
            {
                model.Compile(Optimizers.SGD(learningRate: 0.1f), Losses.MeanSquaredError(), new[] { "accuracy" });
                var clock = Stopwatch.StartNew();
                model.Fit(x, y, epochs: epochs, verbose: 0);
                double firstSeconds = clock.Elapsed.TotalSeconds;
                double best = double.MaxValue;
                History last = null;
                for (int i = 0; i < later; i++)
                {
                    clock.Restart();
                    last = model.Fit(x, y, epochs: epochs, verbose: 0);
                    best = Math.Min(best, clock.Elapsed.TotalSeconds);
                }
                Result("xor", "first_fit_s", firstSeconds, "later_fit_s", best, "epochs", epochs,
                       "final_loss", (double)last["loss"].Last());
            }
        }

        /// <summary>Microseconds per call of: a hop to the Python thread; a cached Python no-op; a model property.</summary>
        private static void Noop()
        {
            var runtime = PythonRuntime.Current;
            using (Model model = Keras.Sequential(Layers.Input(2), Layers.Dense(1)))
            {
                PyObject noop = runtime.Run(() => PythonEngine.Eval("lambda: None"));
                double hop = Time(() => runtime.Run(() => 0));
                double call = Time(() => runtime.Run(() => { using (noop.Invoke()) return 0; }));
                double property = Time(() => { bool unused = model.StopTraining; });
                runtime.Run(() => { noop.Dispose(); });
                Result("noop", "hop_us", hop * 1e6, "call_us", call * 1e6, "property_us", property * 1e6);
            }
        }

        private static double ResidentMegabytes()
        {
            foreach (string line in File.ReadAllLines("/proc/self/status"))
            {
                if (line.StartsWith("VmRSS:", StringComparison.Ordinal))
                    return double.Parse(line.Substring(6).Trim().Split(' ')[0], CultureInfo.InvariantCulture) / 1024.0;
            }
            return double.NaN;
        }

        private static void Rss(int steps)
        {
            var random = new Random(2);
            var batches = Enumerable.Range(0, 8).Select(_ => Tuple.Create(Uniform(random, 32, 16), Labels(random, 32, 4))).ToList();
            using (Model model = Mlp(16, 32, 4))
            {
                for (int i = 0; i < 500; i++) model.TrainOnBatch(batches[i % 8].Item1, batches[i % 8].Item2);
                GC.Collect();
                double before = ResidentMegabytes();
                var clock = Stopwatch.StartNew();
                for (int i = 0; i < steps; i++) model.TrainOnBatch(batches[i % 8].Item1, batches[i % 8].Item2);
                double seconds = clock.Elapsed.TotalSeconds;
                GC.Collect();
                GC.WaitForPendingFinalizers();
                double after = ResidentMegabytes();
                Result("rss", "steps", steps, "before_mb", before, "after_mb", after, "seconds", seconds);
            }
        }
    }
}
