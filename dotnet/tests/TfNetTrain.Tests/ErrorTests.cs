using System;
using System.Collections.Generic;
using NUnit.Framework;
using Python.Runtime;

namespace TfNetTrain.Tests
{
    /// <summary>Bad input gives the typed exception with the detail, and leaves the model usable.</summary>
    [TestFixture]
    public class ErrorTests
    {
        private Model _model;
        private NDArray _x;
        private NDArray _y;

        [SetUp]
        public void MakeModel()
        {
            _model = ModelParityTests.Classifier();
            ModelParityTests.CompileSgd(_model);
            _x = Data.Uniform(1, 6, 4);
            _y = Data.Labels(2, 6, 3);
        }

        [TearDown]
        public void DisposeModel()
        {
            _model.Dispose();
        }

        /// <summary>After an error the model still trains one step and counts it.</summary>
        private void AssertStillUsable()
        {
            long before = _model.TrainCounter;
            var logs = _model.TrainOnBatch(_x, _y);
            Assert.IsTrue(logs.ContainsKey("loss"));
            Assert.AreEqual(before + 1, _model.TrainCounter);
        }

        [Test]
        public void NullArraysNameTheParameter()
        {
            Assert.AreEqual("x", Assert.Throws<ArgumentNullException>(() => _model.TrainOnBatch((NDArray)null, _y)).ParamName);
            Assert.AreEqual("x", Assert.Throws<ArgumentNullException>(() => _model.TrainOnBatch((IList<NDArray>)null, _y)).ParamName);
            var element = Assert.Throws<ArgumentNullException>(() => _model.TrainOnBatch(new[] { _x, null }, _y));
            Assert.AreEqual("x", element.ParamName);
            StringAssert.Contains("x[1] is null", element.Message);
            Assert.AreEqual("y", Assert.Throws<ArgumentNullException>(() => _model.TrainOnBatch(_x, null)).ParamName);
            Assert.AreEqual("x", Assert.Throws<ArgumentNullException>(() => _model.Predict((NDArray)null)).ParamName);
            Assert.AreEqual("weights", Assert.Throws<ArgumentNullException>(() => _model.SetWeights(null)).ParamName);
            Assert.AreEqual("weights", Assert.Throws<ArgumentNullException>(() => _model.SetWeights(new NDArray[] { null })).ParamName);
            Assert.AreEqual("output", Assert.Throws<ArgumentNullException>(() => _model.Predict(_x, (NDArray)null)).ParamName);
            AssertStillUsable();
        }

        [Test]
        public void ShapeMismatchesComeFromPythonNamingTheArgument()
        {
            var rows = Assert.Throws<TfNetTrainArgumentException>(() => _model.TrainOnBatch(_x, Data.Labels(3, 5, 3)));
            Assert.AreEqual("ValueError", rows.PythonType, "the engine owns the check");
            Assert.AreEqual("x and y must have the same number of samples, got x: 6, y: 5", rows.PythonMessage);
            StringAssert.Contains("_check_same_samples", rows.PythonTraceback);

            var features = Assert.Throws<TfNetTrainArgumentException>(() => _model.TrainOnBatch(Data.Uniform(4, 6, 5), _y));
            Assert.AreEqual("x has shape (6, 5); the model expects shape (None, 4)", features.PythonMessage);

            var weights = Assert.Throws<TfNetTrainArgumentException>(() => _model.TrainOnBatch(_x, _y, Data.Uniform(5, 4)));
            StringAssert.Contains("x and sample_weight must have the same number of samples, got x: 6, sample_weight: 4", weights.PythonMessage);

            var scalar = Assert.Throws<TfNetTrainArgumentException>(() => _model.TrainStepTraced(NDArray.Scalar(1f), _y));
            StringAssert.Contains("x must have a batch dimension, got a scalar", scalar.PythonMessage);

            var batch = Assert.Throws<TfNetTrainArgumentException>(() => _model.Fit(_x, _y, batchSize: 0));
            StringAssert.Contains("batch_size must be an integer >= 1, got 0", batch.PythonMessage);
            var epochs = Assert.Throws<TfNetTrainArgumentException>(() => _model.Fit(_x, _y, epochs: -1));
            StringAssert.Contains("epochs must be an integer >= 0, got -1", epochs.PythonMessage);
            var steps = Assert.Throws<TfNetTrainArgumentException>(() => _model.Compile("sgd", "mse", stepsPerExecution: 0));
            StringAssert.Contains("steps_per_execution must be an integer >= 1, got 0", steps.PythonMessage);
            Assert.AreEqual(0L, _model.TrainCounter, "no step ran");
            ModelParityTests.CompileSgd(_model);
            AssertStillUsable();
        }

        [Test]
        public void SetWeightsChecksCountShapeAndDType()
        {
            var good = _model.GetWeights();
            var tooFew = new[] { good[0] };
            StringAssert.Contains("the model has 4 weights; got 1 arrays",
                                  Assert.Throws<TfNetTrainArgumentException>(() => _model.SetWeights(tooFew)).PythonMessage);
            var badShape = new[] { Data.Uniform(1, 4, 7), good[1], good[2], good[3] };
            var shapeError = Assert.Throws<TfNetTrainArgumentException>(() => _model.SetWeights(badShape));
            Assert.AreEqual("ValueError", shapeError.PythonType);
            StringAssert.StartsWith("weights[0] (", shapeError.PythonMessage);
            StringAssert.EndsWith("must be float32 (4, 8); got float32 (4, 7)", shapeError.PythonMessage);
            var badDType = new[] { good[0], NDArray.Zeros(DType.Float64, 8), good[2], good[3] };
            StringAssert.EndsWith("must be float32 (8,); got float64 (8,)",
                                  Assert.Throws<TfNetTrainArgumentException>(() => _model.SetWeights(badDType)).PythonMessage);
            var after = _model.GetWeights();
            for (int i = 0; i < good.Count; i++) Data.AssertBitwise(good[i], after[i], "weights unchanged after rejected SetWeights");
            AssertStillUsable();
        }

        [Test]
        public void OutputBuffersMustFit()
        {
            var wrong = NDArray.Zeros(DType.Float32, 6, 4);
            var e = Assert.Throws<TfNetTrainArgumentException>(() => _model.Predict(_x, wrong));
            Assert.AreEqual("output", e.ParamName);
            StringAssert.Contains("(6, 3)", e.Message);
            var destination = _model.GetWeights();
            destination[1] = NDArray.Zeros(DType.Float32, 9);
            Assert.AreEqual("destination[1]", Assert.Throws<TfNetTrainArgumentException>(() => _model.GetWeights(destination)).ParamName);
            AssertStillUsable();
        }

        [Test]
        public void UnknownNamesGiveArgumentErrorsWithPythonDetail()
        {
            var layer = Assert.Throws<TfNetTrainArgumentException>(() => Keras.Sequential(Layers.Input(4), Layers.Create("Dense2")));
            Assert.AreEqual("ValueError", layer.PythonType);
            StringAssert.Contains("'Dense2'", layer.PythonMessage);
            StringAssert.Contains("did you mean Dense", layer.PythonMessage);
            StringAssert.Contains("Traceback", layer.PythonTraceback);
            StringAssert.Contains("build_layer", layer.PythonTraceback);

            var optimizer = Assert.Throws<TfNetTrainArgumentException>(() => _model.Compile(Optimizers.Create("Sgd2"), "mse"));
            StringAssert.Contains("Sgd2", optimizer.PythonMessage);
            var loss = Assert.Throws<TfNetTrainArgumentException>(() => _model.Compile("sgd", Losses.Create("NoSuchLoss")));
            StringAssert.Contains("NoSuchLoss", loss.PythonMessage);
            var metric = Assert.Throws<TfNetTrainArgumentException>(() => _model.Compile("sgd", "mse", new[] { "nope_metric" }));
            StringAssert.Contains("nope_metric", metric.PythonMessage);
            var semantics = Assert.Throws<TfNetTrainArgumentException>(() => _model.Compile("sgd", "mse", null, semantics: "bogus"));
            StringAssert.Contains("bogus", semantics.PythonMessage);
            var argument = Assert.Throws<TfNetTrainArgumentException>(() => _model.Compile(Optimizers.SGD(momentum: 2f), "mse"));
            StringAssert.Contains("momentum", argument.PythonMessage);
            ModelParityTests.CompileSgd(_model);
            AssertStillUsable();
        }

        [Test]
        public void TensorFlowRuntimeErrorsAreArgumentErrorsToo()
        {
            var labels = new NDArray(new long[] { 7, 1, 0, 0, 1, 2 });   // the first batch already fails
            var e = Assert.Throws<TfNetTrainArgumentException>(() => _model.TrainOnBatch(_x, labels));
            Assert.AreEqual("InvalidArgumentError", e.PythonType);
            StringAssert.StartsWith("tensorflow.", e.PythonTypeFullName);
            StringAssert.Contains("label value of 7", e.PythonMessage);
            AssertStillUsable();
        }

        private sealed class ThrowingCallback : CallbackBase
        {
            public override void OnEpochBegin(int epoch, IDictionary<string, float> logs)
            {
                if (epoch == 0) throw new InvalidOperationException("callback failed");
            }
        }

        private void AssertSameWeights(IList<NDArray> before)
        {
            var after = _model.GetWeights();
            for (int i = 0; i < before.Count; i++)
                CollectionAssert.AreEqual(before[i].ToArray<float>(), after[i].ToArray<float>(), "weight " + i);
        }

        [Test]
        public void AFailedFitLeavesWeightsAndTrainCounterAsBefore()
        {
            _model.TrainOnBatch(_x, _y);
            _model.TrainOnBatch(_x, _y);
            Assert.AreEqual(2, _model.TrainCounter);
            var before = _model.GetWeights();
            var labels = new NDArray(new long[] { 7, 1, 0, 0, 1, 2 });   // the first batch already fails
            Assert.Throws<TfNetTrainArgumentException>(() => _model.Fit(_x, labels, batchSize: 2, verbose: 0, shuffle: false));
            Assert.AreEqual(2, _model.TrainCounter, "after labels out of range");
            AssertSameWeights(before);
            Assert.Catch<Exception>(() => _model.Fit(_x, _y, batchSize: 2, epochs: 3, verbose: 0,
                                                     callbacks: new List<ICallback> { new ThrowingCallback() }));
            Assert.AreEqual(2, _model.TrainCounter, "after a callback threw in OnEpochBegin of epoch 0, before any step");
            AssertSameWeights(before);
            AssertStillUsable();
        }

        [Test]
        public void OtherPythonErrorsAreTfNetTrainExceptions()
        {
            var e = Assert.Throws<TfNetTrainException>(() => PythonSetup.Runtime.Run(() => PythonEngine.Exec("raise RuntimeError('boom')")));
            Assert.AreEqual(typeof(TfNetTrainException), e.GetType());
            Assert.AreEqual("RuntimeError", e.PythonType);
            Assert.AreEqual("boom", e.PythonMessage);
            Assert.AreEqual("RuntimeError: boom", e.Message);
            Assert.IsInstanceOf<PythonException>(e.InnerException);

            var io = Assert.Throws<TfNetTrainIOException>(() => _model.LoadWeights("/nonexistent/dir/w.weights.h5"));
            Assert.AreEqual("FileNotFoundError", io.PythonType);
            var suffix = Assert.Throws<TfNetTrainArgumentException>(() => _model.SaveWeights("/tmp/weights.bin"));
            StringAssert.Contains(".weights.h5", suffix.PythonMessage);
            AssertStillUsable();
        }

        /// <summary>Every weight and optimizer variable, and the train counter, as Python holds them.</summary>
        private static Dictionary<string, NDArray> State(Model model) => PyScript.Run(
            "put('v', [v.numpy() for v in m.weights + m.optimizer.variables])\nput('counter', int(m._train_counter.numpy()))", "m", model);

        private static void AssertSameState(Dictionary<string, NDArray> before, Model model, string what)
        {
            Dictionary<string, NDArray> after = State(model);
            CollectionAssert.AreEquivalent(before.Keys, after.Keys, what);
            foreach (var pair in before) Data.AssertBitwise(pair.Value, after[pair.Key], $"{what}: {pair.Key}");
        }

        /// <summary>
        /// Three calls Keras 3 takes without a word, refused with the typed error before anything changes: a class
        /// weight for a class the model does not have (Keras ignores it), a learning rate that is negative or not
        /// finite, weights saved into a folder that does not exist (Keras refuses too; the engine made it).
        /// </summary>
        [Test]
        public void CallsKerasTakesSilentlyAreRefusedAndChangeNothing()
        {
            _model.Fit(_x, _y, batchSize: 2, verbose: 0); // the optimizer has state
            var before = State(_model);
            Assert.Greater(before.Count, 5, "weights, optimizer variables and the counter");

            var weights = new Dictionary<int, float> { { 1, 1f }, { 2, 1f }, { 3, 2f } }; // counted from 1: class 3 does not exist
            var classes = Assert.Throws<TfNetTrainArgumentException>(() => _model.Fit(_x, _y, batchSize: 2, verbose: 0, classWeight: weights));
            Assert.AreEqual("ValueError", classes.PythonType);
            StringAssert.Contains("class_weight has weights for classes [3] that the model does not have: its output scores 3 classes, so keys must be in 0..2", classes.Message);
            AssertSameState(before, _model, "after class_weight");

            var negative = Assert.Throws<TfNetTrainArgumentException>(() => Optimizers.SGD(learningRate: -1f));
            Assert.AreEqual("learningRate", negative.ParamName);
            StringAssert.Contains("must be a finite number >= 0", negative.Message);
            StringAssert.Contains("got -1", negative.Message);
            Assert.AreEqual("learningRate", Assert.Throws<TfNetTrainArgumentException>(() => Optimizers.Adam(learningRate: float.NaN)).ParamName);
            Assert.AreEqual("learningRate", Assert.Throws<TfNetTrainArgumentException>(() => Optimizers.AdamW(learningRate: float.PositiveInfinity)).ParamName);
            Assert.AreEqual("learningRate", Assert.Throws<TfNetTrainArgumentException>(() => Optimizers.RMSprop(learningRate: -0.5f)).ParamName);
            var created = Assert.Throws<TfNetTrainArgumentException>(() => Optimizers.Create("Adagrad", new Dictionary<string, object> { { "learning_rate", -0.1 } }));
            Assert.AreEqual("learning_rate", created.ParamName);
            Assert.Throws<TfNetTrainArgumentException>(() => TensorFlowNet.KerasApi.keras.optimizers.SGD(-1f), "the TF.NET-shaped face's too");
            Assert.IsNotNull(Optimizers.SGD(learningRate: 0f), "0 is a rate");
            var python = Assert.Throws<TfNetTrainArgumentException>(() => PyScript.Run("optimizers.SGD(learning_rate=-1.0)"));
            StringAssert.Contains("Argument `learning_rate` must be a finite float >= 0", python.Message);
            AssertSameState(before, _model, "after the learning rates");

            string folder = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "tfnet-train-missing-" + Guid.NewGuid().ToString("N"));
            var io = Assert.Throws<TfNetTrainIOException>(() => _model.SaveWeights(System.IO.Path.Combine(folder, "w.weights.h5")));
            Assert.AreEqual("FileNotFoundError", io.PythonType);
            StringAssert.Contains(folder + "' is not an existing folder (save_weights creates none)", io.Message);
            Assert.IsFalse(System.IO.Directory.Exists(folder), "no folder is made");
            AssertSameState(before, _model, "after SaveWeights");
            AssertStillUsable();
        }

        [Test]
        public void DisposedModelsRefuseCalls()
        {
            var model = ModelParityTests.Classifier();
            model.Dispose();
            Assert.Throws<ObjectDisposedException>(() => model.GetWeights());
            model.Dispose();
        }
    }
}
