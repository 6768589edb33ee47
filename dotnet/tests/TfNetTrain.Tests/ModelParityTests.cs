using System.Collections.Generic;
using System.Linq;
using NUnit.Framework;

namespace TfNetTrain.Tests
{
    /// <summary>
    /// Every Model call from C# against the same engine called directly from Python on the same weights and
    /// batches: results must be equal to the last bit.
    /// </summary>
    [TestFixture]
    public class ModelParityTests
    {
        private const string PyClassifier =
            "model = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation='relu'), keras.layers.Dense(3)])\n" +
            "model.set_weights(w0)\n";

        private const string PyCompileSgd =
            "model.compile(optimizers.SGD(learning_rate=0.1, momentum=0.9, clipnorm=1.0),\n" +
            "              keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=['accuracy'])\n";

        internal static Model Classifier()
        {
            return Keras.Sequential(Layers.Input(4), Layers.Dense(8, activation: "relu"), Layers.Dense(3));
        }

        internal static void CompileSgd(Model model, string semantics = "keras")
        {
            model.Compile(Optimizers.SGD(learningRate: 0.1f, momentum: 0.9f, clipNorm: 1f),
                          Losses.SparseCategoricalCrossentropy(fromLogits: true), new[] { "accuracy" }, semantics);
        }

        [Test]
        public void TrainOnBatchMatchesPythonStepByStep()
        {
            using (var model = Classifier())
            {
                CompileSgd(model);
                IList<NDArray> w0 = model.GetWeights();
                var xs = new List<NDArray>();
                var ys = new List<NDArray>();
                var logs = new List<IDictionary<string, float>>();
                for (int step = 0; step < 3; step++)
                {
                    xs.Add(Data.Uniform(10 + step, 16, 4));
                    ys.Add(Data.Labels(20 + step, 16, 3));
                    logs.Add(model.TrainOnBatch(xs[step], ys[step]));
                }
                var expected = PyScript.Run(PyClassifier + PyCompileSgd +
                    "for i in range(3):\n" +
                    "    put(f'logs{i}', model.train_on_batch(xs[i], ys[i], return_dict=True))\n" +
                    "put('weights', model.get_weights())\n" +
                    "put('counter', model._train_counter.numpy())\n",
                    "w0", w0, "xs", xs, "ys", ys);
                for (int step = 0; step < 3; step++) Data.AssertLogs(expected, "logs" + step, logs[step]);
                Data.AssertBitwise(expected, "weights", model.GetWeights(), "weights after 3 steps");
                Assert.AreEqual(expected["counter"].GetDouble(0), model.TrainCounter);
                Assert.AreEqual(3L, model.TrainCounter);
            }
        }

        [Test]
        public void TrainOnBatchWithoutResetAccumulatesMetricsAsInPython()
        {
            using (var model = Classifier())
            {
                CompileSgd(model);
                IList<NDArray> w0 = model.GetWeights();
                var xs = new List<NDArray> { Data.Uniform(30, 16, 4), Data.Uniform(31, 8, 4) };
                var ys = new List<NDArray> { Data.Labels(40, 16, 3), Data.Labels(41, 8, 3) };
                var first = model.TrainOnBatch(xs[0], ys[0]);
                var accumulated = model.TrainOnBatch(xs[1], ys[1], resetMetrics: false);
                var expected = PyScript.Run(PyClassifier + PyCompileSgd +
                    "put('first', model.train_on_batch(xs[0], ys[0], return_dict=True))\n" +
                    "put('accumulated', model.train_on_batch(xs[1], ys[1], return_dict=True, reset_metrics=False))\n",
                    "w0", w0, "xs", xs, "ys", ys);
                Data.AssertLogs(expected, "first", first);
                Data.AssertLogs(expected, "accumulated", accumulated);
                Assert.AreNotEqual(first["loss"], accumulated["loss"]);
            }
        }

        [Test]
        public void TrainStepTracedMatchesPythonStageByStage()
        {
            using (var model = Classifier())
            {
                CompileSgd(model);
                IList<NDArray> w0 = model.GetWeights();
                NDArray x0 = Data.Uniform(1, 8, 4), y0 = Data.Labels(2, 8, 3);
                NDArray x1 = Data.Uniform(3, 8, 4), y1 = Data.Labels(4, 8, 3);
                StepTrace first = model.TrainStepTraced(x0, y0);
                StepTrace second = model.TrainStepTraced(x1, y1);
                var expected = PyScript.Run(PyClassifier + PyCompileSgd +
                    "put('t0', model.train_step_traced(x0, y0).flat())\n" +
                    "t1 = model.train_step_traced(x1, y1)\n" +
                    "put('t1', t1.flat())\n" +
                    "put('step1', np.int64(t1.step))\n" +
                    "put('vars', np.int64(len(t1.variable_names)))\n",
                    "w0", w0, "x0", x0, "y0", y0, "x1", x1, "y1", y1);
                foreach (var pair in new[] { new { Name = "t0", Trace = first }, new { Name = "t1", Trace = second } })
                {
                    int expectedKeys = expected.Keys.Count(k => k.StartsWith(pair.Name + "/"));
                    Assert.AreEqual(expectedKeys, pair.Trace.Flat.Count, pair.Name + ": number of flat entries");
                    foreach (var entry in pair.Trace.Flat)
                        Data.AssertBitwise(expected[pair.Name + "/" + entry.Key], entry.Value, pair.Name + " " + entry.Key);
                    AssertStagesMatchFlat(pair.Trace);
                }
                Assert.AreEqual((long)expected["step1"].GetDouble(0), second.Step);
                Assert.AreEqual(1L, second.Step);
                Assert.AreEqual((int)expected["vars"].GetDouble(0), second.VariableNames.Count);
                CollectionAssert.AreEqual(new[] { "momentum" }, second.OptimizerState.Slots.Keys.ToArray());
                Assert.AreEqual(2L, second.OptimizerState.Iterations);
            }
        }

        [Test]
        public void TraceKeysFollowTheEnginesSchema()
        {
            string[] stages = PythonSetup.Runtime.Run(() =>
            {
                using (var trace = Python.Runtime.Py.Import("tfnet_train.engine.trace"))
                using (var names = trace.GetAttr("STAGES"))
                using (var kinds = trace.GetAttr("INPUT_KINDS"))
                {
                    CollectionAssert.AreEqual(kinds.As<string[]>(), TraceKeys.InputKinds, "input kinds");
                    return names.As<string[]>();
                }
            });
            CollectionAssert.AreEqual(stages, TraceKeys.Stages, "stages in step order");
            Assert.AreEqual("optimizer_state/m/12", TraceKeys.Key(TraceKeys.OptimizerState, "m", 12));
            Assert.IsTrue(TraceKeys.TryParseIndexed("replicas/1/gradients/3", out string list, out int index));
            Assert.AreEqual(("replicas/1/gradients", 3), (list, index));
            Assert.IsFalse(TraceKeys.TryParseIndexed("optimizer_state/iterations", out _, out _), "a named value");
            Assert.IsFalse(TraceKeys.TryParseIndexed("loss", out _, out _), "a stage without parts");
            Assert.IsFalse(TraceKeys.TryParseIndexed("gradients/-1", out _, out _), "a signed index");
            Assert.IsTrue(TraceKeys.TryParseIn("metrics/val/loss", TraceKeys.Metrics, out string metric));
            Assert.AreEqual("val/loss", metric);
            Assert.IsFalse(TraceKeys.TryParseIn("metricsx/loss", TraceKeys.Metrics, out _), "another stage's prefix");
        }

        /// <summary>The typed stages of a trace hold the same arrays as its flat mapping.</summary>
        internal static void AssertStagesMatchFlat(StepTrace trace)
        {
            var flat = trace.Flat;
            Data.AssertBitwise(flat["inputs/x/0"], trace.Inputs["x"][0], "inputs x");
            Data.AssertBitwise(flat["inputs/y/0"], trace.Inputs["y"][0], "inputs y");
            Data.AssertBitwise(flat["y_pred/0"], trace.YPred[0], "y_pred");
            Data.AssertBitwise(flat["loss"], trace.Loss, "loss");
            var stages = new Dictionary<string, IList<NDArray>>
            {
                { "gradients", trace.Gradients }, { "aggregated_gradients", trace.AggregatedGradients },
                { "clipped_gradients", trace.ClippedGradients }, { "weights", trace.Weights },
            };
            foreach (var stage in stages)
            {
                for (int i = 0; i < stage.Value.Count; i++)
                    Data.AssertBitwise(flat[stage.Key + "/" + i], stage.Value[i], stage.Key + "/" + i);
            }
            Assert.AreEqual(trace.VariableNames.Count, trace.Gradients.Count);
            Assert.AreEqual(trace.WeightNames.Count, trace.Weights.Count);
            Assert.AreEqual((long)flat["optimizer_state/iterations"].GetDouble(0), trace.OptimizerState.Iterations);
            Data.AssertBitwise(flat["optimizer_state/learning_rate"], trace.OptimizerState.LearningRate, "learning rate");
            foreach (var slot in trace.OptimizerState.Slots)
            {
                for (int i = 0; i < slot.Value.Count; i++)
                    Data.AssertBitwise(flat["optimizer_state/" + slot.Key + "/" + i], slot.Value[i], "slot " + slot.Key);
            }
            foreach (var metric in trace.Metrics)
                Data.AssertBitwise(flat["metrics/" + metric.Key], metric.Value, "metric " + metric.Key);
        }

        [Test]
        public void FitEvaluatePredictMatchPython()
        {
            using (var model = Classifier())
            {
                CompileSgd(model);
                IList<NDArray> w0 = model.GetWeights();
                NDArray x = Data.Uniform(5, 40, 4), y = Data.Labels(6, 40, 3);
                NDArray vx = Data.Uniform(7, 10, 4), vy = Data.Labels(8, 10, 3);
                NDArray sw = Data.Uniform(9, 40);
                History history = model.Fit(x, y, batchSize: 8, epochs: 3, verbose: 0, shuffle: false, sampleWeight: sw,
                                            validationX: vx, validationY: vy);
                long counter = model.TrainCounter;
                IDictionary<string, float> evaluation = model.Evaluate(vx, vy, batchSize: 4);
                NDArray prediction = model.Predict(vx, batchSize: 3);
                var expected = PyScript.Run(PyClassifier + PyCompileSgd +
                    "h = model.fit(x, y, batch_size=8, epochs=3, verbose=0, shuffle=False, sample_weight=sw, validation_data=(vx, vy))\n" +
                    "put('history', h.history)\n" +
                    "put('epochs', np.asarray(h.epoch, dtype=np.int64))\n" +
                    "put('counter', model._train_counter.numpy())\n" +
                    "put('weights', model.get_weights())\n" +
                    "put('eval', model.evaluate(vx, vy, batch_size=4, verbose=0, return_dict=True))\n" +
                    "put('pred', model.predict(vx, batch_size=3, verbose=0))\n",
                    "w0", w0, "x", x, "y", y, "vx", vx, "vy", vy, "sw", sw);
                CollectionAssert.AreEqual(new[] { 0, 1, 2 }, history.Epochs);
                CollectionAssert.AreEqual(expected["epochs"].ToArray<long>(), history.Epochs.Select(e => (long)e).ToArray());
                var names = expected.Keys.Where(k => k.StartsWith("history/")).Select(k => k.Split('/')[1]).Distinct().ToList();
                CollectionAssert.AreEquivalent(names, history.Values.Keys);
                CollectionAssert.Contains(names, "val_loss");
                foreach (var name in names)
                {
                    for (int e = 0; e < 3; e++)
                        Data.AssertBitwise(expected[$"history/{name}/{e}"], history[name][e], $"history {name}[{e}]");
                }
                Assert.AreEqual((long)expected["counter"].GetDouble(0), counter);
                Assert.AreEqual(15L, counter, "3 epochs of 5 batches");
                Data.AssertBitwise(expected, "weights", model.GetWeights(), "weights after fit");
                Data.AssertLogs(expected, "eval", evaluation);
                Data.AssertBitwise(expected["pred"], prediction, "predict");
            }
        }

        [Test]
        public void FunctionalModelsMatchPython()
        {
            SymbolicTensor input = Keras.Input(4);
            SymbolicTensor hidden = Layers.Dense(6, activation: "tanh").Apply(input);
            SymbolicTensor residual = Layers.Add().Apply(hidden, Layers.Dense(6).Apply(hidden));
            SymbolicTensor joined = Layers.Concatenate().Apply(residual, input);
            SymbolicTensor output = Layers.Dense(3).Apply(joined);
            CollectionAssert.AreEqual(new[] { -1, 10 }, joined.Shape);
            Assert.AreEqual("SymbolicTensor (None, 3)", output.ToString());
            using (var model = Keras.Model(input, output))
            {
                CompileSgd(model);
                IList<NDArray> w0 = model.GetWeights();
                NDArray x = Data.Uniform(70, 10, 4), y = Data.Labels(71, 10, 3);
                var logs = model.TrainOnBatch(x, y);
                NDArray prediction = model.Predict(x);
                var expected = PyScript.Run(
                    "i = keras.Input((4,))\n" +
                    "h = keras.layers.Dense(6, activation='tanh')(i)\n" +
                    "r = keras.layers.Add()([h, keras.layers.Dense(6)(h)])\n" +
                    "o = keras.layers.Dense(3)(keras.layers.Concatenate()([r, i]))\n" +
                    "model = tfnet_train.Model(inputs=i, outputs=o)\n" +
                    "model.set_weights(w0)\n" + PyCompileSgd +
                    "put('logs', model.train_on_batch(x, y, return_dict=True))\n" +
                    "put('pred', model.predict(x, verbose=0))\n" +
                    "put('weights', model.get_weights())\n",
                    "w0", w0, "x", x, "y", y);
                Data.AssertLogs(expected, "logs", logs);
                Data.AssertBitwise(expected["pred"], prediction, "functional predict");
                Data.AssertBitwise(expected, "weights", model.GetWeights(), "functional weights");
            }
        }

        private const string PyTwoInputs =
            "a = keras.Input((3,))\n" +
            "b = keras.Input((2,))\n" +
            "h = keras.layers.Concatenate()([keras.layers.Dense(4, activation='tanh')(a), b])\n" +
            "model = tfnet_train.Model(inputs=[a, b], outputs=keras.layers.Dense(3)(h))\n" +
            "model.set_weights(w0)\n" + PyCompileSgd;

        private static Model TwoInputs()
        {
            SymbolicTensor a = Keras.Input(3), b = Keras.Input(2);
            SymbolicTensor h = Layers.Concatenate().Apply(Layers.Dense(4, activation: "tanh").Apply(a), b);
            return Keras.Model(new[] { a, b }, new[] { Layers.Dense(3).Apply(h) });
        }

        [Test]
        public void MultiInputModelsTrainFromCSharpAsInPython()
        {
            using (var model = TwoInputs())
            {
                CompileSgd(model);
                IList<NDArray> w0 = model.GetWeights();
                NDArray[] x = { Data.Uniform(80, 10, 3), Data.Uniform(81, 10, 2) };
                NDArray y = Data.Labels(82, 10, 3), sw = Data.Uniform(83, 10);
                NDArray[] vx = { Data.Uniform(84, 6, 3), Data.Uniform(85, 6, 2) };
                NDArray vy = Data.Labels(86, 6, 3);
                var logs = model.TrainOnBatch(x, y, sw);
                StepTrace trace = model.TrainStepTraced(x, y);
                History history = model.Fit(x, y, batchSize: 4, epochs: 2, verbose: 0, shuffle: false,
                                            validationX: vx, validationY: vy);
                var evaluation = model.Evaluate(vx, vy);
                NDArray prediction = model.Predict(vx);
                var expected = PyScript.Run(PyTwoInputs +
                    "put('logs', model.train_on_batch(x, y, sample_weight=sw, return_dict=True))\n" +
                    "put('t', model.train_step_traced(x, y).flat())\n" +
                    "h = model.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False, validation_data=(vx, vy))\n" +
                    "put('history', {k: np.float32(v) for k, v in h.history.items()})\n" +
                    "put('eval', model.evaluate(vx, vy, verbose=0, return_dict=True))\n" +
                    "put('pred', model.predict(vx, verbose=0))\n" +
                    "put('weights', model.get_weights())\n",
                    "w0", w0, "x", x, "y", y, "sw", sw, "vx", vx, "vy", vy);
                Data.AssertLogs(expected, "logs", logs);
                Assert.AreEqual(2, trace.Inputs["x"].Count, "both inputs are traced");
                foreach (var entry in trace.Flat) Data.AssertBitwise(expected["t/" + entry.Key], entry.Value, entry.Key);
                CollectionAssert.AreEquivalent(new[] { "loss", "accuracy", "val_loss", "val_accuracy" }, history.Values.Keys);
                foreach (var series in history.Values)
                    Data.AssertBitwise(expected["history/" + series.Key], new NDArray(series.Value.ToArray(), 2), "history " + series.Key);
                Data.AssertLogs(expected, "eval", evaluation);
                Data.AssertBitwise(expected["pred"], prediction, "predict");
                Data.AssertBitwise(expected, "weights", model.GetWeights(), "weights");
            }
        }

        [Test]
        public void MultiInputMistakesNameTheArray()
        {
            using (var model = TwoInputs())
            {
                CompileSgd(model);
                NDArray y = Data.Labels(1, 10, 3);
                var count = Assert.Throws<TfNetTrainArgumentException>(() => model.TrainOnBatch(new[] { Data.Uniform(2, 10, 3) }, y));
                Assert.AreEqual("x must hold 2 input arrays for this model, got 1", count.PythonMessage);
                var rows = Assert.Throws<TfNetTrainArgumentException>(
                    () => model.TrainOnBatch(new[] { Data.Uniform(2, 10, 3), Data.Uniform(3, 9, 2) }, y));
                Assert.AreEqual("x[0] and x[1] must have the same number of samples, got x[0]: 10, x[1]: 9", rows.PythonMessage);
                var shape = Assert.Throws<TfNetTrainArgumentException>(
                    () => model.Evaluate(new[] { Data.Uniform(2, 10, 3), Data.Uniform(3, 10, 5) }, y));
                Assert.AreEqual("x[1] has shape (10, 5); the model expects shape (None, 2)", shape.PythonMessage);
                var labels = Assert.Throws<TfNetTrainArgumentException>(
                    () => model.Fit(new[] { Data.Uniform(2, 10, 3), Data.Uniform(3, 10, 2) }, Data.Labels(1, 8, 3), verbose: 0));
                Assert.AreEqual("x[0] and y must have the same number of samples, got x[0]: 10, y: 8", labels.PythonMessage);
                var empty = Assert.Throws<TfNetTrainArgumentException>(() => model.PredictOutputs(new NDArray[0]));
                Assert.AreEqual("x must hold 2 input arrays for this model, got 0", empty.PythonMessage);
                Assert.AreEqual(0L, model.TrainCounter, "no step ran");
            }
        }

        [Test]
        public void StringCompileMatchesPython()
        {
            using (var model = Keras.Sequential(Layers.Input(3), Layers.Dense(2)))
            {
                model.Compile("sgd", "mse", new[] { "mae" });
                IList<NDArray> w0 = model.GetWeights();
                NDArray x = Data.Uniform(11, 12, 3), y = Data.Uniform(12, 12, 2);
                var logs = model.TrainOnBatch(x, y);
                var expected = PyScript.Run(
                    "model = tfnet_train.Sequential([keras.Input((3,)), keras.layers.Dense(2)])\n" +
                    "model.set_weights(w0)\n" +
                    "model.compile('sgd', 'mse', metrics=['mae'])\n" +
                    "put('logs', model.train_on_batch(x, y, return_dict=True))\n" +
                    "put('weights', model.get_weights())\n",
                    "w0", w0, "x", x, "y", y);
                Data.AssertLogs(expected, "logs", logs);
                Data.AssertBitwise(expected, "weights", model.GetWeights(), "weights");
            }
        }

        [Test]
        public void TfnetSemanticsSelectsTheProfile()
        {
            using (var model = Classifier())
            {
                model.Compile(Optimizers.SGD(learningRate: 0.1f, clipNorm: 0.01f), Losses.SparseCategoricalCrossentropy(fromLogits: true),
                              new[] { "acc" }, semantics: "tfnet");
                IList<NDArray> w0 = model.GetWeights();
                NDArray x = Data.Uniform(13, 8, 4), y = Data.Labels(14, 8, 3);
                StepTrace trace = model.TrainStepTraced(x, y);
                var expected = PyScript.Run(PyClassifier +
                    "model.compile(optimizers.SGD(learning_rate=0.1, clipnorm=0.01),\n" +
                    "              keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=['acc'], semantics='tfnet')\n" +
                    "put('t', model.train_step_traced(x, y).flat())\n",
                    "w0", w0, "x", x, "y", y);
                foreach (var entry in trace.Flat) Data.AssertBitwise(expected["t/" + entry.Key], entry.Value, entry.Key);
                // TF.NET ignores clipnorm and reports 'acc' as 'accuracy'.
                for (int i = 0; i < trace.Gradients.Count; i++)
                    Data.AssertBitwise(trace.Gradients[i], trace.ClippedGradients[i], "unclipped gradient " + i);
                CollectionAssert.Contains(trace.Metrics.Keys, "accuracy");
            }
        }

#pragma warning disable 414 // read by NUnit through reflection
        private static readonly object[] OptimizerCases =
        {
            new object[] { "adam+clipvalue", Optimizers.Adam(learningRate: 0.01f, clipValue: 0.05f),
                           "optimizers.Adam(learning_rate=0.01, clipvalue=0.05)" },
            new object[] { "adamw+global", Optimizers.AdamW(learningRate: 0.01f, weightDecay: 0.01f, amsgrad: true, globalClipNorm: 0.5f),
                           "optimizers.AdamW(learning_rate=0.01, weight_decay=0.01, amsgrad=True, global_clipnorm=0.5)" },
            new object[] { "rmsprop", Optimizers.RMSprop(learningRate: 0.01f, momentum: 0.5f, centered: true, clipNorm: 0.3f),
                           "optimizers.RMSprop(learning_rate=0.01, momentum=0.5, centered=True, clipnorm=0.3)" },
            new object[] { "sgd-nesterov", Optimizers.SGD(learningRate: 0.05f, momentum: 0.9f, nesterov: true),
                           "optimizers.SGD(learning_rate=0.05, momentum=0.9, nesterov=True)" },
            new object[] { "schedule", Optimizers.SGD(momentum: 0.5f).WithLearningRate(Schedules.ExponentialDecay(0.1f, 2f, 0.5f)),
                           "optimizers.SGD(learning_rate=optimizers.ExponentialDecay(0.1, 2.0, 0.5), momentum=0.5)" },
        };
#pragma warning restore 414

        [TestCaseSource("OptimizerCases")]
        public void OptimizersMatchPython(string label, OptimizerSpec optimizer, string pythonOptimizer)
        {
            using (var model = Classifier())
            {
                model.Compile(optimizer, Losses.SparseCategoricalCrossentropy(fromLogits: true), new[] { "accuracy" });
                IList<NDArray> w0 = model.GetWeights();
                var traces = new List<StepTrace>();
                var xs = new List<NDArray>();
                var ys = new List<NDArray>();
                for (int i = 0; i < 3; i++)
                {
                    xs.Add(Data.Uniform(30 + i, 8, 4));
                    ys.Add(Data.Labels(40 + i, 8, 3));
                    traces.Add(model.TrainStepTraced(xs[i], ys[i]));
                }
                var expected = PyScript.Run(PyClassifier +
                    "model.compile(" + pythonOptimizer + ", keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=['accuracy'])\n" +
                    "for i in range(3):\n" +
                    "    put(f't{i}', model.train_step_traced(xs[i], ys[i]).flat())\n",
                    "w0", w0, "xs", xs, "ys", ys);
                for (int i = 0; i < 3; i++)
                {
                    Assert.AreEqual(expected.Keys.Count(k => k.StartsWith($"t{i}/")), traces[i].Flat.Count, label + ": flat entries");
                    foreach (var entry in traces[i].Flat)
                        Data.AssertBitwise(expected[$"t{i}/" + entry.Key], entry.Value, $"{label} step {i} {entry.Key}");
                }
            }
        }

        [Test]
        public void FloatArgumentsMeanWhatTheSameLiteralMeansInPython()
        {
            StringAssert.Contains("momentum=0.9", Optimizers.SGD(momentum: 0.9f).ToString());
            using (var model = Classifier())
            {
                model.Compile(Optimizers.SGD(learningRate: 0.1f, momentum: 0.9f, clipNorm: 0.3f), "mse");
                var python = PyScript.Run(
                    "o = model.optimizer\n" +
                    "put('momentum', np.asarray(o.momentum == 0.9))\n" +
                    "put('clipnorm', np.asarray(o.clipnorm == 0.3))\n",
                    "model", model);
                Assert.AreEqual(1, python["momentum"].GetDouble(0), "0.9f must arrive as Python's 0.9");
                Assert.AreEqual(1, python["clipnorm"].GetDouble(0), "0.3f must arrive as Python's 0.3");
            }
        }

        [Test]
        public void SaveAndLoadWeightsRoundTripThroughPython()
        {
            string path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "tfnet_bridge_" + System.Guid.NewGuid().ToString("N") + ".weights.h5");
            try
            {
                using (var model = Classifier())
                {
                    CompileSgd(model);
                    model.TrainOnBatch(Data.Uniform(50, 8, 4), Data.Labels(51, 8, 3));
                    IList<NDArray> saved = model.GetWeights();
                    model.SaveWeights(path);
                    var fromPython = PyScript.Run(
                        "model = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation='relu'), keras.layers.Dense(3)])\n" +
                        "model.load_weights(path)\n" +
                        "put('weights', model.get_weights())\n", "path", path);
                    Data.AssertBitwise(fromPython, "weights", saved, "weights loaded by Python");
                    model.TrainOnBatch(Data.Uniform(52, 8, 4), Data.Labels(53, 8, 3));
                    Assert.IsFalse(model.GetWeights()[0].BitwiseEquals(saved[0]), "training changed the weights");
                    model.LoadWeights(path);
                    IList<NDArray> restored = model.GetWeights();
                    for (int i = 0; i < saved.Count; i++) Data.AssertBitwise(saved[i], restored[i], "restored weight " + i);
                }
            }
            finally
            {
                if (System.IO.File.Exists(path)) System.IO.File.Delete(path);
            }
        }
    }
}
