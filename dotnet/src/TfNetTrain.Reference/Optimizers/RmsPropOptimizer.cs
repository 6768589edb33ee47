using System;
using System.Collections.Generic;

namespace TfNetTrain.Reference
{
    /// <summary>
    /// RMSprop. keras: rms = rho * rms + (1 - rho) * g^2; increment = lr * g / sqrt(rms + eps) (centered: sqrt(rms - mg^2 + eps)
    /// with mg = rho * mg + (1 - rho) * g); with momentum: mom = momentum * mom + increment, var -= mom; else var -= increment.
    /// tfnet: var -= lr * g / (sqrt(rms) + eps); momentum ignored, centered unsupported.
    /// </summary>
    public sealed class RmsPropOptimizer : ReferenceOptimizer
    {
        private readonly IList<Tensor> _rms;
        private readonly IList<Tensor> _mg;
        private readonly IList<Tensor> _momentum;

        /// <summary>Creates the optimizer with slot "rms", plus "mg" (centered) and "momentum" (momentum above 0) under keras.</summary>
        /// <exception cref="ProfileNotSupportedException">tfnet with centered (TensorFlow.NET throws NotImplementedException).</exception>
        public RmsPropOptimizer(OptimizerSpec spec, Semantics semantics, Numerics numerics, IList<int[]> shapes)
            : base(spec, semantics, numerics, shapes)
        {
            if (spec.Centered && semantics == Semantics.TfNet)
                throw new ProfileNotSupportedException("tfnet", "optimizer.centered=true", "TensorFlow.NET's RMSprop throws NotImplementedException");
            _rms = AddSlot("rms");
            if (semantics == Semantics.Keras)
            {
                if (spec.Centered) _mg = AddSlot("mg");
                if (spec.Momentum > 0) _momentum = AddSlot("momentum");
            }
        }

        /// <inheritdoc />
        protected override void Update(int index, double[] variable, double[] gradient)
        {
            double lr = LearningRate;
            double rho = N.Round(Spec.Rho);
            double epsilon = N.Round(Spec.Epsilon);
            double[] rms = _rms[index].Data;
            if (Semantics == Semantics.TfNet)
            {
                double oneMinusRhoTf = N.Round(1.0 - rho);
                for (int i = 0; i < variable.Length; i++)
                {
                    double g = gradient[i];
                    rms[i] = N.Round(N.Round(rho * rms[i]) + N.Round(oneMinusRhoTf * N.Round(g * g)));
                    double denominator = N.Round(N.Round(Math.Sqrt(rms[i])) + epsilon);
                    variable[i] = N.Round(variable[i] - N.Round(N.Round(lr * g) / denominator));
                }
                return;
            }
            double oneMinusRho = N.Round(1.0 - Spec.Rho);
            double momentum = N.Round(Spec.Momentum);
            double[] mg = _mg == null ? null : _mg[index].Data;
            double[] mom = _momentum == null ? null : _momentum[index].Data;
            for (int i = 0; i < variable.Length; i++)
            {
                double g = gradient[i];
                rms[i] = N.Round(N.Round(rho * rms[i]) + N.Round(oneMinusRho * N.Round(g * g)));
                double denominator;
                if (mg != null)
                {
                    mg[i] = N.Round(N.Round(rho * mg[i]) + N.Round(oneMinusRho * g));
                    denominator = N.Round(N.Round(rms[i] - N.Round(mg[i] * mg[i])) + epsilon);
                }
                else
                {
                    denominator = N.Round(rms[i] + epsilon);
                }
                double increment = N.Round(N.Round(lr * g) / N.Round(Math.Sqrt(denominator)));
                if (mom != null)
                {
                    mom[i] = N.Round(N.Round(momentum * mom[i]) + increment);
                    variable[i] = N.Round(variable[i] - mom[i]);
                }
                else
                {
                    variable[i] = N.Round(variable[i] - increment);
                }
            }
        }
    }
}
