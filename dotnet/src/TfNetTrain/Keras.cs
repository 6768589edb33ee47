using System;
using System.Collections.Generic;
using System.Linq;
using Python.Runtime;

namespace TfNetTrain
{
    /// <summary>Model constructors, in the running <see cref="PythonRuntime"/> (see <see cref="PythonRuntime.Start"/>).</summary>
    public static partial class Keras
    {
        /// <summary>
        /// Seeds Python, NumPy and Keras (weight initialisers, dropout, shuffling), as Python's
        /// <c>keras.utils.set_random_seed</c>: models built after the same seed start from the same weights.
        /// </summary>
        /// <exception cref="TfNetTrainArgumentException"><paramref name="seed"/> is negative.</exception>
        public static void SetRandomSeed(int seed)
        {
            if (seed < 0) throw new TfNetTrainArgumentException(nameof(seed), $"must be >= 0; got {seed}");
            PythonRuntime runtime = TfNetTrain.Model.RequireRuntime();
            runtime.Run(() =>
            {
                using (var pySeed = seed.ToPython()) runtime.Facade["set_random_seed"].Invoke(pySeed).Dispose();
            });
        }

        /// <summary>
        /// A Sequential model of <paramref name="layers"/>; start with <see cref="Layers.Input(int[])"/> so the model is
        /// built (and its weights exist) right away.
        /// </summary>
        public static Model Sequential(params LayerSpec[] layers)
        {
            return Sequential((IEnumerable<LayerSpec>)layers);
        }

        /// <summary>A Sequential model of <paramref name="layers"/> with an optional model name.</summary>
        public static Model Sequential(IEnumerable<LayerSpec> layers, string name = null)
        {
            if (layers == null) throw new ArgumentNullException(nameof(layers));
            return Sequential(layers.Cast<object>(), name);
        }

        /// <summary>A symbolic model input (per-sample shape) for functional models; see <see cref="LayerSpec.Apply"/>.</summary>
        public static SymbolicTensor Input(params int[] shape)
        {
            return Input(shape, null);
        }

        /// <summary>A symbolic model input with a dtype ("float32", "int32", ...) and/or a name.</summary>
        public static SymbolicTensor Input(int[] shape, string dtype, string name = null)
        {
            if (shape == null) throw new ArgumentNullException(nameof(shape));
            PythonRuntime runtime = TfNetTrain.Model.RequireRuntime();
            LayerSpec spec = Layers.Input(shape, dtype, name);
            return runtime.Run(() =>
            {
                using (var className = new PyString(spec.ClassName))
                using (var kwargs = PyConvert.Kwargs(spec.Arguments))
                {
                    PyObject tensor = runtime.Facade["build_layer"].Invoke(className, kwargs);
                    return SymbolicTensor.Wrap(runtime, runtime.Facade, tensor);
                }
            });
        }

        /// <summary>A functional model from one input to one output.</summary>
        public static Model Model(SymbolicTensor input, SymbolicTensor output, string name = null)
        {
            return Model(new[] { input }, new[] { output }, name);
        }

        /// <summary>A functional model from inputs to outputs (tfnet_train.Model(inputs=..., outputs=...)).</summary>
        public static Model Model(SymbolicTensor[] inputs, SymbolicTensor[] outputs, string name = null)
        {
            SymbolicTensor.CheckSameRuntime(inputs, nameof(inputs));
            SymbolicTensor.CheckSameRuntime(outputs, nameof(outputs));
            PythonRuntime runtime = inputs[0].Runtime;
            return TfNetTrain.Model.Create(runtime, f =>
            {
                using (var ins = new PyList())
                using (var outs = new PyList())
                using (var pyName = name == null ? PyObject.None : new PyString(name))
                {
                    foreach (var t in inputs) ins.Append(t.PythonObject);
                    foreach (var t in outputs) outs.Append(t.PythonObject);
                    return f["functional"].Invoke(ins, outs, pyName);
                }
            });
        }
    

        /// <summary>Whole-model files (Python's <c>keras.models</c> / <c>tfnet_train.load_model</c>).</summary>
        public static class Models
        {
            /// <summary>
            /// Opens a ".keras" file saved by <see cref="TfNetTrain.Model.Save"/>, by Python's engine or by Keras 3 as
            /// a tfnet_train model, compiled (optimizer state and train counter included) when the file was and
            /// <paramref name="compile"/> is true; also a whole-model ".h5" of Keras 3 or tf.keras 2 (its training
            /// configuration translated) and a tf.keras SavedModel directory (needs the tf-keras package). <paramref name="safeMode"/> (Keras's default) refuses files that
            /// carry Python code, such as a Lambda layer's, and SavedModel folders whose layers only their TensorFlow graph can run; turn it off only for files you trust.
            /// </summary>
            public static Model LoadModel(string path, bool compile = true, bool safeMode = true)
            {
                if (path == null) throw new ArgumentNullException(nameof(path));
                PythonRuntime runtime = TfNetTrain.Model.RequireRuntime();
                return TfNetTrain.Model.Create(runtime, f =>
                {
                    using (var p = new PyString(path))
                    using (var c = compile.ToPython())
                    using (var safe = safeMode.ToPython())
                    {
                        return f["load_model"].Invoke(p, c, safe);
                    }
                });
            }
        }
    }
}
