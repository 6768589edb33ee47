using System;
using System.Collections.Generic;
using System.Linq;

namespace TfNetTrain.Reference
{
    /// <summary>
    /// An optimizer that updates float32 variables in place with the formulas of one profile, and keeps its slots and
    /// iteration count. Slot names follow docs/conformance.md.
    /// </summary>
    public abstract class ReferenceOptimizer
    {
        private readonly SortedDictionary<string, IList<Tensor>> _slots = new SortedDictionary<string, IList<Tensor>>(StringComparer.Ordinal);

        /// <summary>Creates the optimizer for variables of the given shapes.</summary>
        protected ReferenceOptimizer(OptimizerSpec spec, Semantics semantics, Numerics numerics, IList<int[]> shapes)
        {
            Spec = spec ?? throw new ArgumentNullException(nameof(spec));
            Semantics = semantics;
            N = numerics ?? throw new ArgumentNullException(nameof(numerics));
            Shapes = shapes ?? throw new ArgumentNullException(nameof(shapes));
        }

        /// <summary>The hyper-parameters.</summary>
        public OptimizerSpec Spec { get; }

        /// <summary>The profile whose formulas apply.</summary>
        public Semantics Semantics { get; }

        /// <summary>Completed updates.</summary>
        public long Iterations { get; private set; }

        /// <summary>The learning rate as the optimizer stores it (a float32 variable).</summary>
        public double LearningRate { get { return N.Round(Spec.LearningRate); } }

        /// <summary>Slot tensors by slot name (sorted), one per variable.</summary>
        public IReadOnlyDictionary<string, IList<Tensor>> Slots { get { return _slots; } }

        /// <summary>Precision.</summary>
        protected Numerics N { get; }

        /// <summary>Variable shapes.</summary>
        protected IList<int[]> Shapes { get; }

        /// <summary>Creates the optimizer of <paramref name="spec"/>'s kind.</summary>
        /// <exception cref="ProfileNotSupportedException">An option the profile cannot run (tfnet: amsgrad, centered).</exception>
        public static ReferenceOptimizer Create(OptimizerSpec spec, Semantics semantics, Numerics numerics, IList<int[]> shapes)
        {
            switch (spec.Kind)
            {
                case OptimizerKind.Sgd: return new SgdOptimizer(spec, semantics, numerics, shapes);
                case OptimizerKind.Adam:
                case OptimizerKind.AdamW: return new AdamOptimizer(spec, semantics, numerics, shapes);
                case OptimizerKind.RmsProp: return new RmsPropOptimizer(spec, semantics, numerics, shapes);
                default: throw new ArgumentOutOfRangeException(nameof(spec), spec.Kind, "unknown optimizer");
            }
        }

        /// <summary>Updates every variable in place with its gradient, then counts one iteration.</summary>
        public void Apply(IList<Tensor> variables, IList<Tensor> gradients)
        {
            if (variables.Count != Shapes.Count || gradients.Count != Shapes.Count)
                throw new ArgumentException(string.Format("gradients: expected {0} variables and gradients, got {1} and {2}",
                    Shapes.Count, variables.Count, gradients.Count), nameof(gradients));
            for (int i = 0; i < Shapes.Count; i++)
            {
                if (!variables[i].Shape.SequenceEqual(Shapes[i]) || !gradients[i].Shape.SequenceEqual(Shapes[i]))
                    throw new ArgumentException(string.Format("gradients[{0}]: expected shape {1}, got variable {2} and gradient {3}", i,
                        NpyArray.FormatShape(Shapes[i]), NpyArray.FormatShape(variables[i].Shape), NpyArray.FormatShape(gradients[i].Shape)),
                        nameof(gradients));
            }
            BeginStep();
            for (int i = 0; i < Shapes.Count; i++) Update(i, variables[i].Data, gradients[i].Data);
            Iterations++;
        }

        /// <summary>Per-step preparation (e.g. Adam's bias corrections); <see cref="Iterations"/> is the count before this step.</summary>
        protected virtual void BeginStep()
        {
        }

        /// <summary>Updates variable <paramref name="index"/> in place.</summary>
        protected abstract void Update(int index, double[] variable, double[] gradient);

        /// <summary>Adds a zero-initialised slot with one tensor per variable and returns the tensors.</summary>
        protected IList<Tensor> AddSlot(string name)
        {
            IList<Tensor> tensors = Shapes.Select(s => Tensor.Zeros(s)).ToList();
            _slots.Add(name, tensors);
            return tensors;
        }
    }
}
