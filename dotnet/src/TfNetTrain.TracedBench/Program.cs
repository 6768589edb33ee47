using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using TfNetTrain;
using TfNetTrain.TensorFlowNet;
using static TfNetTrain.TensorFlowNet.Binding;
using static TfNetTrain.TensorFlowNet.KerasApi;
using FaceModel = TfNetTrain.TensorFlowNet.Model;

namespace TfNetTrain.TracedBench
{
    /// <summary>An MLP written as a TF.NET program writes a subclassed model.</summary>
    public sealed class Mlp : FaceModel
    {
        private readonly ILayer _hidden;
        private readonly ILayer _output;

        public Mlp(int hidden, int classes) : base(new ModelArgs { Name = "mlp" })
        {
            _hidden = keras.layers.Dense(hidden, activation: "relu");
            _output = keras.layers.Dense(classes);
            StackLayers(_hidden, _output);
        }

        protected override Tensors Call(Tensors inputs, Tensors state = null, bool? training = null, IOptionalArgs optional_args = null)
            => _output.Apply(_hidden.Apply(inputs));
    }

    /// <summary>
    /// The C# half of benchmarks/bench_traced.py: a custom GradientTape step wrapped in tf.function, the same step
    /// run eagerly, and fit of a C# subclassed model. Prints one JSON line of steps per second (best runs).
    /// Usage: TfNetTrain.TracedBench.exe FEATURES HIDDEN CLASSES BATCH STEPS REPEATS
    /// </summary>
    public static class Program
    {
        public static int Main(string[] args)
        {
            if (args.Length != 6)
            {
                Console.Error.WriteLine("usage: TfNetTrain.TracedBench.exe FEATURES HIDDEN CLASSES BATCH STEPS REPEATS");
                return 2;
            }
            int[] a = args.Select(s => int.Parse(s, CultureInfo.InvariantCulture)).ToArray();
            int features = a[0], hidden = a[1], classes = a[2], batch = a[3], steps = a[4], repeats = a[5];
            using (PythonRuntime.Start())
            {
                var rng = new Random(0);
                var batches = Enumerable.Range(0, 8).Select(i => (
                    x: tf.constant(new NDArray(Enumerable.Range(0, batch * features).Select(k => (float)rng.NextDouble()).ToArray(), batch, features)),
                    y: tf.constant(new NDArray(Enumerable.Range(0, batch).Select(k => (long)rng.Next(classes)).ToArray(), batch)))).ToList();

                var model = keras.Sequential();
                model.add(keras.layers.Dense(hidden, activation: "relu", input_shape: features));
                model.add(keras.layers.Dense(classes));
                var optimizer = keras.optimizers.SGD(0.01f);
                var lossFn = keras.losses.SparseCategoricalCrossentropy(from_logits: true);
                var variables = model.TrainableVariables;
                Func<Tensor, Tensor, Tensor> step = (x, y) =>
                {
                    using (var tape = tf.GradientTape())
                    {
                        var loss = lossFn.Call(y, model.Apply(x, training: true));
                        var grads = tape.gradient(loss, variables);
                        optimizer.apply_gradients(zip(grads, variables));
                        return loss;
                    }
                };
                var traced = tf.function(step, name: "train_step");
                double tracedRate = Best(repeats, () => Loop(traced, batches, 20), () => Loop(traced, batches, steps));
                int eagerSteps = Math.Max(10, steps / 20);
                double eagerRate = Best(repeats, () => Loop(step, batches, 3), () => Loop(step, batches, eagerSteps));

                int samples = batch * 16;
                var x0 = new NDArray(Enumerable.Range(0, samples * features).Select(k => (float)rng.NextDouble()).ToArray(), samples, features);
                var y0 = new NDArray(Enumerable.Range(0, samples).Select(k => (long)rng.Next(classes)).ToArray(), samples);
                var subclass = new Mlp(hidden, classes);
                subclass.compile(keras.optimizers.SGD(0.01f), keras.losses.SparseCategoricalCrossentropy(from_logits: true));
                int epochs = Math.Max(1, steps / 16);
                double fitRate = Best(repeats, () => subclass.fit(x0, y0, batch_size: batch, epochs: 1, verbose: 0, shuffle: false),
                                        () => { subclass.fit(x0, y0, batch_size: batch, epochs: epochs, verbose: 0, shuffle: false); return 16 * epochs; });
                int hostCalls = TracedFunction.Of(traced).HostCalls;
                int modelCalls = subclass.EngineModel.Runtime.Run(() =>
                {
                    using (var n = subclass.EngineModel.PythonObject.GetAttr("host_calls")) return n.As<int>();
                });
                Console.WriteLine(string.Format(CultureInfo.InvariantCulture,
                    "{{\"traced\": {0}, \"eager\": {1}, \"subclass_fit\": {2}, \"traced_host_calls\": {3}, \"subclass_host_calls\": {4}, \"traced_steps\": {5}}}",
                    tracedRate, eagerRate, fitRate, hostCalls, modelCalls, (repeats + 1) * steps + 20));
            }
            return 0;
        }

        private static int Loop(Func<Tensor, Tensor, Tensor> step, List<(Tensor x, Tensor y)> batches, int count)
        {
            Tensor loss = null;
            for (int i = 0; i < count; i++) loss = step(batches[i % batches.Count].x, batches[i % batches.Count].y);
            loss.numpy();
            return count;
        }

        /// <summary>Steps per second of the fastest of <paramref name="repeats"/> timed runs after one warm-up run.</summary>
        private static double Best(int repeats, Func<object> warmUp, Func<int> run)
        {
            warmUp();
            var rates = new List<double>();
            for (int r = 0; r < repeats; r++)
            {
                var clock = Stopwatch.StartNew();
                int count = run();
                rates.Add(count / clock.Elapsed.TotalSeconds);
            }
            return rates.Max();
        }
    }
}
