using System;
using System.Collections.Generic;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>TF.NET's <c>IRegularizer</c>: a Keras regularizer by class name and config (what layers' *_regularizer arguments take).</summary>
    public interface IRegularizer
    {
        /// <summary>Keras's class name ("L1", "L2", "L1L2").</summary>
        string ClassName { get; }

        /// <summary>Its config ("l1", "l2").</summary>
        IDictionary<string, object> Config { get; }
    }

    /// <summary>A Keras regularizer config (the same dictionaries <see cref="TfNetTrain.Regularizers"/> makes).</summary>
    internal sealed class KerasRegularizer : IRegularizer
    {
        internal KerasRegularizer(IDictionary<string, object> spec)
        {
            Spec = spec;
        }

        public string ClassName => (string)Spec["class_name"];
        public IDictionary<string, object> Config => (IDictionary<string, object>)Spec["config"];

        /// <summary>The {class_name, config} dictionary Keras deserializes.</summary>
        internal IDictionary<string, object> Spec { get; }

        internal static object ToSpec(IRegularizer regularizer, string member, string argument)
        {
            if (regularizer == null) return null;
            if (regularizer is KerasRegularizer keras) return keras.Spec;
            if (string.IsNullOrEmpty(regularizer.ClassName))
                throw new TfNetTrainArgumentException(argument, $"{member}: {argument} must name a Keras regularizer class (L1, L2, L1L2), got an empty ClassName");
            return new Dictionary<string, object>
            {
                { "class_name", regularizer.ClassName },
                { "config", regularizer.Config ?? new Dictionary<string, object>() },
            };
        }
    }

    /// <summary>TF.NET's <c>keras.regularizers</c>: l1/l2/l1l2 with arguments, L1/L2/L1L2 with TF.NET's defaults.</summary>
    public sealed class RegularizersApi
    {
        internal RegularizersApi()
        {
        }

        public IRegularizer l1(float l1 = 0.01f) => new KerasRegularizer(TfNetTrain.Regularizers.L1(l1));
        public IRegularizer l2(float l2 = 0.01f) => new KerasRegularizer(TfNetTrain.Regularizers.L2(l2));
        public IRegularizer l1l2(float l1 = 0f, float l2 = 0f) => new KerasRegularizer(TfNetTrain.Regularizers.L1L2(l1, l2));
        public IRegularizer L1 => l1();
        public IRegularizer L2 => l2();
        public IRegularizer L1L2 => l1l2();

        /// <summary>"L1", "L2" or "L1L2" with the defaults above.</summary>
        public IRegularizer GetRegularizerFromName(string name)
        {
            switch (name)
            {
                case "L1": return L1;
                case "L2": return L2;
                case "L1L2": return L1L2;
                case null: throw new ArgumentNullException(nameof(name));
                default: throw new TfNetTrainArgumentException(nameof(name), $"keras.regularizers: expected \"L1\", \"L2\" or \"L1L2\", got \"{name}\"");
            }
        }
    }

    public sealed partial class KerasInterface
    {
        /// <summary>keras.regularizers.</summary>
        public RegularizersApi regularizers { get; } = new RegularizersApi();
    }
}
