using System;
using System.Diagnostics;
using System.Globalization;
using TfNetTrain.TensorFlowNet;
using static TfNetTrain.TensorFlowNet.Binding;
using static TfNetTrain.TensorFlowNet.KerasApi;

namespace TfNetTrain.FaceBench
{
    /// <summary>
    /// The eager loops of TF.NET's LinearRegressionEager and NeuralNetXorEager examples, written in the face as those
    /// programs write them (benchmarks/bench_tfnet_numpy.py runs the same loops in Python), and np operations on
    /// large arrays with the bytes that crossed the boundary.
    /// </summary>
    public static partial class Program
    {
        private static void LinearRegressionLoop(int repeats, int steps)
        {
            NDArray train_X = np.array(3.3f, 4.4f, 5.5f, 6.71f, 6.93f, 4.168f, 9.779f, 6.182f, 7.59f, 2.167f, 7.042f, 10.791f, 5.313f, 7.997f, 5.654f, 9.27f, 3.1f);
            NDArray train_Y = np.array(1.7f, 2.76f, 2.09f, 3.19f, 1.694f, 1.573f, 3.366f, 2.596f, 2.53f, 1.221f, 2.827f, 3.465f, 1.65f, 2.904f, 2.42f, 2.94f, 1.3f);
            int n_samples = (int)train_X.shape[0];
            var W = tf.Variable(-0.06f, name: "weight");
            var b = tf.Variable(-0.73f, name: "bias");
            var optimizer = keras.optimizers.SGD(0.01f);
            Action<int> run = count =>
            {
                for (int step = 0; step < count; step++)
                {
                    using (var g = tf.GradientTape())
                    {
                        var pred = W * train_X + b;
                        var loss = tf.reduce_sum(tf.pow(pred - train_Y, 2)) / (2 * n_samples);
                        var gradients = g.gradient(loss, (W, b));
                        optimizer.apply_gradients(zip(gradients, (W, b)));
                    }
                }
            };
            run(20);
            for (int r = 0; r < repeats; r++)
            {
                var clock = Stopwatch.StartNew();
                run(steps);
                Result("linreg", clock.Elapsed.TotalSeconds, steps);
            }
            Console.WriteLine("FINAL linreg W=" + ((float)W).ToString("R", CultureInfo.InvariantCulture));
        }

        private static void XorLoop(int repeats, int steps)
        {
            NDArray data = new float[,] { { 1, 0 }, { 1, 1 }, { 0, 0 }, { 0, 1 } };
            NDArray label = new float[,] { { 1 }, { 0 }, { 0 }, { 1 } };
            var features = tf.constant(data);
            var labels = tf.constant(label);
            var hidden_weights = tf.Variable(tf.random.truncated_normal((2, 8), seed: 1, stddev: (float)(1 / Math.Sqrt(2))));
            var hidden_activations = tf.nn.relu(tf.matmul(features, hidden_weights));
            var output_weights = tf.Variable(tf.truncated_normal((8, 1), seed: 17, stddev: (float)(1 / Math.Sqrt(8))));
            var optimizer = keras.optimizers.SGD(0.01f);
            Action<int> run = count =>
            {
                for (int step = 0; step < count; step++)
                {
                    using (var g = tf.GradientTape())
                    {
                        var logits = tf.matmul(hidden_activations, output_weights);
                        var predictions = tf.tanh(tf.squeeze(logits));
                        var loss = tf.reduce_mean(tf.square(predictions - tf.cast(labels, tf.float32)), name: "loss");
                        var gradients = g.gradient(loss, output_weights);
                        optimizer.apply_gradients((gradients, output_weights));
                    }
                }
            };
            run(20);
            for (int r = 0; r < repeats; r++)
            {
                var clock = Stopwatch.StartNew();
                run(steps);
                Result("xor", clock.Elapsed.TotalSeconds, steps);
            }
        }

        /// <summary>np operations on a Python-backed and on a C#-backed array of <paramref name="megabytes"/> MB of float32.</summary>
        private static void NumPyOps(int repeats, int megabytes)
        {
            int n = megabytes * 1024 * 1024 / 4;
            var csharp = new float[n];
            for (int i = 0; i < n; i++) csharp[i] = i % 251;
            for (int r = 0; r < repeats; r++)
            {
                ExchangeCounters.Reset();
                var clock = Stopwatch.StartNew();
                np.random.seed(0);
                var x = np.random.uniform(0f, 1f, new Shape(n / 1024, 1024));
                var y = ((x * 2f + 1f) / 3f - x).reshape((-1, 256)).astype(np.float64);
                var s = y["::100"];
                double total = (double)np.sum(s);
                float[] read = x.ToArray<float>();
                Result("np_python_backed", clock.Elapsed.TotalSeconds, 1);
                Counters("np_python_backed", (long)n * 4, read.Length + total > 0 ? 1 : 0);

                ExchangeCounters.Reset();
                clock = Stopwatch.StartNew();
                NDArray c = csharp;            // one block copy inside C# (the implicit conversion copies, as TF.NET's does)
                var z = (c * 0.5f + 1f).reshape((n / 1024, 1024));
                double zsum = (double)np.sum(z);
                float[] back = z.ToArray<float>();
                Result("np_csharp_backed", clock.Elapsed.TotalSeconds, 1);
                Counters("np_csharp_backed", (long)n * 4, back.Length + zsum > 0 ? 1 : 0);
            }
        }

        private static void Counters(string name, long arrayBytes, int unused)
        {
            Console.WriteLine("RESULT {\"name\": \"" + name + "_bytes\", \"array_bytes\": " + arrayBytes + ", \"to_python\": " + ExchangeCounters.BytesToPython +
                              ", \"to_csharp\": " + ExchangeCounters.BytesToCSharp + ", \"copies\": " + ExchangeCounters.Copies + "}");
            Console.Out.Flush();
        }
    }
}
