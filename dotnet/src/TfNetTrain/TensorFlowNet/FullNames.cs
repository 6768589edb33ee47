// The face's types under the full names TensorFlow.NET gives them, for programs that spell a type so in a method
// body (`Tensorflow.Keras.Activation activation = null;`, `... as Tensorflow.Keras.Engine.Model`). Each is the face
// type it derives from, adding nothing: the face hands out these, so both spellings hold the same objects.

namespace Tensorflow.Keras
{
    /// <summary>TF.NET's <c>Tensorflow.Keras.Activation</c>: the face's <see cref="TfNetTrain.TensorFlowNet.Activation"/>.</summary>
    public sealed class Activation : TfNetTrain.TensorFlowNet.Activation
    {
        internal Activation(string name) : base(name)
        {
        }
    }
}

namespace Tensorflow.Keras.Engine
{
    /// <summary>
    /// TF.NET's <c>Tensorflow.Keras.Engine.Model</c>: the face's <see cref="TfNetTrain.TensorFlowNet.Model"/>, base of
    /// its <see cref="TfNetTrain.TensorFlowNet.Functional"/> and <see cref="TfNetTrain.TensorFlowNet.Sequential"/>
    /// models; a C# model may derive from either name.
    /// </summary>
    public class Model : TfNetTrain.TensorFlowNet.Model
    {
        internal Model(TfNetTrain.Model model, string name) : base(model, name)
        {
        }

        /// <summary>A model written in C#: override Call (and train_step if the step itself differs).</summary>
        protected Model(TfNetTrain.TensorFlowNet.ModelArgs args) : base(args)
        {
        }
    }
}
