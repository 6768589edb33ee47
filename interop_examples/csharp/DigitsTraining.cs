// Train a handwritten-digits classifier from C#: Sequential, Compile, Fit with a C# callback, Evaluate, Predict,
// and a SaveWeights/LoadWeights round trip.
//
// Run:  make build && mono dotnet/bin/DigitsTraining.exe [--epochs 10]
//
// The 1,797 8x8 digits ship inside scikit-learn; Python loads and splits them (tfnet_train.demo.digits_split)
// and they cross into C# as NDArrays. Everything after that is plain C# against the TfNetTrain API.
using System;
using System.Collections.Generic;
using System.IO;
using Python.Runtime;
using TfNetTrain;

namespace TfNetTrain.Examples
{
    /// <summary>Prints one line per epoch: the C# side of Keras's callback protocol.</summary>
    public sealed class EpochPrinter : CallbackBase
    {
        private readonly int _epochs;

        public EpochPrinter(int epochs) { _epochs = epochs; }

        public override void OnEpochEnd(int epoch, IDictionary<string, float> logs)
        {
            Console.WriteLine($"epoch {epoch + 1}/{_epochs}: loss {logs["loss"]:F4}  accuracy {logs["accuracy"]:F4}");
        }
    }

    public static class DigitsTraining
    {
        public static int Main(string[] args)
        {
            int epochs = Args.Int(args, "--epochs", 10);
            using (var python = PythonRuntime.Start())
            {
                Data digits = Data.Load(python);
                Console.WriteLine($"digits: {digits.XTrain.Dim(0)} for training, {digits.XTest.Dim(0)} for testing, " +
                                  $"{digits.XTrain.Dim(1)} pixels each");
                Keras.SetRandomSeed(0);  // same initial weights and shuffles every run

                var model = BuildModel();
                model.Fit(digits.XTrain, digits.YTrain, batchSize: 32, epochs: epochs, verbose: 0, shuffle: true,
                          callbacks: new ICallback[] { new EpochPrinter(epochs) });

                IDictionary<string, float> test = model.Evaluate(digits.XTest, digits.YTest);
                Console.WriteLine($"test: loss {test["loss"]:F4}  accuracy {test["accuracy"]:F4}");

                NDArray logits = model.Predict(digits.XTest);
                int[] predicted = ArgMax(logits);
                int[] labels = digits.YTest.ToArray<int>();
                for (int i = 0; i < 5; i++)
                {
                    Console.WriteLine($"test image {i}: label {labels[i]}, predicted {predicted[i]}");
                }

                string path = Path.Combine(Path.GetTempPath(), $"digits-{Guid.NewGuid():N}.weights.h5");
                try
                {
                    model.SaveWeights(path);
                    var restored = BuildModel();
                    restored.LoadWeights(path);
                    bool same = restored.Predict(digits.XTest).BitwiseEquals(logits);
                    Console.WriteLine($"weights saved to {Path.GetFileName(path)} ({new FileInfo(path).Length} bytes) " +
                                      $"and loaded into a new model: {(same ? "identical predictions" : "PREDICTIONS DIFFER")}");
                    return same ? 0 : 1;
                }
                finally
                {
                    if (File.Exists(path)) File.Delete(path);
                }
            }
        }

        /// <summary>64 pixels -> 64 ReLU units -> 10 logits, trained with Adam on sparse labels.</summary>
        private static Model BuildModel()
        {
            var model = Keras.Sequential(Layers.Input(64), Layers.Dense(64, activation: "relu"), Layers.Dense(10));
            model.Compile(Optimizers.Adam(learningRate: 0.005f),
                          Losses.SparseCategoricalCrossentropy(fromLogits: true), new[] { "accuracy" });
            return model;
        }

        /// <summary>Index of the largest logit per row.</summary>
        private static int[] ArgMax(NDArray logits)
        {
            float[] values = logits.ToArray<float>();
            int rows = logits.Dim(0), classes = logits.Dim(1);
            var best = new int[rows];
            for (int r = 0; r < rows; r++)
            {
                for (int c = 1; c < classes; c++)
                {
                    if (values[r * classes + c] > values[r * classes + best[r]]) best[r] = c;
                }
            }
            return best;
        }

        /// <summary>The train/test split made by tfnet_train.demo.digits_split (scikit-learn's digits).</summary>
        private sealed class Data
        {
            public NDArray XTrain, YTrain, XTest, YTest;

            public static Data Load(PythonRuntime python)
            {
                return python.Run(() =>
                {
                    using (var demo = Py.Import("tfnet_train.demo"))
                    using (var split = demo.InvokeMethod("digits_split"))
                    {
                        var parts = new NDArray[4];
                        for (int i = 0; i < parts.Length; i++)
                        {
                            using (var item = split[i]) parts[i] = NDArray.FromPython(item);
                        }
                        return new Data { XTrain = parts[0], YTrain = parts[1], XTest = parts[2], YTest = parts[3] };
                    }
                });
            }
        }

        private static class Args
        {
            public static int Int(string[] args, string name, int fallback)
            {
                int i = Array.IndexOf(args, name);
                return i >= 0 && i + 1 < args.Length ? int.Parse(args[i + 1]) : fallback;
            }
        }
    }
}
