using System;
using System.Collections.Generic;
using System.Linq;
using Python.Runtime;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>TF.NET's <c>Tensorflow.KerasApi</c>: <c>using static TfNetTrain.TensorFlowNet.KerasApi;</c> gives keras.</summary>
    public static partial class KerasApi
    {
        /// <summary>The keras namespace.</summary>
        public static readonly KerasInterface keras = new KerasInterface();
    }

    /// <summary>keras: models, layers, optimizers, losses, metrics, datasets — over the TfNetTrain objects.</summary>
    public sealed partial class KerasInterface
    {
        internal KerasInterface()
        {
        }

        public LayersApi layers { get; } = new LayersApi();
        public OptimizerApi optimizers { get; } = new OptimizerApi();
        public LossesApi losses { get; } = new LossesApi();
        public MetricsApi metrics { get; } = new MetricsApi();
        public DatasetsApi datasets { get; } = new DatasetsApi();
        public PreprocessingApi preprocessing { get; } = new PreprocessingApi();

        /// <summary>An empty (or pre-filled) Sequential model; <see cref="Sequential.add"/> appends layers.</summary>
        public Sequential Sequential(List<ILayer> layers = null, string name = null) => new Sequential(layers, name);

        /// <summary>A Sequential of the given layers (TF.NET's <c>keras.Sequential(new[] { ... })</c>).</summary>
        public Sequential Sequential(ILayer[] layers, string name = null) => new Sequential(layers?.ToList(), name);

        /// <summary>A symbolic input for functional models: per-sample <paramref name="shape"/>, optional fixed batch size.</summary>
        public Tensor Input(Shape shape, int batch_size = -1, TF_DataType dtype = TF_DataType.DtInvalid, string name = null)
        {
            if (shape == null) throw new ArgumentNullException(nameof(shape));
            PythonRuntime runtime = Face.Runtime;
            var kwargs = InputArguments(shape, batch_size, dtype, name);
            return Face.Run(runtime, f =>
            {
                using (var cls = new PyString("Input"))
                using (var pyKwargs = PyConvert.Kwargs(kwargs))
                {
                    return Tensor.Wrap(runtime, f["build_layer"].Invoke(cls, pyKwargs));
                }
            });
        }

        internal static Dictionary<string, object> InputArguments(Shape shape, int batch_size, TF_DataType dtype, string name)
        {
            if (batch_size == 0 || batch_size < -1) throw new TfNetTrainArgumentException(nameof(batch_size), $"must be >= 1 (or -1 for any); got {batch_size}");
            return new Dictionary<string, object>
            {
                { "shape", shape.as_int_list() }, { "batch_size", batch_size > 0 ? (object)batch_size : null },
                { "dtype", Face.DTypeName(dtype) }, { "name", name },
            };
        }

        /// <summary>A functional model from symbolic inputs to outputs.</summary>
        public Functional Model(Tensor inputs, Tensor outputs, string name = null) => Model(new[] { inputs }, new[] { outputs }, name);

        /// <summary>A functional model from several inputs/outputs given as Tensors (<c>new Tensors(a, b)</c>).</summary>
        public Functional Model(Tensors inputs, Tensors outputs, string name = null)
            => Model(inputs?.ToArray() ?? throw new ArgumentNullException(nameof(inputs)), outputs?.ToArray() ?? throw new ArgumentNullException(nameof(outputs)), name);

        /// <summary>A functional model from several inputs to one output.</summary>
        public Functional Model(Tensors inputs, Tensor outputs, string name = null) => Model(inputs, (Tensors)outputs, name);

        /// <summary>A functional model from one input to the outputs a layer's Apply returned.</summary>
        public Functional Model(Tensor inputs, Tensors outputs, string name = null) => Model((Tensors)inputs, outputs, name);

        /// <summary>A functional model from several inputs/outputs.</summary>
        public Functional Model(Tensor[] inputs, Tensor[] outputs, string name = null)
        {
            if (inputs == null || inputs.Length == 0) throw new TfNetTrainArgumentException(nameof(inputs), "at least one input is required");
            if (outputs == null || outputs.Length == 0) throw new TfNetTrainArgumentException(nameof(outputs), "at least one output is required");
            PythonRuntime runtime = Face.Runtime;
            TfNetTrain.Model model = Face.Run(runtime, f =>
            {
                using (var ins = Face.ToPython(inputs.ToList()))
                using (var outs = Face.ToPython(outputs.ToList()))
                using (var pyName = name == null ? PyObject.None : new PyString(name))
                using (var m = f["functional"].Invoke(ins, outs, pyName))
                {
                    return TfNetTrain.Model.FromPython(m, runtime);
                }
            });
            return new Functional(model, name);
        }
    }

    /// <summary>keras.datasets: Keras's own loaders (downloaded on first use, then cached), and the digits bundled
    /// with scikit-learn (no download).</summary>
    public sealed class DatasetsApi
    {
        internal DatasetsApi()
        {
        }

        /// <summary>scikit-learn's 8x8 digits, 64 float32 pixels in [0, 1], int32 labels (tfnet_train.demo.digits_split).</summary>
        public DigitsLoader digits { get; } = new DigitsLoader();

        /// <summary>keras.datasets.mnist: 28x28 uint8 images and uint8 labels.</summary>
        public KerasDatasetLoader mnist { get; } = new KerasDatasetLoader("mnist");

        /// <summary>keras.datasets.fashion_mnist: 28x28 uint8 images and uint8 labels.</summary>
        public KerasDatasetLoader fashion_mnist { get; } = new KerasDatasetLoader("fashion_mnist");

        /// <summary>keras.datasets.cifar10: 32x32x3 uint8 images and (n, 1) uint8 labels.</summary>
        public KerasDatasetLoader cifar10 { get; } = new KerasDatasetLoader("cifar10");

        /// <summary>keras.datasets.cifar100: 32x32x3 uint8 images and (n, 1) labels.</summary>
        public KerasDatasetLoader cifar100 { get; } = new KerasDatasetLoader("cifar100");
    }

    /// <summary>One of Keras's datasets, loaded by Keras (its cache under KERAS_HOME; a download the first time).</summary>
    public sealed class KerasDatasetLoader
    {
        private readonly string _name;

        internal KerasDatasetLoader(string name)
        {
            _name = name;
        }

        /// <summary>((x_train, y_train), (x_test, y_test)) as Keras loads them; a failed download is a
        /// <see cref="TfNetTrainIOException"/> naming the dataset.</summary>
        public DatasetPass load_data()
        {
            PythonRuntime runtime = Face.Runtime;
            return Face.Run(runtime, f =>
            {
                using (var split = Face.Invoke(f, "datasets", "keras_dataset", new object[] { _name }))
                {
                    var parts = new NDArray[4];  // kept in Python, uint8 as Keras loads them, until read
                    for (int i = 0; i < 4; i++) parts[i] = NDArray.WrapPython(runtime, split[i]);
                    return new DatasetPass { Train = (parts[0], parts[1]), Test = (parts[2], parts[3]) };
                }
            });
        }
    }

    /// <summary>Loads the digits split.</summary>
    public sealed class DigitsLoader
    {
        internal DigitsLoader()
        {
        }

        /// <summary>((x_train, y_train), (x_test, y_test)) as TF.NET's mnist.load_data() gives them.</summary>
        public DatasetPass load_data()
        {
            PythonRuntime runtime = Face.Runtime;
            return runtime.Run(() =>
            {
                using (var demo = Py.Import("tfnet_train.demo"))
                using (var split = demo.InvokeMethod("digits_split"))
                {
                    var parts = new NDArray[4];
                    for (int i = 0; i < 4; i++) using (var item = split[i]) parts[i] = ArrayExchange.FromNumpy(item);
                    return new DatasetPass { Train = (parts[0], parts[1]), Test = (parts[2], parts[3]) };
                }
            });
        }
    }

    /// <summary>Train and test arrays; deconstructs as <c>var ((x_train, y_train), (x_test, y_test)) = ...</c> or,
    /// as TF.NET's does, into four (<c>(x_train, y_train, x_test, y_test) = ...</c>).</summary>
    public sealed class DatasetPass
    {
        public (NDArray, NDArray) Train { get; set; }
        public (NDArray, NDArray) Test { get; set; }

        public void Deconstruct(out NDArray x_train, out NDArray y_train, out NDArray x_test, out NDArray y_test)
        {
            x_train = Train.Item1;
            y_train = Train.Item2;
            x_test = Test.Item1;
            y_test = Test.Item2;
        }

        public void Deconstruct(out (NDArray, NDArray) train, out (NDArray, NDArray) test)
        {
            train = Train;
            test = Test;
        }
    }
}
