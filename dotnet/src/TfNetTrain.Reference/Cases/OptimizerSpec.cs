using System;
using System.Collections.Generic;
using System.Globalization;

namespace TfNetTrain.Reference
{
    /// <summary>
    /// The case's optimizer and its hyper-parameters. <see cref="ForKind"/> fills in Keras 3's defaults;
    /// properties that do not belong to the optimizer are ignored by it.
    /// </summary>
    public sealed class OptimizerSpec
    {
        private OptimizerSpec(OptimizerKind kind)
        {
            Kind = kind;
        }

        // Optimizer identifiers Keras 3 knows (keras.optimizers.get, any letter case) besides sgd, adam, adamw, rmsprop.
        private static readonly HashSet<string> OtherKerasOptimizers = new HashSet<string>
        {
            "adadelta", "adafactor", "adagrad", "adamax", "ftrl", "lion", "lossscaleoptimizer", "multioptimizer", "muon",
            "nadam", "optimizer", "optimizermap", "schedulefreeadamw",
        };

        /// <summary>
        /// Which optimizer. For a string optimizer (<see cref="AsString"/>), RMSprop, the one TensorFlow.NET's string
        /// compile builds; <see cref="Resolve"/> gives each profile's.
        /// </summary>
        public OptimizerKind Kind { get; }

        /// <summary>True when the case compiles with the string <see cref="Name"/> (no hyper-parameters).</summary>
        public bool AsString { get; private set; }

        /// <summary>The optimizer string as given, for a string optimizer; otherwise the schema name of <see cref="Kind"/>.</summary>
        public string Name { get { return _name ?? CaseNames.Of(Kind); } }

        private string _name;

        /// <summary>
        /// A string-compiled optimizer. Its properties hold TensorFlow.NET's choice, RMSprop(0.001, rho 0.9, epsilon 1e-7).
        /// </summary>
        public static OptimizerSpec FromString(string name)
        {
            OptimizerSpec spec = ForKind(OptimizerKind.RmsProp);
            spec.AsString = true;
            spec._name = name;
            return spec;
        }

        /// <summary>True for a name Keras 3 knows as an optimizer other than SGD, Adam, AdamW and RMSprop (any letter case).</summary>
        public static bool IsOtherKerasOptimizer(string name)
        {
            return name != null && OtherKerasOptimizers.Contains(name.ToLowerInvariant());
        }

        /// <summary>
        /// The optimizer a profile builds. A string under tfnet is RMSprop(0.001, rho 0.9, epsilon 1e-7) whatever it names;
        /// under keras it is the named optimizer (any letter case) with Keras 3's defaults.
        /// </summary>
        /// <exception cref="ProfileNotSupportedException">Under keras, for a string Keras 3 cannot interpret.</exception>
        public OptimizerSpec Resolve(Semantics semantics)
        {
            if (!AsString) return this;
            if (semantics == Semantics.TfNet) return ForKind(OptimizerKind.RmsProp);
            OptimizerKind kind;
            if (!CaseNames.TryParse(_name.ToLowerInvariant(), out kind))
                throw new ProfileNotSupportedException("keras", "optimizer=\"" + _name + "\"",
                    "Keras 3 cannot interpret the optimizer identifier and raises a ValueError");
            return ForKind(kind);
        }

        /// <summary>Learning rate (Keras 3 default 0.01 for SGD, 0.001 otherwise).</summary>
        public double LearningRate { get; set; }

        /// <summary>SGD and RMSprop momentum (default 0).</summary>
        public double Momentum { get; set; }

        /// <summary>SGD Nesterov momentum (default false).</summary>
        public bool Nesterov { get; set; }

        /// <summary>Adam/AdamW first-moment decay (default 0.9).</summary>
        public double Beta1 { get; set; }

        /// <summary>Adam/AdamW second-moment decay (default 0.999).</summary>
        public double Beta2 { get; set; }

        /// <summary>Adam/AdamW/RMSprop epsilon (default 1e-7).</summary>
        public double Epsilon { get; set; }

        /// <summary>Adam/AdamW AMSGrad (default false).</summary>
        public bool Amsgrad { get; set; }

        /// <summary>AdamW decoupled weight decay (default 0.004).</summary>
        public double WeightDecay { get; set; }

        /// <summary>RMSprop discount (default 0.9).</summary>
        public double Rho { get; set; }

        /// <summary>RMSprop centered variant (default false).</summary>
        public bool Centered { get; set; }

        /// <summary>Per-tensor norm clipping; null = off. At most one of the three clip options is set (Keras 3's rule).</summary>
        /// <exception cref="ArgumentException">When another clip option is already set; nothing changes.</exception>
        public double? ClipNorm
        {
            get { return _clipNorm; }
            set { CheckOnlyClip("ClipNorm", value); _clipNorm = value; }
        }

        /// <summary>Element-wise value clipping; null = off. At most one of the three clip options is set.</summary>
        /// <exception cref="ArgumentException">When another clip option is already set; nothing changes.</exception>
        public double? ClipValue
        {
            get { return _clipValue; }
            set { CheckOnlyClip("ClipValue", value); _clipValue = value; }
        }

        /// <summary>Global norm clipping over all gradients; null = off. At most one of the three clip options is set.</summary>
        /// <exception cref="ArgumentException">When another clip option is already set; nothing changes.</exception>
        public double? GlobalClipNorm
        {
            get { return _globalClipNorm; }
            set { CheckOnlyClip("GlobalClipNorm", value); _globalClipNorm = value; }
        }

        private double? _clipNorm;
        private double? _clipValue;
        private double? _globalClipNorm;

        private void CheckOnlyClip(string name, double? value)
        {
            if (!value.HasValue) return;
            var others = new List<string>();
            if (name != "ClipNorm" && _clipNorm.HasValue) others.Add("ClipNorm = " + _clipNorm.Value.ToString("R", CultureInfo.InvariantCulture));
            if (name != "ClipValue" && _clipValue.HasValue) others.Add("ClipValue = " + _clipValue.Value.ToString("R", CultureInfo.InvariantCulture));
            if (name != "GlobalClipNorm" && _globalClipNorm.HasValue)
                others.Add("GlobalClipNorm = " + _globalClipNorm.Value.ToString("R", CultureInfo.InvariantCulture));
            if (others.Count > 0)
                throw new ArgumentException(string.Format(CultureInfo.InvariantCulture,
                    "Only one of ClipNorm, ClipValue and GlobalClipNorm can be set (Keras 3's rule): expected {0} to stay null " +
                    "while {1}, got {0} = {2}", name, string.Join(", ", others), value.Value.ToString("R", CultureInfo.InvariantCulture)), name);
        }

        /// <summary>A spec with Keras 3's defaults for <paramref name="kind"/>.</summary>
        public static OptimizerSpec ForKind(OptimizerKind kind)
        {
            return new OptimizerSpec(kind)
            {
                LearningRate = kind == OptimizerKind.Sgd ? 0.01 : 0.001,
                Momentum = 0.0,
                Nesterov = false,
                Beta1 = 0.9,
                Beta2 = 0.999,
                Epsilon = 1e-7,
                Amsgrad = false,
                WeightDecay = 0.004,
                Rho = 0.9,
                Centered = false,
            };
        }
    }
}
