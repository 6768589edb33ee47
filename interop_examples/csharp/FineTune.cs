// Fine-tune from C# a model trained elsewhere: a tf.keras 2 ".h5" classifier of the digits 0-4 becomes a classifier
// of all ten digits, then ships as ONNX.
//
// Run:  .venv/bin/python interop_examples/python/digits04_tf_keras.py digits04.h5 &&
//       mono dotnet/bin/FineTune.exe --base digits04.h5 [--epochs 20] [--onnx digits.onnx]
//
// Keras.Models.LoadModel opens the tf.keras 2 file with its weights and training configuration. The hidden layers
// are frozen (ModelLayer.Trainable = false), a new 10-class head is put on them (the old layers are reused, their
// weights shared), the head trains, then the top hidden layer is unfrozen and everything fine-tunes at a lower
// learning rate. Keras 3 fixes the trainable state when Compile runs, so each change is followed by Compile.
// Finally Model.Export writes ONNX, checked against Predict; the ONNX file is then run with ONNX Runtime again
// here, on the whole test set.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Python.Runtime;
using TfNetTrain;

namespace TfNetTrain.Examples
{
    public static class FineTune
    {
        public static int Main(string[] args)
        {
            string basePath = Args.Text(args, "--base", null);
            if (basePath == null)
            {
                Console.Error.WriteLine("usage: FineTune.exe --base digits04.h5 [--epochs 20] [--onnx digits.onnx]");
                return 2;
            }
            int epochs = Args.Int(args, "--epochs", 20);
            string onnxPath = Args.Text(args, "--onnx", null);
            bool keepOnnx = onnxPath != null;
            onnxPath = onnxPath ?? Path.Combine(Path.GetTempPath(), $"digits-{Guid.NewGuid():N}.onnx");
            try
            {
                return Run(basePath, epochs, onnxPath);
            }
            finally
            {
                if (!keepOnnx && File.Exists(onnxPath)) File.Delete(onnxPath);
            }
        }

        private static int Run(string basePath, int epochs, string onnxPath)
        {
            using (var python = PythonRuntime.Start())
            {
                var digits = TfNetTrain.TensorFlowNet.KerasApi.keras.datasets.digits.load_data(); // the library's digits split
                NDArray xTrain = digits.Train.Item1, yTrain = digits.Train.Item2, xTest = digits.Test.Item1, yTest = digits.Test.Item2;
                NDArray[] test04 = Where(xTest, yTest, label => label < 5);

                using (Model base04 = Keras.Models.LoadModel(basePath))
                {
                    Console.WriteLine("loaded " + Path.GetFileName(basePath) + ": " +
                                      string.Join(", ", base04.Layers.Select(l => l.ToString())));
                    Console.WriteLine($"base on digits 0-4: accuracy {base04.Evaluate(test04[0], test04[1])["accuracy"]:F4}");

                    // Freeze the base and put a 10-class head on its hidden layers.
                    ModelLayer hidden1 = base04.GetLayer("hidden1"), hidden2 = base04.GetLayer("hidden2");
                    hidden1.Trainable = false;
                    hidden2.Trainable = false;
                    Keras.SetRandomSeed(0);
                    SymbolicTensor pixels = Keras.Input(64);
                    SymbolicTensor logits = Layers.Dense(10, name: "head10").Apply(hidden2.Apply(hidden1.Apply(pixels)));
                    using (Model model = Keras.Model(pixels, logits, name: "digits10"))
                    {
                        Console.WriteLine($"new head: {model.TrainableParamCount} trainable, {model.NonTrainableParamCount} frozen parameters");
                        IList<NDArray> frozen = base04.GetWeights();
                        model.Compile(Optimizers.Adam(0.005f), Losses.SparseCategoricalCrossentropy(fromLogits: true), new[] { "accuracy" });
                        model.Fit(xTrain, yTrain, batchSize: 32, epochs: epochs, verbose: 0, shuffle: true);
                        bool unchanged = frozen.Zip(base04.GetWeights(), (a, b) => a.BitwiseEquals(b)).All(same => same);
                        Console.WriteLine($"head trained: test accuracy {model.Evaluate(xTest, yTest)["accuracy"]:F4} on 10 digits; " +
                                          $"frozen base weights unchanged: {(unchanged ? "yes" : "NO")}");

                        // Unfreeze the top hidden layer, recompile at a lower rate, fine-tune.
                        hidden2.Trainable = true;
                        model.Compile(Optimizers.Adam(0.0005f), Losses.SparseCategoricalCrossentropy(fromLogits: true), new[] { "accuracy" });
                        Console.WriteLine($"fine-tuning: {model.TrainableParamCount} trainable, {model.NonTrainableParamCount} frozen parameters");
                        model.Fit(xTrain, yTrain, batchSize: 32, epochs: Math.Max(1, epochs / 2), verbose: 0, shuffle: true);
                        bool firstFrozen = frozen.Take(2).Zip(base04.GetWeights().Take(2), (a, b) => a.BitwiseEquals(b)).All(same => same);
                        Console.WriteLine($"fine-tuned: test accuracy {model.Evaluate(xTest, yTest)["accuracy"]:F4} on 10 digits; " +
                                          $"hidden1 still frozen: {(firstFrozen ? "yes" : "NO")}");

                        // Ship it: ONNX, checked by Export against Predict, then run again with ONNX Runtime here.
                        try
                        {
                            model.Export(onnxPath, "onnx");
                        }
                        catch (TfNetTrainException error) when (error.Message.Contains("tf2onnx"))
                        {
                            Console.WriteLine("ONNX export skipped: " + error.Message);
                            return unchanged && firstFrozen ? 0 : 1;
                        }
                        NDArray predicted = model.Predict(xTest);
                        double worst = OnnxMaxDifference(python, onnxPath, xTest, predicted, out bool close);
                        Console.WriteLine($"exported {Path.GetFileName(onnxPath)} ({new FileInfo(onnxPath).Length} bytes); ONNX Runtime " +
                                          $"vs Predict on {xTest.Dim(0)} digits: max |diff| {worst:E2}, " +
                                          (close ? "within the float32 tolerance" : "OUTSIDE THE TOLERANCE"));
                        return unchanged && firstFrozen && close ? 0 : 1;
                    }
                }
            }
        }

        /// <summary>The rows of x and y whose label passes <paramref name="keep"/>.</summary>
        private static NDArray[] Where(NDArray x, NDArray y, Func<int, bool> keep)
        {
            float[] pixels = x.ToArray<float>();
            int[] labels = y.ToArray<int>();
            int width = x.Dim(1);
            var rows = Enumerable.Range(0, labels.Length).Where(i => keep(labels[i])).ToArray();
            var xs = new float[rows.Length * width];
            for (int r = 0; r < rows.Length; r++) Array.Copy(pixels, rows[r] * width, xs, r * width, width);
            return new[] { new NDArray(xs, rows.Length, width), new NDArray(rows.Select(i => labels[i]).ToArray(), rows.Length) };
        }

        /// <summary>Runs the ONNX file with ONNX Runtime (through Python) and compares with <paramref name="expected"/>.</summary>
        private static double OnnxMaxDifference(PythonRuntime python, string path, NDArray x, NDArray expected, out bool close)
        {
            bool withinTolerance = false;
            double worst = python.Run(() =>
            {
                using (var ort = Py.Import("onnxruntime"))
                using (var np = Py.Import("numpy"))
                using (var tolerances = Py.Import("tfnet_train.tolerances"))
                using (var providers = new PyList(new PyObject[] { new PyString("CPUExecutionProvider") }))
                using (var kwargs = new PyDict())
                {
                    kwargs["providers"] = providers;
                    using (var session = ort.GetAttr("InferenceSession").Invoke(new PyObject[] { new PyString(path) }, kwargs))
                    using (var inputs = session.InvokeMethod("get_inputs"))
                    using (var first = inputs[0])
                    using (var name = first.GetAttr("name"))
                    using (var feed = new PyDict())
                    using (var px = x.ToPython())
                    using (var pe = expected.ToPython())
                    {
                        feed[name] = px;
                        using (var outputs = session.InvokeMethod("run", PyObject.None, feed))
                        using (var actual = outputs[0])
                        using (var diff = np.InvokeMethod("abs", actual.InvokeMethod("__sub__", pe)))
                        using (var max = diff.InvokeMethod("max").InvokeMethod("item"))
                        using (var ok = tolerances.InvokeMethod("allclose", actual, pe))
                        {
                            withinTolerance = ok.IsTrue();
                            return max.As<double>();
                        }
                    }
                }
            });
            close = withinTolerance;
            return worst;
        }

        private static class Args
        {
            public static int Int(string[] args, string name, int fallback)
            {
                int i = Array.IndexOf(args, name);
                return i >= 0 && i + 1 < args.Length ? int.Parse(args[i + 1]) : fallback;
            }

            public static string Text(string[] args, string name, string fallback)
            {
                int i = Array.IndexOf(args, name);
                return i >= 0 && i + 1 < args.Length ? args[i + 1] : fallback;
            }
        }
    }
}
