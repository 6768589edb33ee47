using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using NUnit.Framework;
using TfNetTrain.TensorFlowNet;
using static TfNetTrain.TensorFlowNet.Binding;
using static TfNetTrain.TensorFlowNet.KerasApi;
using FaceModel = Tensorflow.Keras.Engine.Model;  // TF.NET's full name: the face's Model under it

namespace TfNetTrain.Tests
{
    /// <summary>A dense layer written in C#: its weights come from add_weight in build, its computation from tf ops.</summary>
    public class CsDense : Layer
    {
        private readonly int _units;
        private IVariableV1 _kernel;
        private IVariableV1 _bias;

        public CsDense(int units, string name = null) : base(new LayerArgs { Name = name })
        {
            _units = units;
        }

        public override void build(KerasShapesWrapper input_shape)
        {
            long features = input_shape.ToSingleShape()[-1 + input_shape.ToSingleShape().ndim];
            _kernel = add_weight("kernel", new Shape(features, _units), initializer: "glorot_uniform");
            _bias = add_weight("bias", new Shape(_units), initializer: "zeros");
        }

        protected override Tensors Call(Tensors inputs, Tensors state = null, bool? training = null, IOptionalArgs optional_args = null)
        {
            return tf.nn.relu(tf.matmul(inputs, (Tensor)_kernel) + (Tensor)_bias);
        }
    }

    /// <summary>An MLP as a TF.NET program writes it: a Model subclass whose Call applies its layers.</summary>
    public class CsMlp : FaceModel
    {
        private readonly ILayer _hidden;
        private readonly ILayer _output;

        public CsMlp() : base(new ModelArgs { Name = "cs_mlp" })
        {
            _hidden = new CsDense(8, name: "hidden");
            _output = keras.layers.Dense(3, name: "logits");
            StackLayers(_hidden, _output);
        }

        protected override Tensors Call(Tensors inputs, Tensors state = null, bool? training = null, IOptionalArgs optional_args = null)
        {
            return _output.Apply(_hidden.Apply(inputs));
        }
    }

    /// <summary>The same MLP with a train_step of its own (the Keras contract, written in C#).</summary>
    public class CsMlpOwnStep : CsMlp
    {
        public override Dictionary<string, Tensor> train_step(Tensors x, Tensors y, Tensors sample_weight)
        {
            Tensor loss;
            Tensors y_pred;
            using (var tape = tf.GradientTape())
            {
                y_pred = Apply(x, training: true);
                loss = compute_loss(x, y, y_pred, sample_weight);
                var grads = tape.gradient(loss, TrainableVariables);
                optimizer.apply_gradients(zip(grads, TrainableVariables));
            }
            foreach (var metric in metrics)
            {
                if (metric.Name == "loss") metric.update_state(loss);
            }
            return compute_metrics(x, y, y_pred, sample_weight);
        }
    }

    /// <summary>The MLP with a weight of the model's own: build adds a scale per output with add_weight.</summary>
    public class CsScaledMlp : CsMlp
    {
        private IVariableV1 _scale;

        public override void build(KerasShapesWrapper input_shape)
        {
            _scale = add_weight("scale", new Shape(3), initializer: "ones");
        }

        protected override Tensors Call(Tensors inputs, Tensors state = null, bool? training = null, IOptionalArgs optional_args = null)
        {
            return base.Call(inputs, state, training, optional_args) * (Tensor)_scale;
        }
    }

    /// <summary>The MLP with a weight its Call never reads: the weight gets no gradient.</summary>
    public class CsMlpWithUnusedWeight : CsMlp
    {
        public override void build(KerasShapesWrapper input_shape)
        {
            add_weight("unused", new Shape(2), initializer: "zeros");
        }
    }

    /// <summary>CsDense noting the name of each thread its Call runs on.</summary>
    public class CsDenseOnThreads : CsDense
    {
        public readonly List<string> Threads = new List<string>();

        public CsDenseOnThreads(int units) : base(units)
        {
        }

        protected override Tensors Call(Tensors inputs, Tensors state = null, bool? training = null, IOptionalArgs optional_args = null)
        {
            lock (Threads) Threads.Add(System.Threading.Thread.CurrentThread.Name ?? "(unnamed)");
            return base.Call(inputs, state, training, optional_args);
        }
    }

    /// <summary>CsMlp's shape with a hidden layer that notes its threads.</summary>
    public class CsReplicaMlp : FaceModel
    {
        public readonly CsDenseOnThreads Hidden = new CsDenseOnThreads(8);
        private readonly ILayer _output = keras.layers.Dense(3, name: "logits");

        public CsReplicaMlp() : base(new ModelArgs { Name = "cs_replica_mlp" })
        {
            StackLayers(Hidden, _output);
        }

        protected override Tensors Call(Tensors inputs, Tensors state = null, bool? training = null, IOptionalArgs optional_args = null)
        {
            return _output.Apply(Hidden.Apply(inputs));
        }
    }

    /// <summary>Squared error per sample, written in C#.</summary>
    public class CsSquaredError : Loss
    {
        public CsSquaredError() : base(name: "cs_squared_error")
        {
        }

        public override Tensor Apply(Tensor y_true, Tensor y_pred, bool from_logits = false, int axis = -1)
        {
            return tf.reduce_mean(tf.square(y_pred - y_true), axis: -1);
        }
    }

    /// <summary>Mean absolute error over every batch since the last reset, with its own state variables.</summary>
    public class CsMeanAbsoluteError : Metric
    {
        private readonly IVariableV1 _total;
        private readonly IVariableV1 _count;

        public CsMeanAbsoluteError() : base("cs_mae")
        {
            _total = add_weight("total");
            _count = add_weight("count");
        }

        public override Tensor update_state(Tensor y_true, Tensor y_pred, Tensor sample_weight = null)
        {
            var error = tf.abs(y_pred - y_true);
            _total.assign_add(tf.reduce_sum(error));
            _count.assign_add(tf.reduce_sum(error * 0f + 1f));
            return null;
        }

        public override Tensor result() => tf.divide((Tensor)_total, tf.maximum((Tensor)_count, tf.constant(1f)));
    }

    /// <summary>A conv net as TF.NET's MnistCnnKerasSubclass writes it (StackLayers, reshape, softmax when not training).</summary>
    public class CsConvNet : FaceModel
    {
        private readonly ILayer _conv, _pool, _flatten, _dropout, _output;

        public CsConvNet() : base(new ModelArgs { Name = "cs_conv" })
        {
            _conv = keras.layers.Conv2D(4, kernel_size: 3, activation: "relu");
            _pool = keras.layers.MaxPooling2D(2, strides: 2);
            _flatten = keras.layers.Flatten();
            _dropout = keras.layers.Dropout(0.25f, seed: 3);
            _output = keras.layers.Dense(3);
            StackLayers(_conv, _pool, _flatten, _dropout, _output);
        }

        protected override Tensors Call(Tensors inputs, Tensors state = null, bool? training = null, IOptionalArgs optional_args = null)
        {
            inputs = tf.reshape(inputs, new Shape(-1, 8, 8, 1));
            inputs = _conv.Apply(inputs);
            inputs = _pool.Apply(inputs);
            inputs = _flatten.Apply(inputs);
            inputs = _dropout.Apply(inputs, training: training);
            inputs = _output.Apply(inputs);
            if (!training.Value) inputs = tf.nn.softmax(inputs);
            return inputs;
        }
    }

    /// <summary>A model whose Call applies a layer it does not own (an error: Keras would not train that layer).</summary>
    public class CsUnowned : FaceModel
    {
        public static ILayer Stray;

        public CsUnowned() : base(new ModelArgs())
        {
        }

        protected override Tensors Call(Tensors inputs, Tensors state = null, bool? training = null, IOptionalArgs optional_args = null)
            => Stray.Apply(inputs);
    }

    /// <summary>
    /// C# code inside compiled TensorFlow: delegates traced by tf.function, Layer/Model/Loss/Metric subclasses and a
    /// train_step override run by the engine's compiled step, each against the same code written in Python.
    /// </summary>
    [TestFixture]
    public class HostCodeTests
    {
        private const string PyTwins =
            "from tfnet_train.tolerances import allclose\n" +
            "class PyDense(keras.layers.Layer):\n" +
            "    def __init__(self, units, name=None):\n" +
            "        super().__init__(name=name)\n" +
            "        self.units = units\n" +
            "    def build(self, input_shape):\n" +
            "        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), initializer='glorot_uniform', name='kernel')\n" +
            "        self.bias = self.add_weight(shape=(self.units,), initializer='zeros', name='bias')\n" +
            "    def call(self, x):\n" +
            "        return tf.nn.relu(tf.matmul(x, self.kernel) + self.bias)\n" +
            "class PyMlp(tfnet_train.Model):\n" +
            "    def __init__(self):\n" +
            "        super().__init__(name='py_mlp')\n" +
            "        self.hidden = PyDense(8, name='hidden')\n" +
            "        self.out = keras.layers.Dense(3, name='logits')\n" +
            "    def call(self, x, training=None):\n" +
            "        return self.out(self.hidden(x))\n" +
            "def same(a, b):\n" +
            "    return np.asarray([np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(a, b)], dtype=np.int32)\n";

        private static void AssertAllOnes(Dictionary<string, NDArray> result, string key, string what)
        {
            int[] flags = result[key].ToArray<int>();
            Assert.IsTrue(flags.Length > 0 && flags.All(v => v == 1), $"{what}: {string.Join(",", flags)}");
        }

        [Test]
        public void TracedDelegateRunsOncePerInputSignature()
        {
            int entered = 0;
            var twice = tf.function((Tensor x) => { entered++; return x * 2f + 1f; }, name: "twice");
            var a = new NDArray(new float[] { 1, 2, 3 });
            var b = new NDArray(new float[] { -1, 0.5f, 7 });
            CollectionAssert.AreEqual(new float[] { 3, 5, 7 }, twice(a).ToArray<float>());
            CollectionAssert.AreEqual(new float[] { -1, 2, 15 }, twice(b).ToArray<float>());
            Assert.AreEqual(1, entered, "the C# body ran once: the second call ran the graph");
            Assert.AreEqual(1, TracedFunction.Of(twice).HostCalls);
            twice(new NDArray(new float[] { 1, 2, 3, 4 }, 2, 2));
            Assert.AreEqual(2, entered, "a new input shape is a new signature: traced again");
            Assert.AreEqual(2, TracedFunction.Of(twice).Traces);
        }

        [Test]
        public void ToGraphTracesOnceForAnyShape()
        {
            int entered = 0;
            Func<Tensor, Tensor> square = tf.autograph.to_graph(x => { entered++; return x * x; }, tf.float32);
            Assert.AreEqual(16f, square(tf.constant(4f)).ToArray<float>()[0]);
            CollectionAssert.AreEqual(new float[] { 1, 4, 9 }, square(new NDArray(new float[] { 1, 2, 3 })).ToArray<float>());
            Assert.AreEqual(1, entered, "an unknown-shape float32 signature is traced once");
        }

        [Test]
        public void DelegateExceptionReachesTheCallerAsItself()
        {
            int entered = 0;
            var failing = tf.function((Tensor x) => { entered++; throw new InvalidOperationException("no graph for you"); });
            var error = Assert.Throws<InvalidOperationException>(() => failing(tf.constant(1f)));
            Assert.AreEqual("no graph for you", error.Message);
            StringAssert.Contains(nameof(DelegateExceptionReachesTheCallerAsItself), error.StackTrace, "the delegate's own stack");
            Assert.Throws<InvalidOperationException>(() => failing(tf.constant(1f)));
            Assert.AreEqual(2, entered, "a failed trace keeps no graph: the next call traces again");
        }

        [Test]
        public void ErrorsOfATraceNameTheFunction()
        {
            var reads = tf.function((Tensor x) => { x.numpy(); return x; }, name: "reads_numpy");
            var e1 = Assert.Throws<TfNetTrainArgumentException>(() => reads(tf.constant(1f)));
            StringAssert.Contains("numpy()", e1.Message);
            StringAssert.Contains("reads_numpy", e1.Message);

            var wrong = tf.function((Tensors xs) => (Tensors)null, name: "returns_null");
            var e2 = Assert.Throws<TfNetTrainArgumentException>(() => wrong(new Tensors(tf.constant(1f))));
            StringAssert.Contains("returns_null", e2.Message);
            StringAssert.Contains("returned null", e2.Message);

            var fixedShape = tf.function((Tensor x) => x + 1f, name: "rows_of_three", input_signature: new[] { tf.TensorSpec(new Shape(-1, 3)) });
            Assert.AreEqual(2, fixedShape(new NDArray(new float[6], 2, 3)).shape[0]);
            var e3 = Assert.Throws<TfNetTrainArgumentException>(() => fixedShape(new NDArray(new float[8], 2, 4)));
            StringAssert.Contains("rows_of_three", e3.Message);
            StringAssert.Contains("(None, 3)", e3.Message);
            Assert.AreEqual(1, TracedFunction.Of(fixedShape).HostCalls);
        }

        [Test]
        public void TracedFunctionFromEightThreads()
        {
            var scale = tf.function((Tensor x, Tensor y) => x * y, name: "scale");
            var results = new float[8][];
            Parallel.For(0, 8, new ParallelOptions { MaxDegreeOfParallelism = 8 }, i =>
            {
                for (int k = 0; k < 20; k++)
                    results[i] = scale(new NDArray(new float[] { i, 1 }), new NDArray(new float[] { 2, 3 })).ToArray<float>();
            });
            for (int i = 0; i < 8; i++) CollectionAssert.AreEqual(new float[] { 2 * i, 3 }, results[i]);
            Assert.AreEqual(1, TracedFunction.Of(scale).HostCalls);
        }

        [Test]
        public void DelegateMayCallTheLibraryWhileTraced()
        {
            using (var model = keras.Sequential())
            {
                model.add(keras.layers.Dense(2, input_shape: 3));
                model.compile(keras.optimizers.SGD(0.1f), keras.losses.MeanSquaredError());
                var apply = tf.function((Tensor x) =>
                {
                    int names = model.Model.WeightNames.Count;            // model calls from inside the trace
                    Assert.AreEqual(2, names);
                    Assert.AreEqual(2, model.TrainableVariables.Count);
                    return model.Apply(x);
                }, name: "apply_model");
                var x3 = new NDArray(new float[] { 1, 2, 3 }, 1, 3);
                var expected = model.predict(x3).numpy().ToArray<float>();
                CollectionAssert.AreEqual(expected, apply(x3).ToArray<float>());
            }
        }

        [Test]
        public void CustomLoopInTfFunctionEqualsPythonTfFunctionLoop([Values("adam", "sgd")] string opt)
        {
            using (var model = keras.Sequential())
            {
                model.add(keras.layers.Dense(8, activation: "relu", input_shape: 4));
                model.add(keras.layers.Dense(3));
                List<NDArray> w0 = model.get_weights();
                var xs = Enumerable.Range(0, 5).Select(i => Data.Uniform(40 + i, 16, 4)).ToList();
                var ys = Enumerable.Range(0, 5).Select(i => Data.Labels(50 + i, 16, 3)).ToList();
                var optimizer = opt == "adam" ? keras.optimizers.Adam(0.01f) : keras.optimizers.SGD(0.1f);
                var lossFn = keras.losses.SparseCategoricalCrossentropy(from_logits: true);
                int entered = 0;
                var step = tf.function((Tensor x, Tensor y) =>
                {
                    entered++;
                    using (var tape = tf.GradientTape())
                    {
                        var logits = model.Apply(x, training: true);
                        var loss = lossFn.Call(y, logits);
                        var grads = tape.gradient(loss, model.TrainableVariables);
                        optimizer.apply_gradients(zip(grads, model.TrainableVariables));
                        return loss;
                    }
                }, name: "train_step");
                var losses = new List<float>();
                for (int i = 0; i < xs.Count; i++) losses.Add(step(xs[i], ys[i]).ToArray<float>()[0]);
                var result = PyScript.Run(
                    PyTwins +
                    "m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation='relu'), keras.layers.Dense(3)])\n" +
                    "m.set_weights(w0)\n" +
                    "o = optimizers.Adam(0.01) if opt == 'adam' else optimizers.SGD(0.1)\n" +
                    "lf = keras.losses.SparseCategoricalCrossentropy(from_logits=True)\n" +
                    "traced = []\n" +
                    "@tf.function\n" +
                    "def step(x, y):\n" +
                    "    traced.append(1)\n" +
                    "    with tf.GradientTape() as tape:\n" +
                    "        loss = lf(y, m(x, training=True))\n" +
                    "    o.apply_gradients(zip(tape.gradient(loss, m.trainable_variables), m.trainable_variables))\n" +
                    "    return loss\n" +
                    "put('losses', np.asarray([float(step(x, y)) for x, y in zip(xs, ys)], np.float32))\n" +
                    "put('same', same(m.get_weights(), w))\n" +
                    "put('traced', np.asarray(len(traced)))\n",
                    "w0", w0, "xs", xs, "ys", ys, "w", model.get_weights(), "opt", opt);
                CollectionAssert.AreEqual(result["losses"].ToArray<float>(), losses.ToArray(), "losses bit for bit");
                // TensorFlow traces a function twice when its first call creates variables (the optimizer's): C# runs
                // exactly as often as the Python body, and not at all in the later steps.
                Assert.AreEqual(result["traced"].ToArray<long>()[0], entered, "C# entered as often as Python traced");
                Assert.LessOrEqual(entered, 2);
                AssertAllOnes(result, "same", "weights bit for bit");
            }
        }

        [Test]
        public void SubclassedModelWithCustomLayerFitsLikeItsPythonTwin([Values("keras", "tfnet")] string semantics)
        {
            var x = Data.Uniform(60, 48, 4);
            var y = Data.Labels(61, 48, 3);
            using (var model = new CsMlp())
            {
                model.compile(keras.optimizers.SGD(0.05f, momentum: 0.9f), keras.losses.SparseCategoricalCrossentropy(from_logits: true),
                              new[] { "accuracy" }, semantics: semantics);
                model.Apply(tf.constant(x), training: false);            // builds the weights
                List<NDArray> w0 = model.get_weights();
                Assert.AreEqual(4, w0.Count, "kernel and bias of the C# layer, then the Dense's");
                History history = model.fit(x, y, batch_size: 16, epochs: 3, verbose: 0, shuffle: false);
                long counter = model.EngineModel.TrainCounter;
                var result = PyScript.Run(
                    PyTwins +
                    "m = PyMlp()\n" +
                    "m.compile(optimizers.SGD(0.05, momentum=0.9), keras.losses.SparseCategoricalCrossentropy(from_logits=True), " +
                    "metrics=['accuracy'], semantics=semantics)\n" +
                    "m(x[:1])\n" +
                    "m.set_weights(w0)\n" +
                    "h = m.fit(x, y, batch_size=16, epochs=3, verbose=0, shuffle=False)\n" +
                    "put('loss', np.asarray(h.history['loss'], np.float32))\n" +
                    "put('same', same(m.get_weights(), w))\n" +
                    "put('counter', np.asarray(int(m._train_counter.numpy())))\n" +
                    "put('host_calls', np.asarray(cs.host_calls))\n" +
                    "cs.fit(x, y, batch_size=16, epochs=2, verbose=0, shuffle=False)\n" +
                    "put('host_calls_after', np.asarray(cs.host_calls))\n",
                    "x", x, "y", y, "w0", w0, "w", model.get_weights(), "semantics", semantics, "cs", model.EngineModel);
                CollectionAssert.AreEqual(result["loss"].ToArray<float>(), history.Values["loss"].Select(v => (float)v).ToArray(), "losses bit for bit");
                AssertAllOnes(result, "same", "weights bit for bit");
                Assert.AreEqual(result["counter"].ToArray<long>()[0], counter, "_train_counter");
                long calls = result["host_calls"].ToArray<long>()[0];
                Assert.Less(calls, 9, "C# Call entered only while tracing, not per step (9 steps)");
                Assert.AreEqual(calls, result["host_calls_after"].ToArray<long>()[0], "a further fit runs the graph only");
            }
        }

        /// <summary>
        /// Under MirroredStrategy, TensorFlow traces the step on a replica thread of its own while the Python thread
        /// waits in fit for it: the C# Layer.Call, Loss and Metric it runs call the library inline on that thread
        /// (a call queued for the Python thread would wait for good), and train as the same model does without the
        /// strategy.
        /// </summary>
        [Test, Timeout(120000)]
        public void CSharpCodeTracedOnAReplicaThreadCallsTheLibraryInline()
        {
            var x = Data.Uniform(72, 32, 4);
            var y = Data.Uniform(73, 32, 3);
            Func<CsReplicaMlp, History> fit = model =>
            {
                model.compile(keras.optimizers.SGD(0.1f), new CsSquaredError(), new Metric[] { new CsMeanAbsoluteError() });
                return model.fit(tf.data.Dataset.from_tensor_slices(x, y).batch(8), epochs: 2, verbose: 0); // strategy.run per step
            };
            List<NDArray> w0;
            History expected;
            using (var reference = new CsReplicaMlp())
            {
                reference.Apply(tf.constant(x), training: false);
                w0 = reference.get_weights();
                expected = fit(reference);
            }
            PyScript.Run("tf.distribute.experimental_set_strategy(tf.distribute.MirroredStrategy(['/cpu:0']))");
            try
            {
                using (var model = new CsReplicaMlp())
                {
                    model.Apply(tf.constant(x), training: false);
                    model.set_weights(w0);
                    History got = fit(model);
                    var threads = model.Hidden.Threads;
                    CollectionAssert.IsNotEmpty(threads.Where(t => t != "TfNetTrain Python worker").ToList(),
                        "the step was traced on a replica thread: " + string.Join(", ", threads));
                    for (int i = 0; i < 2; i++)
                        Assert.AreEqual((float)expected["loss"][i], (float)got["loss"][i], 1e-6f, $"epoch {i} loss as without the strategy");
                }
            }
            finally
            {
                PyScript.Run("tf.distribute.experimental_set_strategy(None)");
            }
        }

        [Test]
        public void CustomLossAndMetricGiveThePythonTwinsNumbers()
        {
            var x = Data.Uniform(70, 32, 4);
            var y = Data.Uniform(71, 32, 3);
            using (var model = keras.Sequential())
            {
                model.add(keras.layers.Dense(3, input_shape: 4));
                List<NDArray> w0 = model.get_weights();
                model.compile(keras.optimizers.SGD(0.1f), new CsSquaredError(), new Metric[] { new CsMeanAbsoluteError() });
                History history = model.fit(x, y, batch_size: 8, epochs: 2, verbose: 0, shuffle: false);
                var eval = model.evaluate(x, y, verbose: 0);
                var result = PyScript.Run(
                    "class Sq(keras.losses.Loss):\n" +
                    "    def call(self, y_true, y_pred):\n" +
                    "        return tf.reduce_mean(tf.square(y_pred - y_true), axis=-1)\n" +
                    "class Mae(keras.metrics.Metric):\n" +
                    "    def __init__(self):\n" +
                    "        super().__init__(name='cs_mae')\n" +
                    "        self.total = self.add_variable(shape=(), initializer='zeros', name='total')\n" +
                    "        self.count = self.add_variable(shape=(), initializer='zeros', name='count')\n" +
                    "    def update_state(self, y_true, y_pred, sample_weight=None):\n" +
                    "        e = tf.abs(y_pred - y_true)\n" +
                    "        self.total.assign_add(tf.reduce_sum(e))\n" +
                    "        self.count.assign_add(tf.reduce_sum(e * 0.0 + 1.0))\n" +
                    "    def result(self):\n" +
                    "        return self.total / tf.maximum(self.count, 1.0)\n" +
                    "m = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(3)])\n" +
                    "m.set_weights(w0)\n" +
                    "m.compile(optimizers.SGD(0.1), Sq(), metrics=[Mae()])\n" +
                    "h = m.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)\n" +
                    "put('loss', np.asarray(h.history['loss'], np.float32))\n" +
                    "put('mae', np.asarray(h.history['cs_mae'], np.float32))\n" +
                    "put('eval', np.asarray(m.evaluate(x, y, verbose=0), np.float32))\n",
                    "x", x, "y", y, "w0", w0);
                CollectionAssert.AreEqual(result["loss"].ToArray<float>(), history.Values["loss"].Select(v => (float)v).ToArray(), "loss");
                CollectionAssert.AreEqual(result["mae"].ToArray<float>(), history.Values["cs_mae"].Select(v => (float)v).ToArray(), "metric");
                CollectionAssert.AreEqual(result["eval"].ToArray<float>(), new[] { eval["loss"], eval["cs_mae"] }, "evaluate");
            }
        }

        [Test]
        public void TrainStepOverrideTrainsLikeThePythonOverride()
        {
            var x = Data.Uniform(80, 32, 4);
            var y = Data.Labels(81, 32, 3);
            using (var model = new CsMlpOwnStep())
            {
                model.compile(keras.optimizers.SGD(0.1f), keras.losses.SparseCategoricalCrossentropy(from_logits: true), new[] { "accuracy" });
                model.Apply(tf.constant(x));
                List<NDArray> w0 = model.get_weights();
                History history = model.fit(x, y, batch_size: 8, epochs: 2, verbose: 0, shuffle: false);
                var result = PyScript.Run(
                    PyTwins +
                    "class Own(PyMlp):\n" +
                    "    def train_step(self, data):\n" +
                    "        x, y = data\n" +
                    "        with tf.GradientTape() as tape:\n" +
                    "            y_pred = self(x, training=True)\n" +
                    "            loss = self.compute_loss(x=x, y=y, y_pred=y_pred)\n" +
                    "        grads = tape.gradient(loss, self.trainable_variables)\n" +
                    "        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))\n" +
                    "        for m in self.metrics:\n" +
                    "            if m.name == 'loss':\n" +
                    "                m.update_state(loss)\n" +
                    "        return self.compute_metrics(x, y, y_pred, None)\n" +
                    "m = Own()\n" +
                    "m.compile(optimizers.SGD(0.1), keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=['accuracy'])\n" +
                    "m(x[:1])\n" +
                    "m.set_weights(w0)\n" +
                    "h = m.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)\n" +
                    "put('loss', np.asarray(h.history['loss'], np.float32))\n" +
                    "put('acc', np.asarray(h.history['accuracy'], np.float32))\n" +
                    "put('same', same(m.get_weights(), w))\n",
                    "x", x, "y", y, "w0", w0, "w", model.get_weights());
                CollectionAssert.AreEqual(result["loss"].ToArray<float>(), history.Values["loss"].Select(v => (float)v).ToArray(), "loss");
                CollectionAssert.AreEqual(result["acc"].ToArray<float>(), history.Values["accuracy"].Select(v => (float)v).ToArray(), "accuracy");
                AssertAllOnes(result, "same", "weights bit for bit");
            }
        }

        [Test]
        public void SubclassedModelWithBuildOwnsItsWeightsAndFitsLikeItsPythonTwin()
        {
            var x = Data.Uniform(95, 32, 4);
            var y = Data.Labels(96, 32, 3);
            using (var model = new CsScaledMlp())
            {
                model.compile(keras.optimizers.Adam(0.01f), keras.losses.SparseCategoricalCrossentropy(from_logits: true));
                model.Apply(tf.constant(x), training: false);            // build, then the layers' first call
                List<NDArray> w0 = model.get_weights();
                CollectionAssert.AreEqual(new[] { 3, 4 * 8, 8, 8 * 3, 3 }, w0.Select(w => (int)w.size).ToArray(), "the model's own scale first, then its layers'");
                CollectionAssert.AreEqual(new float[] { 1, 1, 1 }, w0[0].ToArray<float>());
                History history = model.fit(x, y, batch_size: 8, epochs: 2, verbose: 0, shuffle: false);
                var result = PyScript.Run(
                    PyTwins +
                    "class Scaled(PyMlp):\n" +
                    "    def build(self, input_shape):\n" +
                    "        self.scale = self.add_weight(shape=(3,), initializer='ones', name='scale')\n" +
                    "    def call(self, x, training=None):\n" +
                    "        return self.out(self.hidden(x)) * self.scale\n" +
                    "m = Scaled()\n" +
                    "m.compile(optimizers.Adam(0.01), keras.losses.SparseCategoricalCrossentropy(from_logits=True))\n" +
                    "m(x[:1])\n" +
                    "m.set_weights(w0)\n" +
                    "h = m.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)\n" +
                    "put('loss', np.asarray(h.history['loss'], np.float32))\n" +
                    "put('same', same(m.get_weights(), w))\n",
                    "x", x, "y", y, "w0", w0, "w", model.get_weights());
                CollectionAssert.AreEqual(result["loss"].ToArray<float>(), history.Values["loss"].Select(v => (float)v).ToArray(), "losses bit for bit");
                AssertAllOnes(result, "same", "weights bit for bit");
                Assert.IsFalse(model.get_weights()[0].ToArray<float>().All(v => v == 1f), "the scale trains");
            }
        }

        [Test]
        public void TrainStepTracedGivesNullForAVariableWithoutAGradient()
        {
            var x = Data.Uniform(97, 8, 4);
            var y = Data.Labels(98, 8, 3);
            using (var model = new CsMlpWithUnusedWeight())
            {
                model.compile(keras.optimizers.SGD(0.1f), keras.losses.SparseCategoricalCrossentropy(from_logits: true), semantics: "keras");
                model.Apply(tf.constant(x));
                StepTrace trace = model.EngineModel.TrainStepTraced(x, y);
                Assert.AreEqual(5, trace.VariableNames.Count);
                StringAssert.Contains("unused", trace.VariableNames[0]);
                foreach (var stage in new[] { trace.Gradients, trace.AggregatedGradients, trace.ClippedGradients })
                {
                    Assert.AreEqual(5, stage.Count, "one entry per trainable variable");
                    Assert.IsNull(stage[0], "the unused weight has no gradient");
                    Assert.IsTrue(stage.Skip(1).All(g => g != null && g.size > 0), "the others have theirs");
                }
                CollectionAssert.AreEqual(new[] { 4, 8 }, trace.Gradients[1].Shape);
            }
        }

        [Test]
        public void SubclassedModelSavesLoadsAndSummarises()
        {
            var x = Data.Uniform(90, 8, 4);
            string path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), $"cs_mlp_{Guid.NewGuid():N}.weights.h5");
            try
            {
                using (var a = new CsMlp())
                using (var b = new CsMlp())
                {
                    var ya = a.Apply(tf.constant(x)).numpy();
                    a.save_weights(path);
                    b.Apply(tf.constant(x));
                    b.load_weights(path);
                    Assert.IsTrue(b.Apply(tf.constant(x)).numpy().BitwiseEquals(ya), "loaded weights predict the same");
                    StringAssert.Contains("hidden", a.summary());
                }
            }
            finally
            {
                System.IO.File.Delete(path);
            }
        }

        [Test]
        public void SubclassedConvNetFitsLikeItsPythonTwin([Values("keras", "tfnet")] string semantics)
        {
            var x = Data.Uniform(100, 24, 64);
            var y = Data.Labels(101, 24, 3);
            using (var model = new CsConvNet())
            {
                model.compile(keras.optimizers.Adam(0.01f), keras.losses.SparseCategoricalCrossentropy(from_logits: true), new[] { "accuracy" }, semantics: semantics);
                model.Apply(tf.constant(x));
                List<NDArray> w0 = model.get_weights();
                History history = model.fit(x, y, batch_size: 8, epochs: 2, verbose: 0, shuffle: false);
                var predicted = model.predict(x).numpy();
                var result = PyScript.Run(
                    PyTwins +
                    "class Conv(tfnet_train.Model):\n" +
                    "    def __init__(self):\n" +
                    "        super().__init__(name='py_conv')\n" +
                    "        self.conv = keras.layers.Conv2D(4, 3, activation='relu')\n" +
                    "        self.pool = keras.layers.MaxPooling2D(2, strides=2)\n" +
                    "        self.flatten = keras.layers.Flatten()\n" +
                    "        self.dropout = keras.layers.Dropout(0.25, seed=3)\n" +
                    "        self.out = keras.layers.Dense(3)\n" +
                    "    def call(self, x, training=None):\n" +
                    "        x = tf.reshape(x, (-1, 8, 8, 1))\n" +
                    "        x = self.out(self.dropout(self.flatten(self.pool(self.conv(x))), training=training))\n" +
                    "        return x if training else tf.nn.softmax(x)\n" +
                    "m = Conv()\n" +
                    "m.compile(optimizers.Adam(0.01), keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=['accuracy'], semantics=semantics)\n" +
                    "m(x[:1])\n" +
                    "m.set_weights(w0)\n" +
                    "h = m.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)\n" +
                    "put('loss', np.asarray(h.history['loss'], np.float32))\n" +
                    "put('same', same(m.get_weights(), w))\n" +
                    "put('predicted', m.predict(x, verbose=0))\n",
                    "x", x, "y", y, "w0", w0, "w", model.get_weights(), "semantics", semantics);
                CollectionAssert.AreEqual(result["loss"].ToArray<float>(), history.Values["loss"].Select(v => (float)v).ToArray(), "losses bit for bit");
                AssertAllOnes(result, "same", "weights bit for bit");
                Assert.IsTrue(result["predicted"].BitwiseEquals(predicted), "predict (softmax outside training) bit for bit");
            }
        }

        [Test]
        public void TrainStepTracedOfASubclassedModelMatchesItsPythonTwin()
        {
            var x = Data.Uniform(110, 8, 4);
            var y = Data.Labels(111, 8, 3);
            using (var model = new CsMlp())
            {
                model.compile(keras.optimizers.SGD(0.1f, momentum: 0.9f), keras.losses.SparseCategoricalCrossentropy(from_logits: true), new[] { "accuracy" });
                model.Apply(tf.constant(x));
                List<NDArray> w0 = model.get_weights();
                StepTrace trace = model.EngineModel.TrainStepTraced(x, y);
                var result = PyScript.Run(
                    PyTwins +
                    "m = PyMlp()\n" +
                    "m.compile(optimizers.SGD(0.1, momentum=0.9), keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=['accuracy'])\n" +
                    "m(x[:1])\n" +
                    "m.set_weights(w0)\n" +
                    "t = m.train_step_traced(x, y)\n" +
                    "put('keys', np.asarray(len(t.flat())))\n" +
                    "put('flat', [t.flat()[k] for k in sorted(t.flat())])\n",
                    "x", x, "y", y, "w0", w0);
                var keys = trace.Flat.Keys.OrderBy(k => k, StringComparer.Ordinal).ToList();
                Assert.AreEqual(result["keys"].ToArray<long>()[0], keys.Count, "the same stages and variables");
                for (int i = 0; i < keys.Count; i++)
                    Assert.IsTrue(result[$"flat/{i}"].BitwiseEquals(trace.Flat[keys[i]]), $"stage {keys[i]} bit for bit");
            }
        }

        [Test]
        public void LayerNotOwnedByTheModelIsAClearError()
        {
            CsUnowned.Stray = keras.layers.Dense(2);
            using (var model = new CsUnowned())
            {
                var error = Assert.Throws<TfNetTrainArgumentException>(() => model.Apply(tf.constant(Data.Uniform(1, 2, 3))));
                StringAssert.Contains("StackLayers", error.Message);
            }
        }
    }
}
