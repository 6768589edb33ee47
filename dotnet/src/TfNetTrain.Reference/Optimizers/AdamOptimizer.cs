using System;
using System.Collections.Generic;

namespace TfNetTrain.Reference
{
    /// <summary>
    /// Adam and AdamW. With t = iterations + 1 and alpha = lr * sqrt(1 - beta_2^t) / (1 - beta_1^t):
    /// m += (g - m) * (1 - beta_1); v += (g^2 - v) * (1 - beta_2); var -= m * alpha / (sqrt(v) + eps)
    /// (keras AMSGrad uses vhat = max(vhat, v) in place of v). AdamW first decays each variable:
    /// keras var -= var * wd * lr; tfnet var += -lr0 * var * wd with the constructor learning rate lr0, skipped when wd = 0.
    /// </summary>
    public sealed class AdamOptimizer : ReferenceOptimizer
    {
        private readonly IList<Tensor> _m;
        private readonly IList<Tensor> _v;
        private readonly IList<Tensor> _vhat;
        private double _alpha;
        private double _oneMinusBeta1;
        private double _oneMinusBeta2;
        private double _epsilon;

        /// <summary>Creates the optimizer with slots "m", "v" and, for AMSGrad, "vhat".</summary>
        /// <exception cref="ProfileNotSupportedException">tfnet with amsgrad (TensorFlow.NET throws NotImplementedException).</exception>
        public AdamOptimizer(OptimizerSpec spec, Semantics semantics, Numerics numerics, IList<int[]> shapes)
            : base(spec, semantics, numerics, shapes)
        {
            if (spec.Kind != OptimizerKind.Adam && spec.Kind != OptimizerKind.AdamW)
                throw new ArgumentException("spec: expected adam or adamw, got " + CaseNames.Of(spec.Kind), nameof(spec));
            if (spec.Amsgrad && semantics == Semantics.TfNet)
                throw new ProfileNotSupportedException("tfnet", "optimizer.amsgrad=true", "TensorFlow.NET's Adam throws NotImplementedException");
            _m = AddSlot("m");
            _v = AddSlot("v");
            if (spec.Amsgrad) _vhat = AddSlot("vhat");
        }

        /// <inheritdoc />
        protected override void BeginStep()
        {
            double t = N.Round(Iterations + 1);
            double beta1 = N.Round(Spec.Beta1), beta2 = N.Round(Spec.Beta2);
            double beta1Power = N.Round(Math.Pow(beta1, t));
            double beta2Power = N.Round(Math.Pow(beta2, t));
            _alpha = N.Round(N.Round(LearningRate * N.Round(Math.Sqrt(N.Round(1.0 - beta2Power)))) / N.Round(1.0 - beta1Power));
            bool keras = Semantics == Semantics.Keras;
            _oneMinusBeta1 = N.Round(1.0 - (keras ? Spec.Beta1 : beta1));
            _oneMinusBeta2 = N.Round(1.0 - (keras ? Spec.Beta2 : beta2));
            _epsilon = N.Round(Spec.Epsilon);
        }

        /// <inheritdoc />
        protected override void Update(int index, double[] variable, double[] gradient)
        {
            if (Spec.Kind == OptimizerKind.AdamW) DecayWeights(variable);
            double[] m = _m[index].Data, v = _v[index].Data;
            double[] vhat = _vhat == null ? null : _vhat[index].Data;
            for (int i = 0; i < variable.Length; i++)
            {
                double g = gradient[i];
                m[i] = N.Round(m[i] + N.Round(N.Round(g - m[i]) * _oneMinusBeta1));
                v[i] = N.Round(v[i] + N.Round(N.Round(N.Round(g * g) - v[i]) * _oneMinusBeta2));
                double second = v[i];
                if (vhat != null)
                {
                    vhat[i] = Math.Max(vhat[i], v[i]);
                    second = vhat[i];
                }
                double step = N.Round(N.Round(m[i] * _alpha) / N.Round(N.Round(Math.Sqrt(second)) + _epsilon));
                variable[i] = N.Round(variable[i] - step);
            }
        }

        private void DecayWeights(double[] variable)
        {
            double lr = LearningRate;
            double wd = N.Round(Spec.WeightDecay);
            if (Semantics == Semantics.Keras)
            {
                for (int i = 0; i < variable.Length; i++) variable[i] = N.Round(variable[i] - N.Round(N.Round(variable[i] * wd) * lr));
                return;
            }
            if (Spec.WeightDecay == 0) return;
            for (int i = 0; i < variable.Length; i++) variable[i] = N.Round(variable[i] + N.Round(N.Round(-lr * variable[i]) * wd));
        }
    }
}
