using System;
using System.Collections.Generic;
using System.Linq;
using Python.Runtime;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>A Keras layer (TF.NET's ILayer).</summary>
    public interface ILayer
    {
        /// <summary>The layer name (null until Keras names it, for layers not yet built).</summary>
        string Name { get; }

        /// <summary>Calls the layer on <paramref name="inputs"/> (symbolic or eager); the same layer object every call.
        /// One tensor per layer output, as TensorFlow.NET's Tensors (a single one converts to Tensor).</summary>
        Tensors Apply(Tensor inputs, bool? training = null);

        /// <summary>Calls the layer on one tensor or several (TF.NET's signature).</summary>
        Tensors Apply(Tensors inputs, Tensors states = null, bool? training = null, IOptionalArgs optional_args = null);
    }

    /// <summary>TF.NET's optional call arguments (none are used by the layers here).</summary>
    public interface IOptionalArgs
    {
    }

    /// <summary>What a C# <see cref="Layer"/> subclass is made with (TF.NET's LayerArgs).</summary>
    public class LayerArgs
    {
        /// <summary>The layer's name (Keras makes one when null).</summary>
        public virtual string Name { get; set; }

        /// <summary>Whether its weights train.</summary>
        public virtual bool Trainable { get; set; } = true;

        /// <summary>The dtype of its weights and computations.</summary>
        public virtual TF_DataType DType { get; set; } = TF_DataType.TF_FLOAT;
    }

    /// <summary>
    /// A layer: the <see cref="LayerSpec"/> of the PascalCase API plus, once needed (Apply, adapt), the Python layer
    /// built from it. <c>input_shape</c> given to a layer becomes the Input of the Sequential it starts.
    /// <para>A C# subclass (made with <see cref="LayerArgs"/>) overrides <see cref="Call"/> and, when it owns weights,
    /// <see cref="build"/> with <see cref="add_weight"/>: Keras then runs it as a layer of its own — the C# code is
    /// called while TensorFlow traces, so the compiled step runs it without entering C# (docs/bridge.md, "C# code in
    /// compiled TensorFlow"). Layers it calls must be fields of the class or given to <see cref="StackLayers"/>.</para>
    /// </summary>
    public partial class Layer : ILayer
    {
        private PyObject _built;
        private readonly LayerArgs _args;
        private readonly List<ILayer> _stacked = new List<ILayer>();
        private HashSet<ILayer> _owned;

        internal Layer(LayerSpec spec, Shape inputShape = null, int batchSize = -1)
        {
            Spec = spec;
            InputShape = inputShape;
            BatchSize = batchSize;
        }

        /// <summary>A layer written in C# (override <see cref="Call"/>, and <see cref="build"/> for weights).</summary>
        protected Layer(LayerArgs args)
        {
            _args = args ?? new LayerArgs();
        }

        /// <summary>What the layer is built from (class name and Keras arguments); null for a C# subclass.</summary>
        public LayerSpec Spec { get; }

        /// <summary>The per-sample input shape given with input_shape (null when none).</summary>
        public Shape InputShape { get; }

        internal int BatchSize { get; }

        /// <summary>True for a C# subclass (its code runs while TensorFlow traces).</summary>
        internal bool IsHostCode => _args != null;

        public virtual string Name
        {
            get
            {
                if (IsHostCode) return _built == null ? _args.Name : Face.Run(Face.Runtime, f => { using (var n = _built.GetAttr("name")) return n.As<string>(); });
                return Spec.Arguments.TryGetValue("name", out object specName) ? (string)specName : null;
            }
        }

        internal bool IsBuilt => _built != null;

        /// <summary>The Python layer, built on first use (GIL held).</summary>
        internal virtual PyObject PythonLayer(PythonRuntime runtime, BridgeFacade f)
        {
            if (_built == null)
            {
                _built = IsHostCode ? MakeHostObject(runtime, f) : MakeSpecObject(runtime, f);
            }
            return _built;
        }

        /// <summary>The Keras config of the layer (Keras's <c>layer.get_config()</c>; converts to its JSON text).</summary>
        public virtual KerasConfig get_config()
        {
            PythonRuntime runtime = Face.Runtime;
            return new KerasConfig(Face.Run(runtime, f =>
            {
                using (var d = Face.Invoke(f, "tensors", "model_config", new object[] { new PyObjectBox(PythonLayer(runtime, f)) }))
                using (var json = d["json"])
                {
                    return json.As<string>();
                }
            }));
        }

        /// <summary>The Keras layer of the spec.</summary>
        internal virtual PyObject MakeSpecObject(PythonRuntime runtime, BridgeFacade f) => Face.Invoke(f, "tensors", "make_layer", new object[] { Spec });

        /// <summary>The Python object of a C# subclass, owning the layers it holds.</summary>
        internal virtual PyObject MakeHostObject(PythonRuntime runtime, BridgeFacade f)
        {
            var layers = OwnedLayers(runtime, f);
            using (var host = PyObject.FromManagedObject(HostCode.ForLayer(this)))
            {
                return Face.Invoke(f, "host_code", "host_layer", new object[]
                {
                    new PyObjectBox(host), _args.Name, _args.Trainable, Face.DTypeName(_args.DType),
                    Overrides(typeof(Layer), nameof(build)), layers,
                });
            }
        }

        /// <summary>The Python objects of the layers this C# object owns: StackLayers first, then its fields.</summary>
        internal List<object> OwnedLayers(PythonRuntime runtime, BridgeFacade f)
        {
            var owned = new List<ILayer>(_stacked);
            for (Type type = GetType(); type != null && type != typeof(Layer); type = type.BaseType)
            {
                var fields = new List<System.Reflection.FieldInfo>(type.GetFields(System.Reflection.BindingFlags.Instance | System.Reflection.BindingFlags.Public
                    | System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.DeclaredOnly));
                foreach (var field in fields)
                {
                    object value = field.GetValue(this);
                    if (value is ILayer one) owned.Add(one);
                    else if (value is IEnumerable<ILayer> many) owned.AddRange(many.Where(l => l != null));
                }
            }
            _owned = new HashSet<ILayer>();
            var result = new List<object>();
            foreach (ILayer layer in owned)
            {
                if (layer == this || !_owned.Add(layer)) continue;
                if (!(layer is Layer l)) throw new TfNetTrainArgumentException("layers", $"{GetType().Name} holds a {layer.GetType().Name}; layers must come from keras.layers or be Layer subclasses");
                result.Add(new PyObjectBox(l.PythonLayer(runtime, f)));
            }
            return result;
        }

        internal bool Owns(Layer layer) => _owned != null && _owned.Contains(layer);

        internal bool Overrides(Type declaring, string method)
        {
            foreach (var m in GetType().GetMethods(System.Reflection.BindingFlags.Instance | System.Reflection.BindingFlags.Public | System.Reflection.BindingFlags.NonPublic))
            {
                if (m.Name == method && m.GetBaseDefinition().DeclaringType == declaring && m.DeclaringType != declaring) return true;
            }
            return false;
        }

        /// <summary>Declares the layers this one calls, in order (their weights become its weights, in this order).</summary>
        protected void StackLayers(params ILayer[] layers)
        {
            if (layers == null) throw new ArgumentNullException(nameof(layers));
            if (_built != null) throw new InvalidOperationException($"{GetType().Name}: StackLayers must be called before the layer is first used (in its constructor)");
            foreach (var l in layers) _stacked.Add(l ?? throw new ArgumentNullException(nameof(layers), "StackLayers got a null layer"));
        }

        /// <summary>
        /// The layer's computation (a C# subclass overrides it). It runs while TensorFlow traces, with symbolic
        /// tensors: use tf ops and other layers' Apply, not numpy().
        /// </summary>
        protected virtual Tensors Call(Tensors inputs, Tensors state = null, bool? training = null, IOptionalArgs optional_args = null)
        {
            throw new NotImplementedException($"{GetType().Name} must override Call(Tensors inputs, Tensors state, bool? training, IOptionalArgs optional_args)");
        }

        internal Tensors InvokeCall(Tensors inputs, bool? training)
        {
            HostCode.Enter(this);
            try
            {
                return Call(inputs, null, training, null);
            }
            finally
            {
                HostCode.Leave();
            }
        }

        /// <summary>Creates the layer's weights for <paramref name="input_shape"/> with <see cref="add_weight"/> (C# subclasses).</summary>
        public virtual void build(KerasShapesWrapper input_shape)
        {
        }

        internal void InvokeBuild(KerasShapesWrapper shapes)
        {
            HostCode.Enter(this);
            try
            {
                build(shapes);
            }
            finally
            {
                HostCode.Leave();
            }
        }

        /// <summary>
        /// A weight of this layer (in <see cref="build"/>): Keras's add_weight; <paramref name="initializer"/> is a
        /// Keras initializer name ("glorot_uniform", "zeros", ...; Keras's default for the dtype when null).
        /// </summary>
        protected virtual IVariableV1 add_weight(string name, Shape shape, TF_DataType dtype = TF_DataType.TF_FLOAT, string initializer = null, bool trainable = true)
        {
            if (shape == null) throw new ArgumentNullException(nameof(shape));
            if (!IsHostCode) throw new InvalidOperationException("add_weight is for C# Layer subclasses");
            PythonRuntime runtime = Face.Runtime;
            return Face.Run(runtime, f => new ResourceVariable(runtime, Face.Invoke(f, "host_code", "layer_add_weight",
                new object[] { new PyObjectBox(PythonLayer(runtime, f)), name, shape.dims.ToList(), Face.DTypeName(dtype), initializer, trainable })));
        }

        /// <summary>Every weight of the layer (trainable first, as Keras lists them); empty until it is built.</summary>
        public List<IVariableV1> Weights => LayerVariables("weights");

        /// <summary>The trainable weights.</summary>
        public List<IVariableV1> TrainableWeights => LayerVariables("trainable_weights");

        /// <summary>The weights that do not train (BatchNormalization's moving statistics, frozen layers').</summary>
        public List<IVariableV1> NonTrainableWeights => LayerVariables("non_trainable_weights");

        private List<IVariableV1> LayerVariables(string which)
        {
            PythonRuntime runtime = Face.Runtime;
            return Face.Run(runtime, f =>
            {
                using (var list = Face.Invoke(f, "host_code", "layer_variables", new object[] { new PyObjectBox(PythonLayer(runtime, f)), which }))
                {
                    return ResourceVariable.WrapVariables(runtime, list);
                }
            });
        }

        public virtual Tensors Apply(Tensor inputs, bool? training = null) => Apply(new[] { inputs }, training);

        /// <summary>Calls the layer on one tensor or several (TF.NET's signature; states and optional_args are not taken).</summary>
        public virtual Tensors Apply(Tensors inputs, Tensors states = null, bool? training = null, IOptionalArgs optional_args = null)
        {
            if (inputs == null) throw new ArgumentNullException(nameof(inputs));
            if (states != null) throw new TfNetTrainArgumentException(nameof(states), "recurrent states are not taken by Layer.Apply here; pass initial states through the RNN layer's own arguments");
            if (optional_args != null) throw new TfNetTrainArgumentException(nameof(optional_args), "no optional arguments are taken by Layer.Apply here; pass null");
            return Apply(inputs.ToArray(), training);
        }

        /// <summary>Calls a merge layer (Add, Concatenate, ...) on several inputs.</summary>
        public Tensor Apply(Tensor[] inputs, bool? training = null)
        {
            if (inputs == null || inputs.Length == 0 || inputs.Any(i => i == null))
                throw new TfNetTrainArgumentException(nameof(inputs), "must hold at least one non-null tensor");
            HostCode.CheckOwned(this);
            PythonRuntime runtime = Face.Runtime;
            return Face.Run(runtime, f =>
            {
                using (var layer = PythonLayer(runtime, f).NewReference())
                {
                    return Tensor.Wrap(runtime, Face.Invoke(f, "tensors", "layer_call", new object[] { new PyObjectBox(layer), inputs.ToList(), training }));
                }
            });
        }

        /// <summary>Computes preprocessing statistics from <paramref name="data"/> (Normalization, ...).</summary>
        public void adapt(NDArray data)
        {
            if (data == null) throw new ArgumentNullException(nameof(data));
            PythonRuntime runtime = Face.Runtime;
            Face.Run(runtime, f =>
            {
                Face.Call(f, "tensors", "layer_adapt", new object[] { new PyObjectBox(PythonLayer(runtime, f)), data });
                return 0;
            });
        }

        /// <summary>"Dense(units=8)", or the C# class name.</summary>
        public override string ToString() => IsHostCode ? GetType().Name : Spec.ToString();
    }

    /// <summary>Passes a PyObject through Face.ToPython unchanged.</summary>
    internal sealed class PyObjectBox : PythonHandle
    {
        public PyObjectBox(PyObject value) : base(Face.Runtime, value)
        {
        }

        public override void Dispose()
        {
        }
    }

    /// <summary>
    /// keras.layers with TF.NET's names and argument names; each maps its arguments onto Keras 3's and returns a
    /// <see cref="Layer"/> over a <see cref="LayerSpec"/> (the PascalCase API's object).
    /// </summary>
    public sealed partial class LayersApi
    {
        /// <summary>keras.layers on its own (TF.NET's examples make one: <c>new LayersApi()</c>); it holds no state.</summary>
        public LayersApi()
        {
        }

        private static Layer L(string className, Shape inputShape, params object[] namesAndValues)
        {
            return new Layer(TfNetTrain.Layers.Spec(className, namesAndValues), inputShape);
        }

        private static object S(Shape s) => s?.as_int_list();

        /// <summary>A 2-D layer's size: one number means both dimensions (TF.NET's <c>kernel_size: 5</c>), as Keras takes an int.</summary>
        private static object S2(Shape s) => s == null ? null : s.ndim == 1 ? (object)(int)s[0] : s.as_int_list();

        public Layer InputLayer(Shape input_shape, int batch_size = -1, TF_DataType dtype = TF_DataType.DtInvalid, string name = null)
        {
            if (input_shape == null) throw new ArgumentNullException(nameof(input_shape));
            return new Layer(new LayerSpec("Input", KerasInterface.InputArguments(input_shape, batch_size, dtype, name)));
        }

        public Layer Dense(int units, string activation = null, string kernel_initializer = null, bool use_bias = true,
                           string bias_initializer = null, Shape input_shape = null, string name = null,
                           IRegularizer kernel_regularizer = null, IRegularizer bias_regularizer = null, IRegularizer activity_regularizer = null)
            => L("Dense", input_shape, "units", units, "activation", activation, "kernel_initializer", kernel_initializer,
                 "use_bias", use_bias, "bias_initializer", bias_initializer, "name", name,
                 "kernel_regularizer", KerasRegularizer.ToSpec(kernel_regularizer, "Dense", nameof(kernel_regularizer)),
                 "bias_regularizer", KerasRegularizer.ToSpec(bias_regularizer, "Dense", nameof(bias_regularizer)),
                 "activity_regularizer", KerasRegularizer.ToSpec(activity_regularizer, "Dense", nameof(activity_regularizer)));

        public Layer Conv1D(int filters, Shape kernel_size, int strides = 1, string padding = "valid", int dilation_rate = 1,
                            string activation = null, bool use_bias = true, string kernel_initializer = null, Shape input_shape = null, string name = null)
            => L("Conv1D", input_shape, "filters", filters, "kernel_size", S(kernel_size), "strides", strides, "padding", padding,
                 "dilation_rate", dilation_rate, "activation", activation, "use_bias", use_bias, "kernel_initializer", kernel_initializer, "name", name);

        public Layer Conv2D(int filters, Shape kernel_size = null, Shape strides = null, string padding = "valid", Shape dilation_rate = null,
                            string activation = null, bool use_bias = true, string kernel_initializer = null, Shape input_shape = null, string name = null,
                            IRegularizer kernel_regularizer = null, IRegularizer bias_regularizer = null, IRegularizer activity_regularizer = null)
            => L("Conv2D", input_shape, "filters", filters, "kernel_size", S2(kernel_size ?? new Shape(5, 5)), "strides", S2(strides), "padding", padding,
                 "dilation_rate", S2(dilation_rate), "activation", activation, "use_bias", use_bias, "kernel_initializer", kernel_initializer, "name", name,
                 "kernel_regularizer", KerasRegularizer.ToSpec(kernel_regularizer, "Conv2D", nameof(kernel_regularizer)),
                 "bias_regularizer", KerasRegularizer.ToSpec(bias_regularizer, "Conv2D", nameof(bias_regularizer)),
                 "activity_regularizer", KerasRegularizer.ToSpec(activity_regularizer, "Conv2D", nameof(activity_regularizer)));

        public Layer MaxPooling1D(int pool_size = 2, int? strides = null, string padding = "valid", string name = null)
            => L("MaxPooling1D", null, "pool_size", pool_size, "strides", strides, "padding", padding, "name", name);

        public Layer MaxPooling2D(Shape pool_size = null, Shape strides = null, string padding = "valid", string name = null)
            => L("MaxPooling2D", null, "pool_size", S2(pool_size ?? new Shape(2, 2)), "strides", S2(strides), "padding", padding, "name", name);

        public Layer AveragePooling1D(int pool_size = 2, int? strides = null, string padding = "valid", string name = null)
            => L("AveragePooling1D", null, "pool_size", pool_size, "strides", strides, "padding", padding, "name", name);

        public Layer AveragePooling2D(Shape pool_size = null, Shape strides = null, string padding = "valid", string name = null)
            => L("AveragePooling2D", null, "pool_size", S2(pool_size ?? new Shape(2, 2)), "strides", S2(strides), "padding", padding, "name", name);

        public Layer GlobalAveragePooling1D(string name = null) => L("GlobalAveragePooling1D", null, "name", name);
        public Layer GlobalAveragePooling2D(string name = null) => L("GlobalAveragePooling2D", null, "name", name);
        public Layer GlobalMaxPooling1D(string name = null) => L("GlobalMaxPooling1D", null, "name", name);
        public Layer GlobalMaxPooling2D(string name = null) => L("GlobalMaxPooling2D", null, "name", name);
        public Layer Flatten(Shape input_shape = null, string name = null) => L("Flatten", input_shape, "name", name);

        public Layer Dropout(float rate, int? seed = null, string name = null) => L("Dropout", null, "rate", rate, "seed", seed, "name", name);

        public Layer BatchNormalization(int axis = -1, float momentum = 0.99f, float epsilon = 0.001f, bool center = true, bool scale = true, string name = null)
            => L("BatchNormalization", null, "axis", axis, "momentum", momentum, "epsilon", epsilon, "center", center, "scale", scale, "name", name);

        public Layer LayerNormalization(int axis = -1, float epsilon = 0.001f, bool center = true, bool scale = true, string name = null)
            => L("LayerNormalization", null, "axis", axis, "epsilon", epsilon, "center", center, "scale", scale, "name", name);

        public Layer Embedding(int input_dim, int output_dim, string embeddings_initializer = null, bool mask_zero = false,
                               Shape input_shape = null, int input_length = -1, string name = null)
            => L("Embedding", input_shape ?? (input_length > 0 ? new Shape(input_length) : null), "input_dim", input_dim, "output_dim", output_dim,
                 "embeddings_initializer", embeddings_initializer, "mask_zero", mask_zero, "name", name);

        public Layer SimpleRNN(int units, string activation = "tanh", bool use_bias = true, bool return_sequences = false, bool return_state = false, string name = null)
            => L("SimpleRNN", null, "units", units, "activation", activation, "use_bias", use_bias, "return_sequences", return_sequences, "return_state", return_state, "name", name);

        public Layer LSTM(int units, string activation = "tanh", string recurrent_activation = "sigmoid", bool use_bias = true,
                          bool return_sequences = false, bool return_state = false, string name = null)
            => L("LSTM", null, "units", units, "activation", activation, "recurrent_activation", recurrent_activation, "use_bias", use_bias,
                 "return_sequences", return_sequences, "return_state", return_state, "name", name);

        public Layer GRU(int units, string activation = "tanh", string recurrent_activation = "sigmoid", bool use_bias = true,
                         bool return_sequences = false, bool return_state = false, bool reset_after = true, string name = null)
            => L("GRU", null, "units", units, "activation", activation, "recurrent_activation", recurrent_activation, "use_bias", use_bias,
                 "return_sequences", return_sequences, "return_state", return_state, "reset_after", reset_after, "name", name);

        public Layer Normalization(Shape input_shape = null, int? axis = -1, float? mean = null, float? variance = null, bool invert = false, string name = null)
            => L("Normalization", input_shape, "axis", axis.HasValue ? (object)axis.Value : PyConvert.None, "mean", mean, "variance", variance, "invert", invert, "name", name);

        public Layer Rescaling(float scale, float offset = 0f, Shape input_shape = null, string name = null)
            => L("Rescaling", input_shape, "scale", scale, "offset", offset, "name", name);

        public Layer Concatenate(int axis = -1, string name = null) => L("Concatenate", null, "axis", axis, "name", name);
        public Layer Add(string name = null) => L("Add", null, "name", name);
        public Layer Subtract(string name = null) => L("Subtract", null, "name", name);
        public Layer Multiply(string name = null) => L("Multiply", null, "name", name);
        public Layer Average(string name = null) => L("Average", null, "name", name);
        public Layer Maximum(string name = null) => L("Maximum", null, "name", name);
        public Layer Minimum(string name = null) => L("Minimum", null, "name", name);
        public Layer Activation(string activation, string name = null) => L("Activation", null, "activation", activation, "name", name);
        public Layer Softmax(int axis = -1, string name = null) => L("Softmax", null, "axis", axis, "name", name);
        public Layer ReLU(string name = null) => L("ReLU", null, "name", name);

        /// <summary>TF.NET's Tanh layer: Keras's Activation("tanh").</summary>
        public Layer Tanh(string name = null) => L("Activation", null, "activation", "tanh", "name", name);
        public Layer LeakyReLU(float alpha = 0.3f, string name = null) => L("LeakyReLU", null, "negative_slope", alpha, "name", name);
        public Layer ELU(float alpha = 1f, string name = null) => L("ELU", null, "alpha", alpha, "name", name);
        public Layer Reshape(Shape target_shape, string name = null) => L("Reshape", null, "target_shape", S(target_shape), "name", name);
        public Layer Permute(int[] dims, string name = null) => L("Permute", null, "dims", dims, "name", name);
        public Layer RepeatVector(int n, string name = null) => L("RepeatVector", null, "n", n, "name", name);
        public Layer UpSampling2D(Shape size = null, string interpolation = "nearest", string name = null)
            => L("UpSampling2D", null, "size", S2(size ?? new Shape(2, 2)), "interpolation", interpolation, "name", name);
        public Layer ZeroPadding2D(Shape padding, string name = null) => L("ZeroPadding2D", null, "padding", S(padding), "name", name);
    }
}
