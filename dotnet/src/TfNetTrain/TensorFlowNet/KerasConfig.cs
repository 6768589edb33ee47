using System;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>TF.NET's IKerasConfig: what <c>get_config()</c> returns.</summary>
    public interface IKerasConfig
    {
    }

    /// <summary>
    /// A layer's or model's Keras config, held as Keras's JSON text (<see cref="Json"/>); converts to that text
    /// implicitly, so code that reads it as a string keeps working.
    /// </summary>
    public class KerasConfig : IKerasConfig
    {
        internal KerasConfig(string json)
        {
            Json = json ?? throw new ArgumentNullException(nameof(json));
        }

        /// <summary>Keras's <c>get_config()</c> as JSON text.</summary>
        public string Json { get; }

        /// <summary>The JSON text.</summary>
        public override string ToString() => Json;

        public static implicit operator string(KerasConfig config) => config?.Json;
    }

    /// <summary>A functional model's config (TF.NET's FunctionalConfig), for <see cref="ModelsApi.from_config"/>.</summary>
    public sealed class FunctionalConfig : KerasConfig
    {
        internal FunctionalConfig(string json) : base(json)
        {
        }
    }
}
