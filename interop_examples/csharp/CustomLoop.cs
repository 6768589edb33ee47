// A training loop written in C#: the host owns the epochs, the shuffling and the batches, calls TrainOnBatch once per
// batch, logs as it goes, and stops early once the test accuracy reaches a target (or stops improving).
//
// Run:  make build && mono dotnet/bin/CustomLoop.exe [--max-epochs 30] [--target 0.95]
//
// This is the shape of TensorFlow.NET's own loop (Model.Train.cs: one train_step per batch) with the step running
// in Python's engine; it suits hosts that produce batches themselves (streams, simulations, custom sampling).
using System;
using System.Collections.Generic;
using System.Globalization;
using TfNetTrain;

namespace TfNetTrain.Examples
{
    public static class CustomLoop
    {
        private const int BatchSize = 32;
        private const int Patience = 3;

        public static int Main(string[] args)
        {
            int maxEpochs = (int)Arg(args, "--max-epochs", 30);
            double target = Arg(args, "--target", 0.95);
            using (var python = PythonRuntime.Start())
            {
                var digits = TfNetTrain.TensorFlowNet.KerasApi.keras.datasets.digits.load_data(); // the library's digits split
                NDArray trainX = digits.Train.Item1, trainY = digits.Train.Item2;
                float[] xTrain = trainX.ToArray<float>();
                int[] yTrain = trainY.ToArray<int>();
                int rows = trainX.Dim(0), features = trainX.Dim(1);
                Keras.SetRandomSeed(0);

                var model = Keras.Sequential(Layers.Input(features), Layers.Dense(32, activation: "relu"),
                                             Layers.Dense(10));
                model.Compile(Optimizers.SGD(learningRate: 0.05f, momentum: 0.9f),
                              Losses.SparseCategoricalCrossentropy(fromLogits: true), new[] { "accuracy" });

                var random = new Random(0);
                int[] order = new int[rows];
                for (int i = 0; i < rows; i++) order[i] = i;
                long steps = 0;
                double bestLoss = double.PositiveInfinity;
                int epochsWithoutImprovement = 0;
                string stopReason = null;
                int epoch = 0;
                while (epoch < maxEpochs && stopReason == null)
                {
                    epoch++;
                    Shuffle(order, random);
                    double lossSum = 0;
                    int seen = 0;
                    for (int start = 0; start < rows; start += BatchSize)
                    {
                        int count = Math.Min(BatchSize, rows - start);
                        var xb = new float[count * features];
                        var yb = new int[count];
                        for (int r = 0; r < count; r++)
                        {
                            Array.Copy(xTrain, order[start + r] * features, xb, r * features, features);
                            yb[r] = yTrain[order[start + r]];
                        }
                        IDictionary<string, float> logs = model.TrainOnBatch(new NDArray(xb, count, features),
                                                                          new NDArray(yb, count));
                        steps++;
                        lossSum += logs["loss"] * count;
                        seen += count;
                        if (steps % 20 == 0)
                        {
                            Console.WriteLine($"  step {steps}: batch loss {logs["loss"]:F4}  batch accuracy {logs["accuracy"]:F4}");
                        }
                    }
                    IDictionary<string, float> test = model.Evaluate(digits.Test.Item1, digits.Test.Item2);
                    Console.WriteLine($"epoch {epoch}: train loss {lossSum / seen:F4}  test loss {test["loss"]:F4}  " +
                                      $"test accuracy {test["accuracy"]:F4}");
                    if (test["accuracy"] >= target)
                    {
                        stopReason = $"test accuracy {test["accuracy"]:F4} >= target {target:F2}";
                    }
                    else if (test["loss"] < bestLoss)
                    {
                        bestLoss = test["loss"];
                        epochsWithoutImprovement = 0;
                    }
                    else if (++epochsWithoutImprovement >= Patience)
                    {
                        stopReason = $"test loss has not improved for {Patience} epochs";
                    }
                }
                Console.WriteLine(stopReason != null
                    ? $"stopped early after epoch {epoch} of {maxEpochs}: {stopReason}"
                    : $"ran all {maxEpochs} epochs without reaching the target");
                Console.WriteLine($"steps: {steps} in C#, model.TrainCounter {model.TrainCounter}");
                return stopReason != null && model.TrainCounter == steps ? 0 : 1;
            }
        }

        private static void Shuffle(int[] order, Random random)
        {
            for (int i = order.Length - 1; i > 0; i--)
            {
                int j = random.Next(i + 1);
                int swap = order[i]; order[i] = order[j]; order[j] = swap;
            }
        }

        private static double Arg(string[] args, string name, double fallback)
        {
            int i = Array.IndexOf(args, name);
            return i >= 0 && i + 1 < args.Length ? double.Parse(args[i + 1], CultureInfo.InvariantCulture) : fallback;
        }
    }
}
