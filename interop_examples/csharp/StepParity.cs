// Step parity: a C# host brings its own weights and batch, asks the Python engine for a traced training step and
// compares every stage with the numbers it computed itself.
//
// Run:  make build && mono dotnet/bin/StepParity.exe [--steps 2]
//
// The C# numbers here come from a small hand-written forward and backward pass of two Dense layers (ReLU, then
// logits), sparse categorical cross-entropy and plain SGD. To compare TensorFlow.NET with Python, put your
// TensorFlow.NET model's numbers in their place (its logits, loss, tape gradients and weights after
// optimizer.apply_gradients): the first stage that does not match is where the two trainings part.
using System;
using System.Collections.Generic;
using Python.Runtime;
using TfNetTrain;

namespace TfNetTrain.Examples
{
    /// <summary>Input(4) -> Dense(8, relu) -> Dense(3), sparse categorical cross-entropy on logits, SGD: by hand.</summary>
    public sealed class HandWrittenNetwork
    {
        public const int Inputs = 4, Hidden = 8, Classes = 3;
        public float[] W1 = new float[Inputs * Hidden], B1 = new float[Hidden];
        public float[] W2 = new float[Hidden * Classes], B2 = new float[Classes];

        /// <summary>What one step computed: logits, mean loss, gradients (W1, B1, W2, B2 order).</summary>
        public sealed class Step
        {
            public float[] Logits;
            public float Loss;
            public float[][] Gradients;
        }

        /// <summary>Small deterministic weights (any numbers will do: the engine gets the same ones).</summary>
        public static HandWrittenNetwork Create(int seed)
        {
            var random = new Random(seed);
            var net = new HandWrittenNetwork();
            foreach (float[] w in net.Parameters())
            {
                for (int i = 0; i < w.Length; i++) w[i] = (float)(random.NextDouble() - 0.5);
            }
            return net;
        }

        public float[][] Parameters() => new[] { W1, B1, W2, B2 };

        /// <summary>Forward pass, loss and backward pass for a batch x (n x 4) with integer labels.</summary>
        public Step Compute(float[] x, int[] labels)
        {
            int n = labels.Length;
            var hidden = new float[n * Hidden];
            var logits = new float[n * Classes];
            for (int r = 0; r < n; r++)
            {
                for (int j = 0; j < Hidden; j++)
                {
                    double z = B1[j];
                    for (int k = 0; k < Inputs; k++) z += x[r * Inputs + k] * W1[k * Hidden + j];
                    hidden[r * Hidden + j] = (float)Math.Max(z, 0.0);
                }
                for (int c = 0; c < Classes; c++)
                {
                    double z = B2[c];
                    for (int j = 0; j < Hidden; j++) z += hidden[r * Hidden + j] * W2[j * Classes + c];
                    logits[r * Classes + c] = (float)z;
                }
            }
            // loss = mean over the batch of -log softmax(logits)[label]; dLoss/dlogits = (softmax - onehot) / n
            var dLogits = new float[n * Classes];
            double loss = 0;
            for (int r = 0; r < n; r++)
            {
                double max = double.NegativeInfinity;
                for (int c = 0; c < Classes; c++) max = Math.Max(max, logits[r * Classes + c]);
                double sum = 0;
                for (int c = 0; c < Classes; c++) sum += Math.Exp(logits[r * Classes + c] - max);
                loss += -(logits[r * Classes + labels[r]] - max - Math.Log(sum));
                for (int c = 0; c < Classes; c++)
                {
                    double p = Math.Exp(logits[r * Classes + c] - max) / sum;
                    dLogits[r * Classes + c] = (float)((p - (c == labels[r] ? 1 : 0)) / n);
                }
            }
            var gW1 = new float[W1.Length]; var gB1 = new float[B1.Length];
            var gW2 = new float[W2.Length]; var gB2 = new float[B2.Length];
            for (int r = 0; r < n; r++)
            {
                for (int c = 0; c < Classes; c++)
                {
                    float d = dLogits[r * Classes + c];
                    gB2[c] += d;
                    for (int j = 0; j < Hidden; j++) gW2[j * Classes + c] += hidden[r * Hidden + j] * d;
                }
                for (int j = 0; j < Hidden; j++)
                {
                    if (hidden[r * Hidden + j] <= 0) continue;  // ReLU passes gradient only where it was active
                    double d = 0;
                    for (int c = 0; c < Classes; c++) d += dLogits[r * Classes + c] * W2[j * Classes + c];
                    gB1[j] += (float)d;
                    for (int k = 0; k < Inputs; k++) gW1[k * Hidden + j] += (float)(x[r * Inputs + k] * d);
                }
            }
            return new Step { Logits = logits, Loss = (float)(loss / n), Gradients = new[] { gW1, gB1, gW2, gB2 } };
        }

        /// <summary>Plain SGD: w -= learningRate * g.</summary>
        public void Apply(float[][] gradients, float learningRate)
        {
            float[][] parameters = Parameters();
            for (int p = 0; p < parameters.Length; p++)
            {
                for (int i = 0; i < parameters[p].Length; i++) parameters[p][i] -= learningRate * gradients[p][i];
            }
        }

        /// <summary>The weights as NDArrays in Keras get_weights() order: kernel (in, units), then bias, per layer.</summary>
        public IList<NDArray> ToNDArrays()
        {
            return new List<NDArray>
            {
                new NDArray((float[])W1.Clone(), Inputs, Hidden), new NDArray((float[])B1.Clone(), Hidden),
                new NDArray((float[])W2.Clone(), Hidden, Classes), new NDArray((float[])B2.Clone(), Classes),
            };
        }
    }

    public static class StepParity
    {
        private const float LearningRate = 0.1f;

        public static int Main(string[] args)
        {
            int i = Array.IndexOf(args, "--steps");
            int steps = i >= 0 && i + 1 < args.Length ? int.Parse(args[i + 1]) : 2;
            const int batch = 16;
            var random = new Random(7);
            var x = new float[batch * HandWrittenNetwork.Inputs];
            var labels = new int[batch];
            for (int k = 0; k < x.Length; k++) x[k] = (float)(random.NextDouble() * 2 - 1);
            for (int k = 0; k < batch; k++) labels[k] = random.Next(HandWrittenNetwork.Classes);
            var mine = HandWrittenNetwork.Create(seed: 1);

            using (var python = PythonRuntime.Start())
            {
                double rtol = 0, atol = 0;
                python.Run(() =>
                {
                    using (var tolerances = Py.Import("tfnet_train.tolerances"))
                    {
                        rtol = tolerances.GetAttr("RTOL").As<double>();
                        atol = tolerances.GetAttr("ATOL").As<double>();
                    }
                });
                var model = Keras.Sequential(Layers.Input(HandWrittenNetwork.Inputs),
                                             Layers.Dense(HandWrittenNetwork.Hidden, activation: "relu"),
                                             Layers.Dense(HandWrittenNetwork.Classes));
                model.Compile(Optimizers.SGD(learningRate: LearningRate),
                              Losses.SparseCategoricalCrossentropy(fromLogits: true), new[] { "accuracy" });
                model.SetWeights(mine.ToNDArrays());
                var xs = new NDArray(x, batch, HandWrittenNetwork.Inputs);
                var ys = new NDArray(labels, batch);
                Console.WriteLine($"tolerance: |C# - Python| <= {atol:g} + {rtol:g} * |Python|");

                bool allMatch = true;
                for (int step = 0; step < steps; step++)
                {
                    HandWrittenNetwork.Step own = mine.Compute(x, labels);
                    mine.Apply(own.Gradients, LearningRate);
                    StepTrace trace = model.TrainStepTraced(xs, ys);
                    Console.WriteLine($"step {trace.Step}: loss C# {own.Loss:F6}  Python {trace.Loss:F6}");
                    var comparison = new Comparison(rtol, atol);
                    comparison.Add("y_pred", own.Logits, trace.YPred[0]);
                    comparison.Add("loss", new[] { own.Loss }, NDArray.Scalar(trace.Loss));
                    for (int p = 0; p < 4; p++) comparison.Add("gradients", own.Gradients[p], trace.Gradients[p]);
                    float[][] after = mine.Parameters();
                    for (int p = 0; p < 4; p++) comparison.Add("weights", after[p], trace.Weights[p]);
                    comparison.Print();
                    allMatch &= comparison.AllMatch;
                }
                Console.WriteLine(allMatch
                    ? $"result: the C# numbers match the Python engine at every stage of {steps} steps"
                    : "result: MISMATCH - the first stage marked DIFFERENT is where C# and Python part");
                return allMatch ? 0 : 1;
            }
        }

        /// <summary>Worst error per stage between the host's numbers and the engine's, in the engine's tolerance.</summary>
        private sealed class Comparison
        {
            private readonly double _rtol, _atol;
            private readonly List<string> _stages = new List<string>();
            private readonly Dictionary<string, double> _worst = new Dictionary<string, double>();
            private readonly Dictionary<string, bool> _match = new Dictionary<string, bool>();

            public Comparison(double rtol, double atol) { _rtol = rtol; _atol = atol; }

            public bool AllMatch => !_match.ContainsValue(false);

            public void Add(string stage, float[] mine, NDArray engine)
            {
                if (!_worst.ContainsKey(stage)) { _stages.Add(stage); _worst[stage] = 0; _match[stage] = true; }
                float[] theirs = engine.ToArray<float>();
                if (theirs.Length != mine.Length)
                {
                    _match[stage] = false;
                    _worst[stage] = double.PositiveInfinity;
                    return;
                }
                for (int k = 0; k < mine.Length; k++)
                {
                    double gap = Math.Abs((double)mine[k] - theirs[k]);
                    _worst[stage] = Math.Max(_worst[stage], gap);
                    if (gap > _atol + _rtol * Math.Abs(theirs[k])) _match[stage] = false;
                }
            }

            public void Print()
            {
                foreach (string stage in _stages)
                {
                    Console.WriteLine($"  {stage,-10} max |C# - Python| = {_worst[stage]:0.000e+00}  " +
                                      (_match[stage] ? "match" : "DIFFERENT"));
                }
            }
        }
    }
}
