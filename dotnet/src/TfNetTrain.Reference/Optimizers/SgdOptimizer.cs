using System.Collections.Generic;

namespace TfNetTrain.Reference
{
    /// <summary>
    /// SGD. keras: m = m * momentum - g * lr; var += m, or with Nesterov var += m * momentum - g * lr.
    /// tfnet: the same without Nesterov (TensorFlow.NET never applies it). Without momentum: var -= g * lr.
    /// </summary>
    public sealed class SgdOptimizer : ReferenceOptimizer
    {
        private readonly IList<Tensor> _momentum;

        /// <summary>Creates the optimizer; a "momentum" slot exists when momentum is above 0.</summary>
        public SgdOptimizer(OptimizerSpec spec, Semantics semantics, Numerics numerics, IList<int[]> shapes)
            : base(spec, semantics, numerics, shapes)
        {
            if (spec.Momentum > 0) _momentum = AddSlot("momentum");
        }

        /// <summary>Whether Nesterov momentum is applied (keras profile only).</summary>
        public bool AppliesNesterov { get { return _momentum != null && Spec.Nesterov && Semantics == Semantics.Keras; } }

        /// <inheritdoc />
        protected override void Update(int index, double[] variable, double[] gradient)
        {
            double lr = LearningRate;
            if (_momentum == null)
            {
                for (int i = 0; i < variable.Length; i++) variable[i] = N.Round(variable[i] - N.Round(gradient[i] * lr));
                return;
            }
            double momentum = N.Round(Spec.Momentum);
            double[] m = _momentum[index].Data;
            for (int i = 0; i < variable.Length; i++)
            {
                double step = N.Round(gradient[i] * lr);
                m[i] = N.Round(N.Round(m[i] * momentum) - step);
                double delta = AppliesNesterov ? N.Round(N.Round(m[i] * momentum) - step) : m[i];
                variable[i] = N.Round(variable[i] + delta);
            }
        }
    }
}
