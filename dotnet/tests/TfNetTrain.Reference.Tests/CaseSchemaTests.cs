using System.Collections.Generic;
using System.IO;
using NUnit.Framework;

namespace TfNetTrain.Reference.Tests
{
    [TestFixture]
    public class CaseSchemaTests
    {
        private string _folder;

        [SetUp]
        public void CreateFolder()
        {
            _folder = TestData.NewFolder();
        }

        [TearDown]
        public void DeleteFolder()
        {
            Directory.Delete(_folder, true);
        }

        [Test]
        public void ParsesEveryFieldAndDefaults()
        {
            ConformanceCase c = ConformanceCase.ParseSpec(TestData.CaseJson(
                optimizer: "{\"name\": \"adamw\", \"learning_rate\": 0.02, \"amsgrad\": true, \"clipnorm\": 1.5}"));
            Assert.AreEqual("demo", c.Name);
            Assert.AreEqual("a small case", c.Description);
            Assert.AreEqual(Semantics.Keras, c.Semantics);
            Assert.AreEqual(2, c.InputSize);
            Assert.AreEqual(2, c.Layers.Count);
            Assert.AreEqual(Activation.Relu, c.Layers[0].Activation);
            Assert.IsTrue(c.Layers[1].UseBias, "use_bias defaults to true");
            Assert.AreEqual(LossKind.MeanSquaredError, c.Loss.Kind);
            CollectionAssert.AreEqual(new[] { "mae" }, c.Metrics);
            Assert.AreEqual(OptimizerKind.AdamW, c.Optimizer.Kind);
            Assert.AreEqual(0.02, c.Optimizer.LearningRate);
            Assert.IsTrue(c.Optimizer.Amsgrad);
            Assert.AreEqual(0.9, c.Optimizer.Beta1, "Keras 3 default");
            Assert.AreEqual(0.999, c.Optimizer.Beta2, "Keras 3 default");
            Assert.AreEqual(1e-7, c.Optimizer.Epsilon, "Keras 3 default");
            Assert.AreEqual(0.004, c.Optimizer.WeightDecay, "Keras 3 default");
            Assert.AreEqual(1.5, c.Optimizer.ClipNorm);
            Assert.IsNull(c.Optimizer.ClipValue);
            Assert.IsNull(c.Optimizer.GlobalClipNorm);
            Assert.AreEqual(4, c.BatchSize);
            Assert.AreEqual(2, c.Steps);
            Assert.AreEqual(1e-5, c.Rtol);
            Assert.AreEqual(1e-6, c.Atol);
        }

        [Test]
        public void OptimizerDefaultsFollowKeras3()
        {
            Assert.AreEqual(0.01, ConformanceCase.ParseSpec(TestData.CaseJson(optimizer: "{\"name\": \"sgd\"}")).Optimizer.LearningRate);
            OptimizerSpec rms = ConformanceCase.ParseSpec(TestData.CaseJson(optimizer: "{\"name\": \"rmsprop\"}")).Optimizer;
            Assert.AreEqual(0.001, rms.LearningRate);
            Assert.AreEqual(0.9, rms.Rho);
            Assert.AreEqual(0.0, rms.Momentum);
            Assert.IsFalse(rms.Centered);
        }

        [Test]
        public void ToleranceIsOptional()
        {
            string json = TestData.CaseJson().Replace(",\n  \"tolerance\": {\"rtol\": 1e-5, \"atol\": 1e-6}", "");
            ConformanceCase c = ConformanceCase.ParseSpec(json);
            Assert.IsNull(c.Rtol);
            Assert.IsNull(c.Atol);
        }

        [TestCase("\"batch_size\": 4", "\"batch_size\": \"4\"", "batch_size", "an integer >= 1", "string \"4\"")]
        [TestCase("\"batch_size\": 4", "\"batch_size\": 4.0", "batch_size", "an integer >= 1", "number 4.0")]
        [TestCase("\"steps\": 2", "\"steps\": 0", "steps", "an integer >= 1", "number 0")]
        [TestCase("\"learning_rate\": 0.1", "\"learning_rate\": \"0.1\"", "optimizer.learning_rate", "a number > 0", "string \"0.1\"")]
        [TestCase("\"learning_rate\": 0.1", "\"learning_rate\": -0.1", "optimizer.learning_rate", "a number > 0", "number -0.1")]
        [TestCase("\"momentum\": 0.0", "\"momentum\": 1.5", "optimizer.momentum", "a number >= 0 and <= 1", "number 1.5")]
        [TestCase("\"nesterov\": false", "\"nesterov\": \"false\"", "optimizer.nesterov", "a boolean", "string \"false\"")]
        [TestCase("\"clipnorm\": null", "\"clipnorm\": 0", "optimizer.clipnorm", "a number > 0 or null", "number 0")]
        [TestCase("\"activation\": \"relu\"", "\"activation\": \"gelu\"", "model.layers[0].activation", "one of \"linear\", \"relu\", \"tanh\", \"sigmoid\", \"softmax\"", "string \"gelu\"")]
        [TestCase("\"units\": 3", "\"units\": 0", "model.layers[0].units", "an integer >= 1", "number 0")]
        [TestCase("\"type\": \"Dense\", \"units\": 1", "\"type\": \"Conv2D\", \"units\": 1", "model.layers[1].type", "\"Dense\"", "string \"Conv2D\"")]
        [TestCase("\"input_shape\": [2]", "\"input_shape\": [2, 2]", "model.input_shape", "a list of one positive integer", "array of 2 items")]
        [TestCase("\"input_shape\": [2]", "\"input_shape\": [-2]", "model.input_shape[0]", "an integer >= 1", "number -2")]
        [TestCase("\"semantics\": \"keras\"", "\"semantics\": \"torch\"", "semantics", "one of \"keras\", \"tfnet\"", "string \"torch\"")]
        [TestCase("\"schema\": \"tfnet-train/case@1\"", "\"schema\": \"tfnet-train/case@2\"", "schema", "\"tfnet-train/case@1\"", "string \"tfnet-train/case@2\"")]
        [TestCase("\"metrics\": [\"mae\"]", "\"metrics\": [\"mae\", \"f1\"]", "metrics[1]", "one of \"accuracy\", \"acc\", \"mae\", \"mse\", \"mape\"", "string \"f1\"")]
        [TestCase("\"metrics\": [\"mae\"]", "\"metrics\": [\"mae\", \"mae\"]", "metrics[1]", "each metric once", "\"mae\" again")]
        [TestCase("\"metrics\": [\"mae\"]", "\"metrics\": \"mae\"", "metrics", "a list of metric strings", "string \"mae\"")]
        [TestCase("\"from_logits\": false", "\"from_logits\": 0", "loss.from_logits", "a boolean", "number 0")]
        [TestCase("\"name\": \"mse\"", "\"name\": \"huber\"", "loss.name", "one of \"mse\", \"mae\", \"binary_crossentropy\", \"categorical_crossentropy\", \"sparse_categorical_crossentropy\"", "string \"huber\"")]
        [TestCase("\"rtol\": 1e-5", "\"rtol\": \"tight\"", "tolerance.rtol", "a number >= 0", "string \"tight\"")]
        [TestCase("\"description\": \"a small case\"", "\"description\": 3", "description", "a string", "number 3")]
        public void WrongTypeOrValueNamesFieldExpectedAndActual(string original, string replacement, string field, string expected, string actual)
        {
            string json = TestData.CaseJson();
            Assert.IsTrue(json.Contains(original), "fixture must contain " + original);
            var e = Assert.Throws<CaseFormatException>(() => ConformanceCase.ParseSpec(json.Replace(original, replacement)));
            Assert.AreEqual(field, e.Field);
            Assert.AreEqual(expected, e.Expected);
            Assert.AreEqual(actual, e.Actual);
            StringAssert.Contains("'" + field + "'", e.Message);
        }

        [TestCase("\"clipnorm\": 1.0, \"clipvalue\": 0.5", "clipnorm and clipvalue")]
        [TestCase("\"clipvalue\": 0.5, \"global_clipnorm\": 2.0", "clipvalue and global_clipnorm")]
        public void TwoClipOptionsAreAnError(string clips, string actual)
        {
            string json = TestData.CaseJson(optimizer: "{\"name\": \"sgd\", " + clips + "}");
            var e = Assert.Throws<CaseFormatException>(() => ConformanceCase.ParseSpec(json));
            Assert.AreEqual("optimizer", e.Field);
            Assert.AreEqual("at most one of clipnorm, clipvalue, global_clipnorm (Keras 3 rule)", e.Expected);
            Assert.AreEqual(actual, e.Actual);
        }

        [TestCase("  \"steps\": 2,\n", "steps", "an integer >= 1")]
        [TestCase("  \"semantics\": \"keras\",\n", "semantics", "one of \"keras\", \"tfnet\"")]
        [TestCase("\"units\": 3, ", "model.layers[0].units", "an integer >= 1")]
        [TestCase("  \"loss\": {\"name\": \"mse\", \"from_logits\": false},\n", "loss", "an object")]
        public void MissingFieldIsNamed(string removed, string field, string expected)
        {
            string json = TestData.CaseJson();
            Assert.IsTrue(json.Contains(removed), "fixture must contain " + removed);
            var e = Assert.Throws<CaseFormatException>(() => ConformanceCase.ParseSpec(json.Replace(removed, "")));
            Assert.AreEqual(field, e.Field);
            Assert.AreEqual(expected, e.Expected);
            Assert.AreEqual("missing", e.Actual);
        }

        [TestCase("\"steps\": 2", "\"steps\": 2, \"epochs\": 1", "epochs")]
        [TestCase("\"learning_rate\": 0.1", "\"learning_rate\": 0.1, \"beta_1\": 0.9", "optimizer.beta_1")]
        [TestCase("\"use_bias\": true", "\"use_bias\": true, \"bias_regularizer\": \"l2\"", "model.layers[0].bias_regularizer")]
        [TestCase("\"from_logits\": false", "\"from_logits\": false, \"reduction\": \"sum\"", "loss.reduction")]
        public void UnknownFieldIsNamed(string original, string replacement, string field)
        {
            var e = Assert.Throws<CaseFormatException>(() => ConformanceCase.ParseSpec(TestData.CaseJson().Replace(original, replacement)));
            Assert.AreEqual(field, e.Field);
            StringAssert.StartsWith("no such field", e.Expected);
        }

        [Test]
        public void LoadsCaseAndArraysFromDisk()
        {
            string path = TestData.WriteCase(_folder, TestData.CaseJson(), TestData.CaseArrays(sampleWeight: true));
            ConformanceCase c = ConformanceCase.Load(path);
            Assert.AreEqual(4, c.Weights.Count);
            CollectionAssert.AreEqual(new[] { 8, 2 }, c.X.Shape);
            CollectionAssert.AreEqual(new[] { 8 }, c.Y.Shape);
            Assert.IsNotNull(c.SampleWeight);
        }

        [Test]
        public void TheArraysDigestBindsTheJsonToItsNpz()
        {
            // What case.save writes: the JSON names the SHA-256 of its .npz; an .npz of another save (same shapes) is refused.
            string path = TestData.WriteCase(_folder, TestData.CaseJson(), TestData.CaseArrays());
            string npz = Path.ChangeExtension(path, ".npz");
            string digest;
            using (var sha = System.Security.Cryptography.SHA256.Create())
                digest = System.BitConverter.ToString(sha.ComputeHash(File.ReadAllBytes(npz))).Replace("-", "").ToLowerInvariant();
            File.WriteAllText(path, TestData.CaseJson().Replace("\"steps\": 2,", "\"steps\": 2,\n  \"arrays_sha256\": \"" + digest + "\","));
            Assert.AreEqual(digest, ConformanceCase.Load(path).ArraysSha256);

            var other = TestData.CaseArrays();
            other["x"] = NpyArray.Float32(new[] { 8, 2 }, TestData.Uniform(16, 99));
            Npz.Save(npz, other);
            var e = Assert.Throws<CaseFormatException>(() => ConformanceCase.Load(path));
            Assert.AreEqual("arrays_sha256", e.Field);
            StringAssert.Contains(digest, e.Expected);
            StringAssert.Contains("not of one save", e.Actual);

            File.WriteAllText(path, TestData.CaseJson().Replace("\"steps\": 2,", "\"steps\": 2,\n  \"arrays_sha256\": \"ABC\","));
            e = Assert.Throws<CaseFormatException>(() => ConformanceCase.Load(path));
            Assert.AreEqual("arrays_sha256", e.Field);
            StringAssert.StartsWith("64 lowercase hex digits", e.Expected);
        }

        [Test]
        public void NameMustEqualFileStem()
        {
            string path = TestData.WriteCase(_folder, TestData.CaseJson(name: "other"), TestData.CaseArrays());
            var e = Assert.Throws<CaseFormatException>(() => ConformanceCase.Load(path));
            Assert.AreEqual("name", e.Field);
            Assert.AreEqual("the file stem \"demo\"", e.Expected);
        }

        private CaseFormatException LoadWithArrays(Dictionary<string, NpyArray> arrays, string json = null)
        {
            string path = TestData.WriteCase(_folder, json ?? TestData.CaseJson(), arrays);
            return Assert.Throws<CaseFormatException>(() => ConformanceCase.Load(path));
        }

        [Test]
        public void WeightShapeIsCheckedAgainstTheModel()
        {
            var arrays = TestData.CaseArrays();
            arrays["weights/2"] = NpyArray.Float32(new[] { 1, 3 }, new double[3]);
            CaseFormatException e = LoadWithArrays(arrays);
            Assert.AreEqual("weights/2", e.Field);
            Assert.AreEqual("float32 array of shape (3, 1)", e.Expected);
            Assert.AreEqual("float32 array of shape (1, 3)", e.Actual);
        }

        [Test]
        public void WeightDtypeMustBeFloat32()
        {
            var arrays = TestData.CaseArrays();
            arrays["weights/1"] = NpyArray.Float64(new[] { 3 }, new double[3]);
            CaseFormatException e = LoadWithArrays(arrays);
            Assert.AreEqual("weights/1", e.Field);
            Assert.AreEqual("float64 array of shape (3,)", e.Actual);
        }

        [Test]
        public void MissingBiasWhenUseBiasIsFalseIsExpected()
        {
            string layers = "[{\"type\": \"Dense\", \"units\": 3, \"activation\": \"relu\", \"use_bias\": false}, " +
                "{\"type\": \"Dense\", \"units\": 1, \"activation\": \"linear\"}]";
            var arrays = TestData.CaseArrays();
            CaseFormatException extra = LoadWithArrays(arrays, TestData.CaseJson(layers: layers));
            Assert.AreEqual("weights/3", extra.Field, "three weights expected, so weights/3 is unknown");
            arrays.Remove("weights/3");
            CaseFormatException e = LoadWithArrays(arrays, TestData.CaseJson(layers: layers));
            Assert.AreEqual("weights/1", e.Field, "without the first bias, weights/1 is the second kernel");
            Assert.AreEqual("float32 array of shape (3, 1)", e.Expected);
            Assert.AreEqual("float32 array of shape (3,)", e.Actual);
        }

        [Test]
        public void UnknownArrayIsNamed()
        {
            var arrays = TestData.CaseArrays();
            arrays["class_weight"] = NpyArray.Float32(new[] { 2 }, new double[2]);
            CaseFormatException e = LoadWithArrays(arrays);
            Assert.AreEqual("class_weight", e.Field);
        }

        [Test]
        public void MissingArrayIsNamed()
        {
            var arrays = TestData.CaseArrays();
            arrays.Remove("x");
            CaseFormatException e = LoadWithArrays(arrays);
            Assert.AreEqual("x", e.Field);
            Assert.AreEqual("missing", e.Actual);
        }

        [Test]
        public void RowsMustCoverEveryStep()
        {
            CaseFormatException e = LoadWithArrays(TestData.CaseArrays(n: 7));
            Assert.AreEqual("x", e.Field);
            Assert.AreEqual("at least steps * batch_size = 8 rows", e.Expected);
            Assert.AreEqual("7 rows", e.Actual);
        }

        [Test]
        public void TargetShapeMustMatchTheOutput()
        {
            var arrays = TestData.CaseArrays();
            arrays["y"] = NpyArray.Float32(new[] { 8, 2 }, new double[16]);
            CaseFormatException e = LoadWithArrays(arrays);
            Assert.AreEqual("y", e.Field);
            Assert.AreEqual("a float32, int32 or int64 array of shape (8,) or (8, 1)", e.Expected);
        }

        [Test]
        public void SparseLabelsMustBeClassIndices()
        {
            string layers = "[{\"type\": \"Dense\", \"units\": 3, \"activation\": \"softmax\"}]";
            string loss = "{\"name\": \"sparse_categorical_crossentropy\"}";
            var arrays = TestData.CaseArrays();
            arrays.Remove("weights/2");
            arrays.Remove("weights/3");
            arrays["y"] = new NpyArray(new[] { 8 }, "int64", new long[] { 0, 1, 2, 3, 0, 1, 2, 0 });
            CaseFormatException e = LoadWithArrays(arrays, TestData.CaseJson(layers: layers, loss: loss));
            Assert.AreEqual("y", e.Field);
            Assert.AreEqual("label 3 at index 3", e.Actual);
        }

        [Test]
        public void SampleWeightMustBeOneValuePerRow()
        {
            var arrays = TestData.CaseArrays();
            arrays["sample_weight"] = NpyArray.Float32(new[] { 8, 1 }, new double[8]);
            CaseFormatException e = LoadWithArrays(arrays);
            Assert.AreEqual("sample_weight", e.Field);
            Assert.AreEqual("float32 array of shape (8,)", e.Expected);
        }

        [Test]
        public void MalformedJsonFileIsNamedAsTheDocument()
        {
            string path = TestData.WriteCase(_folder, "{\"schema\": ", TestData.CaseArrays());
            var e = Assert.Throws<CaseFormatException>(() => ConformanceCase.Load(path));
            Assert.AreEqual("(document)", e.Field);
            StringAssert.StartsWith("malformed JSON: ", e.Actual);
        }

        [TestCase("\"steps\": 2", "\"steps\": 02", "steps", "the token 02")]
        [TestCase("\"steps\": 2", "\"steps\": NaN", "steps", "the token NaN")]
        [TestCase("\"rtol\": 1e-5", "\"rtol\": 1e400", "tolerance.rtol", "the token 1e400")]
        [TestCase("\"units\": 3", "\"units\": 3.", "model.layers[0].units", "the token 3.")]
        public void NumbersFollowTheJsonGrammar(string original, string replacement, string field, string actual)
        {
            var e = Assert.Throws<CaseFormatException>(() => ConformanceCase.ParseSpec(TestData.CaseJson().Replace(original, replacement)));
            Assert.AreEqual(field, e.Field);
            Assert.AreEqual("a JSON number within double range", e.Expected);
            Assert.AreEqual(actual, e.Actual);
        }

        [Test]
        public void RepeatedKeyIsNamed()
        {
            var e = Assert.Throws<CaseFormatException>(() => ConformanceCase.ParseSpec(TestData.CaseJson().Replace("\"steps\": 2", "\"steps\": 2, \"steps\": 3")));
            Assert.AreEqual("steps", e.Field);
            Assert.AreEqual("\"steps\" twice", e.Actual);
        }

        [Test]
        public void ReadsAByteOrderMarkAndKeysThatAreNotXmlNames()
        {
            Assert.AreEqual("demo", ConformanceCase.ParseSpec("\uFEFF" + TestData.CaseJson()).Name);
            var e = Assert.Throws<CaseFormatException>(() => ConformanceCase.ParseSpec(TestData.CaseJson().Replace("\"steps\": 2", "\"steps\": 2, \"a b\": 1")));
            Assert.AreEqual("a b", e.Field);
            Assert.AreEqual("number 1", e.Actual);
        }
    }
}
