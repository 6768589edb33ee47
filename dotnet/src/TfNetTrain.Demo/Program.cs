using System;
using System.Collections.Generic;
using System.Diagnostics;

namespace TfNetTrain.Demo
{
    /// <summary>
    /// `make demo`: trains a digits classifier from C# through the tfnet_train bridge, then replays the first steps
    /// with the Python engine and the pure C# reference trainer and compares them stage by stage.
    /// </summary>
    public static class Program
    {
        private const double TestFraction = 0.25;

        /// <summary>Exit code 0 when the target accuracy is reached and the conformance check passes.</summary>
        public static int Main(string[] args)
        {
            var total = Stopwatch.StartNew();
            DemoOptions options;
            try
            {
                options = DemoOptions.Parse(args);
            }
            catch (ArgumentException e)
            {
                Console.Error.WriteLine("demo: " + e.Message);
                return 2;
            }

            Console.WriteLine("tfnet-train demo: a C# program trains a digits classifier with the Python engine");
            using (var python = PythonRuntime.Start())
            {
                Console.WriteLine($"{python.Location} started in {python.StartDuration.TotalSeconds:F1}s");
                Keras.SetRandomSeed(options.Seed);

                DigitsData data = DigitsData.Load(python, TestFraction, options.Seed);
                int trainRows = data.XTrain.Dim(0), testRows = data.XTest.Dim(0);
                Console.WriteLine($"data: {trainRows + testRows} handwritten 8x8 digits from scikit-learn: " +
                                  $"{trainRows} for training, {testRows} for testing (seed {options.Seed})");

                Model model = BuildModel(data.Features);
                IList<NDArray> initialWeights = model.GetWeights();
                Console.WriteLine($"model: Dense {data.Features} -> 64 relu -> 10 logits, Adam, sparse categorical " +
                                  $"cross-entropy; {options.Epochs} epochs of batch {options.BatchSize}");
                int stepsPerEpoch = (trainRows + options.BatchSize - 1) / options.BatchSize;
                var trainClock = Stopwatch.StartNew();
                History history = model.Fit(data.XTrain, data.YTrain, batchSize: options.BatchSize,
                                            epochs: options.Epochs, verbose: 0, shuffle: false,
                                            validationX: data.XTest, validationY: data.YTest,
                                            callbacks: new ICallback[] { new ProgressBar(options.Epochs, stepsPerEpoch) });
                Console.WriteLine($"trained {model.TrainCounter} steps in {trainClock.Elapsed.TotalSeconds:F1}s " +
                                  "(validation: the test set, after each epoch)");
                Console.WriteLine($"curves: {TrainingCurves.Write(python, history, options.ReportDirectory)}");

                IDictionary<string, float> test = model.Evaluate(data.XTest, data.YTest);
                bool reached = test["accuracy"] >= options.TargetAccuracy;
                Console.WriteLine($"test accuracy: {test["accuracy"]:F4} (loss {test["loss"]:F4}) -> target " +
                                  $"{options.TargetAccuracy:F2} {(reached ? "reached" : "NOT reached")}");

                Console.WriteLine();
                Console.WriteLine($"replaying the first {options.ConformanceSteps} steps of this training from the " +
                                  "same initial weights: Python engine vs C# reference trainer (TfNetTrain.Reference)");
                Model replay = BuildModel(data.Features);
                replay.SetWeights(initialWeights);
                ConformanceOutcome outcome = ConformanceCheck.Run(python, replay, data.XTrain, data.YTrain,
                                                                  options.ConformanceSteps, options.BatchSize,
                                                                  options.ReportDirectory);
                Console.WriteLine($"C# reference ran the case in {outcome.CSharpSeconds:F2}s");
                Console.WriteLine(outcome.Table);
                Console.WriteLine($"report: {outcome.HtmlPath}");
                Console.WriteLine($"        {outcome.JsonPath}");

                bool ok = reached && outcome.Passed;
                Console.WriteLine();
                Console.WriteLine($"demo {(ok ? "passed" : "FAILED")} in {total.Elapsed.TotalSeconds:F1}s");
                return ok ? 0 : 1;
            }
        }

        /// <summary>64 pixels -> 64 ReLU units -> 10 logits: Dense layers only, so the C# reference can replay it.</summary>
        private static Model BuildModel(int features)
        {
            var model = Keras.Sequential(Layers.Input(features), Layers.Dense(64, activation: "relu"), Layers.Dense(10));
            model.Compile(Optimizers.Adam(learningRate: 0.005f), Losses.SparseCategoricalCrossentropy(fromLogits: true),
                          new[] { "accuracy" });
            return model;
        }
    }
}
