// TensorFlow.NET's custom training loop on tfnet-train, with only the `using` lines changed: tf.GradientTape,
// model.Apply(x, training: true), a loss object's Call, tape.gradient over model.TrainableVariables,
// optimizer.apply_gradients(zip(...)) and a metric object's update_state / result / reset_states.
//
// Run:  make build && mono dotnet/bin/TfNetGradientTape.exe [--epochs 5]
using System;
using System.Collections.Generic;
using System.Linq;
using TfNetTrain;
using TfNetTrain.TensorFlowNet;
using static TfNetTrain.TensorFlowNet.Binding;
using static TfNetTrain.TensorFlowNet.KerasApi;

namespace TfNetTrain.Examples
{
    public static class TfNetGradientTape
    {
        public static int Main(string[] args)
        {
            int i = Array.IndexOf(args, "--epochs");
            int epochs = i >= 0 && i + 1 < args.Length ? int.Parse(args[i + 1]) : 5;
            const int batchSize = 64;

            tf.set_random_seed(0);
            var data = keras.datasets.digits.load_data();
            NDArray x_train = data.Train.Item1, y_train = data.Train.Item2, x_test = data.Test.Item1, y_test = data.Test.Item2;

            var model = keras.Sequential();
            model.add(keras.layers.Dense(64, activation: "relu", input_shape: 64));
            model.add(keras.layers.Dense(10));
            var optimizer = keras.optimizers.Adam(learning_rate: 0.005f);
            var lossFn = keras.losses.SparseCategoricalCrossentropy(from_logits: true);
            var accuracy = keras.metrics.SparseCategoricalAccuracy();

            for (int epoch = 0; epoch < epochs; epoch++)
            {
                float lossSum = 0f;
                int steps = 0;
                foreach (var batch in Batches(x_train, y_train, batchSize))
                {
                    Tensor x = batch.Item1, y = batch.Item2;
                    Tensor loss, logits;
                    using (var tape = tf.GradientTape())
                    {
                        logits = model.Apply(x, training: true);
                        loss = lossFn.Call(y, logits);
                        var grads = tape.gradient(loss, model.TrainableVariables);
                        optimizer.apply_gradients(zip(grads, model.TrainableVariables));
                    }
                    accuracy.update_state(y, logits);
                    lossSum += loss.ToArray<float>()[0];
                    steps++;
                }
                print($"epoch {epoch + 1}/{epochs}: mean loss {lossSum / steps:F4}  accuracy {accuracy.result().ToArray<float>()[0]:F4}");
                accuracy.reset_states();
            }

            Tensor testLogits = model.Apply(x_test, training: false);
            Tensor correct = tf.cast(tf.equal(tf.cast(tf.argmax(testLogits, 1), tf.int32), y_test), tf.float32);
            float testAccuracy = tf.reduce_mean(correct).ToArray<float>()[0];
            var evaluated = keras.metrics.SparseCategoricalAccuracy();
            evaluated.update_state(y_test, testLogits);
            print($"test: accuracy {testAccuracy:F4} (argmax), {evaluated.result().ToArray<float>()[0]:F4} (metric object)");
            return 0;
        }

        /// <summary>Consecutive batches of rows, made in C#.</summary>
        private static IEnumerable<(NDArray, NDArray)> Batches(NDArray x, NDArray y, int batchSize)
        {
            int rows = x.Dim(0), width = x.Dim(1);
            float[] xs = x.ToArray<float>();
            int[] ys = y.ToArray<int>();
            for (int start = 0; start < rows; start += batchSize)
            {
                int n = Math.Min(batchSize, rows - start);
                yield return (new NDArray(xs.Skip(start * width).Take(n * width).ToArray(), n, width),
                              new NDArray(ys.Skip(start).Take(n).ToArray(), n));
            }
        }
    }
}
