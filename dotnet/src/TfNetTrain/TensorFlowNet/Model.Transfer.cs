using System;
using System.Collections.Generic;
using System.Linq;
using Python.Runtime;

namespace TfNetTrain.TensorFlowNet
{
    public partial class Layer
    {
        /// <summary>A layer standing for a live Python layer of a model (its <see cref="trainable"/> is that layer's).</summary>
        internal Layer(LayerSpec spec, PyObject live) : this(spec)
        {
            _built = live;
        }

        /// <summary>
        /// Whether the layer's weights train (for a model: every layer in it); see
        /// <see cref="TfNetTrain.ModelLayer.Trainable"/>. Keras 3 fixes the trainable state when compile runs:
        /// compile again after changing it.
        /// </summary>
        public bool trainable
        {
            get => Live(l => l.Trainable);
            set => Live(l => { l.Trainable = value; return 0; });
        }

        /// <summary>Parameters of the layer (trainable and not).</summary>
        public long count_params() => Live(l => l.TrainableParamCount + l.NonTrainableParamCount);

        private T Live<T>(Func<ModelLayer, T> body)
        {
            PythonRuntime runtime = Face.Runtime;
            ModelLayer layer = Face.Run(runtime, f => new ModelLayer(runtime, PythonLayer(runtime, f).NewReference()));
            using (layer) return body(layer);
        }
    }

    public partial class Model
    {
        /// <summary>The layer called <paramref name="name"/> (<see cref="TfNetTrain.Model.GetLayer"/>).</summary>
        public ILayer get_layer(string name)
        {
            ModelLayer layer = EngineModel.GetLayer(name);
            return FaceLayer(layer);
        }

        /// <summary>Removes and returns the last layer of a Sequential model (<see cref="TfNetTrain.Model.Pop"/>); compile again after.</summary>
        public ILayer pop() => FaceLayer(EngineModel.Pop());

        /// <summary>
        /// Writes a SavedModel ("tf_saved_model") or an ONNX file ("onnx"), checked against predict and written whole
        /// or not at all (<see cref="TfNetTrain.Model.Export"/>).
        /// </summary>
        public void export(string filepath, string format = "tf_saved_model") => EngineModel.Export(filepath, format);

        /// <summary>
        /// Saves the whole model: a path ending in ".keras" (or ".h5") is written by <see cref="TfNetTrain.Model.Save"/>
        /// whatever <paramref name="save_format"/> says; any other path with TensorFlow.NET's default
        /// <c>save_format: "tf"</c> becomes a SavedModel directory: Keras 3's inference export (<see cref="export"/>:
        /// serving signatures and weights) that also carries the whole model, optimizer state included, at
        /// <c>assets.extra/model.keras</c>, so <c>keras.models.load_model(dir)</c> gives it back to train as TF.NET's
        /// does. <paramref name="include_optimizer"/> false leaves that file out: an inference export only.
        /// A directory replaces only an earlier export (<see cref="TfNetTrain.Model.Export"/>): a file, a folder that is
        /// not a SavedModel or one holding other files too is a <see cref="TfNetTrainArgumentException"/>, an earlier
        /// export with <paramref name="overwrite"/> false a <see cref="TfNetTrainIOException"/>.
        /// </summary>
        public void save(string filepath, bool overwrite = true, bool include_optimizer = true, string save_format = "tf")
        {
            if (filepath == null) throw new ArgumentNullException(nameof(filepath));
            bool keras = filepath.EndsWith(".keras", StringComparison.Ordinal) || filepath.EndsWith(".h5", StringComparison.Ordinal);
            if (!include_optimizer && keras)
                throw new ArgumentException($"include_optimizer must be true for {filepath}: Keras 3's model files always hold the optimizer; got false", nameof(include_optimizer));
            if (keras || save_format == "keras" || save_format == "h5")
            {
                EngineModel.Save(filepath, overwrite);
                return;
            }
            if (save_format != "tf")
                throw new ArgumentException($"save_format must be \"tf\", \"h5\" or \"keras\"; got {save_format ?? "null"}", nameof(save_format));
            if (include_optimizer) EngineModel.ExportSavedModelWithKerasModel(filepath, overwrite); // load_model reads it back, as TF.NET's
            else EngineModel.Export(filepath, "tf_saved_model", overwrite);
        }

        /// <summary>Parameters that train now.</summary>
        public long trainable_params => EngineModel.TrainableParamCount;

        /// <summary>Parameters that do not train now.</summary>
        public long non_trainable_params => EngineModel.NonTrainableParamCount;

        /// <summary>A face Layer for a live layer (a model used as a layer included), named by its Keras class.</summary>
        internal static ILayer FaceLayer(ModelLayer layer)
        {
            using (layer)
            {
                PythonRuntime runtime = Face.Runtime;
                var spec = new LayerSpec(layer.ClassName, new Dictionary<string, object> { { "name", layer.Name } });
                return Face.Run(runtime, f => new Layer(spec, layer.PythonObject.NewReference()));
            }
        }
    }

    public partial class Functional
    {
        /// <summary>The model's layers, live: <c>model.Layers[i].trainable = false</c> freezes that layer.</summary>
        public override List<ILayer> Layers => EngineModel.Layers.Select(TensorFlowNet.Model.FaceLayer).ToList();
    }

    /// <summary>Whole-model files (TF.NET's <c>keras.models</c>).</summary>
    public sealed class ModelsApi
    {
        /// <summary>What <c>keras.models</c> is (TF.NET's programs also write <c>new ModelsApi()</c>).</summary>
        public ModelsApi()
        {
        }

        /// <summary>
        /// A new functional model (fresh weights) from a functional model's <see cref="Model.get_config"/>, built by
        /// Keras's own <c>Model.from_config</c>.
        /// </summary>
        public Functional from_config(FunctionalConfig config)
        {
            if (config == null) throw new ArgumentNullException(nameof(config));
            PythonRuntime runtime = Face.Runtime;
            TfNetTrain.Model model = TfNetTrain.Model.Create(runtime, f => Face.Invoke(f, "saving", "model_from_config", new object[] { config.Json }));
            return new Functional(model, null);
        }

        /// <summary>
        /// A model from a ".keras" file, a whole-model ".h5" (Keras 3 or tf.keras 2, with its training configuration)
        /// or a tf.keras SavedModel directory (<see cref="TfNetTrain.Keras.Models.LoadModel"/>).
        /// </summary>
        public Functional load_model(string filepath, bool compile = true, bool safe_mode = true)
        {
            _ = Face.Runtime; // started on first use, as elsewhere in the face
            return new Functional(TfNetTrain.Keras.Models.LoadModel(filepath, compile, safe_mode), null);
        }
    }

    public sealed partial class KerasInterface
    {
        /// <summary>Whole-model files: <c>keras.models.load_model(path)</c>.</summary>
        public ModelsApi models { get; } = new ModelsApi();
    }
}
