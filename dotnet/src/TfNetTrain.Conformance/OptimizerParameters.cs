using System;
using System.Collections.Generic;
using TfNetTrain.Reference;

namespace TfNetTrain.Conformance
{
    /// <summary>The hyper-parameters each optimizer of the case schema has, under their schema (Keras) names.</summary>
    public static class OptimizerParameters
    {
        /// <summary>The engine's class name: SGD, Adam, AdamW, RMSprop.</summary>
        public static string ClassName(OptimizerKind kind)
        {
            switch (kind)
            {
                case OptimizerKind.Sgd: return "SGD";
                case OptimizerKind.Adam: return "Adam";
                case OptimizerKind.AdamW: return "AdamW";
                case OptimizerKind.RmsProp: return "RMSprop";
                default: throw new ArgumentOutOfRangeException(nameof(kind), kind, "unknown optimizer");
            }
        }

        /// <summary>The schema's parameter names for <paramref name="kind"/>, in the schema's order (clipping last).</summary>
        public static IReadOnlyList<string> Names(OptimizerKind kind)
        {
            var names = new List<string> { "learning_rate" };
            switch (kind)
            {
                case OptimizerKind.Sgd: names.AddRange(new[] { "momentum", "nesterov" }); break;
                case OptimizerKind.Adam: names.AddRange(new[] { "beta_1", "beta_2", "epsilon", "amsgrad" }); break;
                case OptimizerKind.AdamW: names.AddRange(new[] { "weight_decay", "beta_1", "beta_2", "epsilon", "amsgrad" }); break;
                case OptimizerKind.RmsProp: names.AddRange(new[] { "rho", "momentum", "epsilon", "centered" }); break;
                default: throw new ArgumentOutOfRangeException(nameof(kind), kind, "unknown optimizer");
            }
            names.AddRange(new[] { "clipnorm", "clipvalue", "global_clipnorm" });
            return names;
        }

        /// <summary>Every parameter of the spec's optimizer: doubles, bools, and null for clipping that is off.</summary>
        public static List<KeyValuePair<string, object>> Of(Reference.OptimizerSpec spec)
        {
            if (spec == null) throw new ArgumentNullException(nameof(spec));
            var result = new List<KeyValuePair<string, object>>();
            foreach (string name in Names(spec.Kind)) result.Add(new KeyValuePair<string, object>(name, Get(spec, name)));
            return result;
        }

        /// <summary>Sets one parameter by schema name (a number, a bool, or null for clipping).</summary>
        public static void Set(Reference.OptimizerSpec spec, string name, object value)
        {
            if (spec == null) throw new ArgumentNullException(nameof(spec));
            switch (name)
            {
                case "learning_rate": spec.LearningRate = Number(name, value); break;
                case "momentum": spec.Momentum = Number(name, value); break;
                case "nesterov": spec.Nesterov = Flag(name, value); break;
                case "beta_1": spec.Beta1 = Number(name, value); break;
                case "beta_2": spec.Beta2 = Number(name, value); break;
                case "epsilon": spec.Epsilon = Number(name, value); break;
                case "amsgrad": spec.Amsgrad = Flag(name, value); break;
                case "weight_decay": spec.WeightDecay = Number(name, value); break;
                case "rho": spec.Rho = Number(name, value); break;
                case "centered": spec.Centered = Flag(name, value); break;
                case "clipnorm": spec.ClipNorm = value == null ? (double?)null : Number(name, value); break;
                case "clipvalue": spec.ClipValue = value == null ? (double?)null : Number(name, value); break;
                case "global_clipnorm": spec.GlobalClipNorm = value == null ? (double?)null : Number(name, value); break;
                default: throw new ArgumentException("name: expected an optimizer parameter of the case schema, got '" + name + "'", nameof(name));
            }
        }

        private static object Get(Reference.OptimizerSpec spec, string name)
        {
            switch (name)
            {
                case "learning_rate": return spec.LearningRate;
                case "momentum": return spec.Momentum;
                case "nesterov": return spec.Nesterov;
                case "beta_1": return spec.Beta1;
                case "beta_2": return spec.Beta2;
                case "epsilon": return spec.Epsilon;
                case "amsgrad": return spec.Amsgrad;
                case "weight_decay": return spec.WeightDecay;
                case "rho": return spec.Rho;
                case "centered": return spec.Centered;
                case "clipnorm": return spec.ClipNorm;
                case "clipvalue": return spec.ClipValue;
                case "global_clipnorm": return spec.GlobalClipNorm;
                default: throw new ArgumentException("name: unknown optimizer parameter '" + name + "'", nameof(name));
            }
        }

        private static double Number(string name, object value)
        {
            if (value is double) return (double)value;
            if (value is float) return (float)value;
            if (value is int) return (int)value;
            if (value is long) return (long)value;
            throw new ArgumentException(string.Format("{0}: expected a number, got {1}", name, value ?? "null"), nameof(value));
        }

        private static bool Flag(string name, object value)
        {
            if (value is bool) return (bool)value;
            throw new ArgumentException(string.Format("{0}: expected a bool, got {1}", name, value ?? "null"), nameof(value));
        }
    }
}
