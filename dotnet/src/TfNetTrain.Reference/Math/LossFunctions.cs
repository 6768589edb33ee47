using System;

namespace TfNetTrain.Reference
{
    /// <summary>
    /// The compiled losses: per-sample values, the weighted reduction of each profile, and analytic gradients.
    /// Under "keras", a cross-entropy whose model output comes from a sigmoid or softmax reads the logits behind it
    /// (Keras 3 caches them on the activation's output), whatever <c>from_logits</c> says; otherwise probabilities are
    /// clipped to [eps, 1 - eps] with eps = 1e-7. Under "tfnet", TensorFlow.NET's formulas: probabilities are always
    /// clipped, binary cross-entropy adds eps inside both logarithms, and a (B, 1) sample weight broadcasts against the
    /// (B,) per-sample losses to (B, B).
    /// </summary>
    public static class LossFunctions
    {
        /// <summary>Keras' backend epsilon.</summary>
        public const double Epsilon = 1e-7;

        private delegate Tensor Backprop(double[] upstream);

        /// <summary>The backprop of a loss averaged over the last axis: element(r, c, upstream[r] / cols) at each position.</summary>
        private static Backprop PerElement(int rows, int cols, Numerics n, Func<int, int, double, double> element)
        {
            return upstream =>
            {
                var grad = Tensor.Zeros(rows, cols);
                for (int r = 0; r < rows; r++)
                {
                    double g = n.Round(upstream[r] / cols);
                    for (int c = 0; c < cols; c++) grad[r, c] = element(r, c, g);
                }
                return grad;
            };
        }

        /// <summary>The loss of one batch and its gradient.</summary>
        /// <param name="loss">The loss spec.</param>
        /// <param name="semantics">The profile.</param>
        /// <param name="outputActivation">The last layer's activation.</param>
        /// <param name="pass">The forward pass (its output, and logits for the Keras shortcut).</param>
        /// <param name="yTrue">Targets (B, k) or (B, 1), after expand_1d.</param>
        /// <param name="sampleWeight">Sample weights (B, 1) after expand_1d, or null.</param>
        /// <param name="n">Precision.</param>
        public static LossResult Compute(LossSpec loss, Semantics semantics, Activation outputActivation, ForwardPass pass,
            Tensor yTrue, Tensor sampleWeight, Numerics n)
        {
            bool crossEntropy = loss.Kind == LossKind.BinaryCrossentropy || loss.Kind == LossKind.CategoricalCrossentropy
                || loss.Kind == LossKind.SparseCategoricalCrossentropy;
            bool kerasLogitsShortcut = crossEntropy && semantics == Semantics.Keras
                && (outputActivation == Activation.Sigmoid || outputActivation == Activation.Softmax);
            Tensor input = kerasLogitsShortcut ? pass.Logits : pass.Output;
            bool logits = kerasLogitsShortcut || (crossEntropy && loss.FromLogits);
            if (yTrue.Rank != 2 || yTrue.Rows != input.Rows || (yTrue.Cols != input.Cols && yTrue.Cols != 1))
                throw new ArgumentException(string.Format("yTrue: expected shape ({0}, {1}) or ({0}, 1), got {2}",
                    input.Rows, input.Cols, NpyArray.FormatShape(yTrue.Shape)), nameof(yTrue));

            double[] values;
            Backprop backprop;
            switch (loss.Kind)
            {
                case LossKind.MeanSquaredError:
                    MeanSquaredError(yTrue, input, n, out values, out backprop);
                    break;
                case LossKind.MeanAbsoluteError:
                    MeanAbsoluteError(yTrue, input, n, out values, out backprop);
                    break;
                case LossKind.BinaryCrossentropy:
                    if (logits) BinaryCrossentropyFromLogits(yTrue, input, n, out values, out backprop);
                    else BinaryCrossentropyFromProbabilities(yTrue, input, semantics, n, out values, out backprop);
                    break;
                case LossKind.CategoricalCrossentropy:
                    if (logits) CategoricalCrossentropyFromLogits(yTrue, input, n, out values, out backprop);
                    else CategoricalCrossentropyFromProbabilities(yTrue, input, n, out values, out backprop);
                    break;
                case LossKind.SparseCategoricalCrossentropy:
                    SparseCategoricalCrossentropy(yTrue, input, logits, n, out values, out backprop);
                    break;
                default:
                    throw new ArgumentOutOfRangeException(nameof(loss), loss.Kind, "unknown loss");
            }

            double value;
            double[] upstream;
            Reduce(values, sampleWeight, semantics, n, out value, out upstream);
            return new LossResult(value, values, backprop(upstream), kerasLogitsShortcut);
        }

        /// <summary>
        /// Sum over batch size. keras: sum(l * w) / B with w squeezed to (B,). tfnet: sum over the (B, B) broadcast
        /// of l (B,) times w (B, 1), divided by B * B; without weights both give sum(l) / B.
        /// </summary>
        private static void Reduce(double[] losses, Tensor sampleWeight, Semantics semantics, Numerics n, out double value, out double[] upstream)
        {
            int b = losses.Length;
            upstream = new double[b];
            double total = 0;
            if (sampleWeight == null)
            {
                foreach (double l in losses) total += l;
                value = b == 0 ? 0 : n.Round(n.Round(total) / b);
                double g = b == 0 ? 0 : n.Round(1.0 / b);
                for (int i = 0; i < b; i++) upstream[i] = g;
                return;
            }
            if (sampleWeight.Size != b)
                throw new ArgumentException(string.Format("sampleWeight: expected {0} values, got {1}", b, sampleWeight.Size), nameof(sampleWeight));
            double[] w = sampleWeight.Data;
            if (semantics == Semantics.Keras)
            {
                for (int i = 0; i < b; i++) total += n.Round(losses[i] * w[i]);
                value = b == 0 ? 0 : n.Round(n.Round(total) / b);
                double g = b == 0 ? 0 : n.Round(1.0 / b);
                for (int i = 0; i < b; i++) upstream[i] = n.Round(g * w[i]);
                return;
            }
            for (int i = 0; i < b; i++)
                for (int j = 0; j < b; j++)
                    total += n.Round(losses[j] * w[i]);
            double count = n.Round((double)b * b);
            value = b == 0 ? 0 : n.Round(n.Round(total) / count);
            double cell = b == 0 ? 0 : n.Round(1.0 / count);
            double columnSum = 0;
            for (int i = 0; i < b; i++) columnSum += n.Round(cell * w[i]);
            for (int j = 0; j < b; j++) upstream[j] = n.Round(columnSum);
        }

        private static double Target(Tensor y, int row, int col)
        {
            return y.Cols == 1 ? y[row, 0] : y[row, col];
        }

        private static void MeanSquaredError(Tensor y, Tensor p, Numerics n, out double[] values, out Backprop backprop)
        {
            MeanOfDifferences(y, p, n, d => n.Round(d * d), d => n.Round(2.0 * d), out values, out backprop);
        }

        private static void MeanAbsoluteError(Tensor y, Tensor p, Numerics n, out double[] values, out Backprop backprop)
        {
            MeanOfDifferences(y, p, n, Math.Abs, d => Math.Sign(d), out values, out backprop);
        }

        /// <summary>
        /// mean over the last axis of term(y - p); the gradient with respect to p is -upstream / cols * slope(y - p).
        /// </summary>
        private static void MeanOfDifferences(Tensor y, Tensor p, Numerics n, Func<double, double> term,
                                              Func<double, double> slope, out double[] values, out Backprop backprop)
        {
            int rows = p.Rows, cols = p.Cols;
            var diff = new double[p.Size];
            var perSample = new double[rows];
            for (int r = 0; r < rows; r++)
            {
                double sum = 0;
                for (int c = 0; c < cols; c++)
                {
                    double d = n.Round(Target(y, r, c) - p[r, c]);
                    diff[r * cols + c] = d;
                    sum += term(d);
                }
                perSample[r] = n.Round(n.Round(sum) / cols);
            }
            values = perSample;
            backprop = PerElement(rows, cols, n, (r, c, g) => -n.Round(g * slope(diff[r * cols + c])));
        }

        /// <summary>max(z, 0) - z * y + log1p(exp(-|z|)), averaged over the last axis; gradient as TensorFlow differentiates it.</summary>
        private static void BinaryCrossentropyFromLogits(Tensor y, Tensor z, Numerics n, out double[] values, out Backprop backprop)
        {
            int rows = z.Rows, cols = z.Cols;
            values = new double[rows];
            for (int r = 0; r < rows; r++)
            {
                double sum = 0;
                for (int c = 0; c < cols; c++)
                {
                    double x = z[r, c], t = Target(y, r, c);
                    double relu = x >= 0 ? x : 0.0;
                    double e = n.Round(Math.Exp(x >= 0 ? -x : x));
                    double softplus = n.Round(Log1p(e));
                    sum += n.Round(n.Round(relu - n.Round(x * t)) + softplus);
                }
                values[r] = n.Round(n.Round(sum) / cols);
            }
            backprop = PerElement(rows, cols, n, (r, c, g) =>
            {
                double x = z[r, c], t = Target(y, r, c);
                double e = n.Round(Math.Exp(x >= 0 ? -x : x));
                double throughExp = n.Round(n.Round(g * n.Round(1.0 / n.Round(1.0 + e))) * e);
                double total = (x >= 0 ? g : 0.0) - n.Round(g * t) + (x >= 0 ? -throughExp : throughExp);
                return n.Round(total);
            });
        }

        /// <summary>
        /// keras: -(y log p + (1 - y) log(1 - p)) with p clipped to [eps, 1 - eps]; tfnet adds eps inside each log.
        /// Averaged over the last axis.
        /// </summary>
        private static void BinaryCrossentropyFromProbabilities(Tensor y, Tensor p, Semantics semantics, Numerics n,
            out double[] values, out Backprop backprop)
        {
            int rows = p.Rows, cols = p.Cols;
            double lo = n.Round(Epsilon), hi = n.Round(1.0 - Epsilon);
            double inner = semantics == Semantics.TfNet ? n.Round(Epsilon) : 0.0;
            values = new double[rows];
            for (int r = 0; r < rows; r++)
            {
                double sum = 0;
                for (int c = 0; c < cols; c++)
                {
                    double t = Target(y, r, c);
                    double pc = Math.Min(Math.Max(p[r, c], lo), hi);
                    double logP = n.Round(Math.Log(Shift(pc, inner, n)));
                    double logQ = n.Round(Math.Log(Shift(n.Round(1.0 - pc), inner, n)));
                    double bce = n.Round(n.Round(t * logP) + n.Round(n.Round(1.0 - t) * logQ));
                    sum += -bce;
                }
                values[r] = n.Round(n.Round(sum) / cols);
            }
            backprop = PerElement(rows, cols, n, (r, c, g) =>
            {
                double t = Target(y, r, c), prob = p[r, c];
                if (prob < lo || prob > hi) return 0.0;
                double pc = prob;
                double dLogP = n.Round(-g * t);
                double dLogQ = n.Round(-g * n.Round(1.0 - t));
                double viaP = n.Round(dLogP * n.Round(1.0 / Shift(pc, inner, n)));
                double viaQ = n.Round(dLogQ * n.Round(1.0 / Shift(n.Round(1.0 - pc), inner, n)));
                return n.Round(viaP - viaQ);
            });
        }

        private static double Shift(double x, double inner, Numerics n)
        {
            return inner == 0.0 ? x : n.Round(x + inner);
        }

        /// <summary>TensorFlow's SoftmaxCrossEntropyWithLogits kernel: loss sum(y * (log sum exp - z)), backprop softmax - y.</summary>
        private static void CategoricalCrossentropyFromLogits(Tensor y, Tensor z, Numerics n, out double[] values, out Backprop backprop)
        {
            int rows = z.Rows, cols = z.Cols;
            values = new double[rows];
            var kernelBackprop = new double[z.Size];
            for (int r = 0; r < rows; r++)
            {
                var labels = new double[cols];
                for (int c = 0; c < cols; c++) labels[c] = Target(y, r, c);
                values[r] = SoftmaxCrossEntropyRow(z, r, labels, n, kernelBackprop);
            }
            backprop = upstream => ScaleRows(kernelBackprop, upstream, rows, cols, n);
        }

        /// <summary>-sum(y * log(clip(p / sum(p)))) (Keras and TensorFlow.NET, probabilities).</summary>
        private static void CategoricalCrossentropyFromProbabilities(Tensor y, Tensor p, Numerics n, out double[] values, out Backprop backprop)
        {
            int rows = p.Rows, cols = p.Cols;
            double lo = n.Round(Epsilon), hi = n.Round(1.0 - Epsilon);
            var sums = new double[rows];
            var q = new double[p.Size];
            values = new double[rows];
            for (int r = 0; r < rows; r++)
            {
                double s = 0;
                for (int c = 0; c < cols; c++) s += p[r, c];
                sums[r] = n.Round(s);
                double total = 0;
                for (int c = 0; c < cols; c++)
                {
                    double qv = n.Round(p[r, c] / sums[r]);
                    q[r * cols + c] = qv;
                    double qc = Math.Min(Math.Max(qv, lo), hi);
                    total += n.Round(Target(y, r, c) * n.Round(Math.Log(qc)));
                }
                values[r] = -n.Round(total);
            }
            backprop = upstream =>
            {
                var grad = Tensor.Zeros(rows, cols);
                var dq = new double[cols];
                for (int r = 0; r < rows; r++)
                {
                    double s = sums[r];
                    double dSum = 0;
                    for (int c = 0; c < cols; c++)
                    {
                        double qv = q[r * cols + c];
                        dq[c] = 0;
                        if (qv < lo || qv > hi) continue;
                        double dLog = n.Round(-upstream[r] * Target(y, r, c));
                        dq[c] = n.Round(dLog * n.Round(1.0 / qv));
                        dSum += n.Round(dq[c] * n.Round(n.Round(-p[r, c] / s) / s));
                    }
                    dSum = n.Round(dSum);
                    for (int c = 0; c < cols; c++) grad[r, c] = n.Round(n.Round(dq[c] / s) + dSum);
                }
                return grad;
            };
        }

        /// <summary>
        /// TensorFlow's SparseSoftmaxCrossEntropyWithLogits on the logits, or on log(clip(p)) for probabilities.
        /// </summary>
        private static void SparseCategoricalCrossentropy(Tensor y, Tensor input, bool logits, Numerics n, out double[] values, out Backprop backprop)
        {
            int rows = input.Rows, cols = input.Cols;
            double lo = n.Round(Epsilon), hi = n.Round(1.0 - Epsilon);
            Tensor kernelInput = input;
            if (!logits)
            {
                kernelInput = Tensor.Zeros(rows, cols);
                for (int i = 0; i < input.Size; i++)
                    kernelInput.Data[i] = n.Round(Math.Log(Math.Min(Math.Max(input.Data[i], lo), hi)));
            }
            values = new double[rows];
            var kernelBackprop = new double[input.Size];
            for (int r = 0; r < rows; r++)
            {
                int label = (int)y[r, 0];
                if (label < 0 || label >= cols || label != y[r, 0])
                    throw new ArgumentException(string.Format("yTrue: expected integer labels in [0, {0}), got {1} in row {2}", cols, y[r, 0], r), nameof(y));
                var labels = new double[cols];
                labels[label] = 1.0;
                values[r] = SoftmaxCrossEntropyRow(kernelInput, r, labels, n, kernelBackprop);
            }
            backprop = upstream =>
            {
                Tensor dKernel = ScaleRows(kernelBackprop, upstream, rows, cols, n);
                if (logits) return dKernel;
                var grad = Tensor.Zeros(rows, cols);
                for (int i = 0; i < input.Size; i++)
                {
                    double prob = input.Data[i];
                    if (prob < lo || prob > hi) continue;
                    grad.Data[i] = n.Round(dKernel.Data[i] * n.Round(1.0 / prob));
                }
                return grad;
            };
        }

        private static double SoftmaxCrossEntropyRow(Tensor logits, int row, double[] labels, Numerics n, double[] backprop)
        {
            int cols = logits.Cols;
            double max = double.NegativeInfinity;
            for (int c = 0; c < cols; c++) max = Math.Max(max, logits[row, c]);
            var shifted = new double[cols];
            double sum = 0;
            for (int c = 0; c < cols; c++)
            {
                shifted[c] = n.Round(logits[row, c] - max);
                sum += Math.Exp(shifted[c]);
            }
            double logSum = Math.Log(sum);
            double loss = 0;
            for (int c = 0; c < cols; c++)
            {
                loss += labels[c] * (logSum - shifted[c]);
                backprop[row * cols + c] = n.Round(Math.Exp(shifted[c]) / sum - labels[c]);
            }
            return n.Round(loss);
        }

        private static Tensor ScaleRows(double[] values, double[] rowScale, int rows, int cols, Numerics n)
        {
            var result = Tensor.Zeros(rows, cols);
            for (int r = 0; r < rows; r++)
                for (int c = 0; c < cols; c++)
                    result[r, c] = n.Round(rowScale[r] * values[r * cols + c]);
            return result;
        }

        /// <summary>log(1 + x), accurate for small x.</summary>
        public static double Log1p(double x)
        {
            double u = 1.0 + x;
            if (u == 1.0) return x;
            return Math.Log(u) * x / (u - 1.0);
        }
    }
}
