using System.Linq;
using NUnit.Framework;

namespace TfNetTrain.Reference.Tests
{
    [TestFixture]
    public class JsonReaderTests
    {
        [Test]
        public void ParsesNestedDocumentKeepingMemberOrder()
        {
            JsonValue v = JsonReader.Parse(" {\"b\": [1, 2.5, {\"c\": null}], \"a\": true, \"z\": false, \"s\": \"x\"} ");
            CollectionAssert.AreEqual(new[] { "b", "a", "z", "s" }, v.Members.Select(m => m.Key).ToArray());
            JsonValue b;
            Assert.IsTrue(v.TryGet("b", out b));
            Assert.AreEqual(3, b.Items.Count);
            Assert.AreEqual(2.5, b.Items[1].AsNumber);
            Assert.AreEqual(JsonKind.Null, b.Items[2].Members[0].Value.Kind);
            JsonValue a;
            v.TryGet("a", out a);
            Assert.IsTrue(a.AsBoolean);
        }

        [TestCase("0", 0.0, true)]
        [TestCase("-0", 0.0, true)]
        [TestCase("42", 42.0, true)]
        [TestCase("-17", -17.0, true)]
        [TestCase("1e-7", 1e-7, false)]
        [TestCase("1E+2", 100.0, false)]
        [TestCase("0.5", 0.5, false)]
        [TestCase("8.0", 8.0, false)]
        [TestCase("-2.5e-3", -0.0025, false)]
        public void ParsesNumbersAndTellsIntegers(string text, double value, bool integer)
        {
            JsonValue v = JsonReader.Parse(text);
            Assert.AreEqual(value, v.AsNumber);
            Assert.AreEqual(integer, v.IsInteger);
            Assert.AreEqual(text, v.NumberText);
        }

        [TestCase("\"a\\\"b\"", "a\"b")]
        [TestCase("\"\\\\ \\/ \\b \\f \\n \\r \\t\"", "\\ / \b \f \n \r \t")]
        [TestCase("\"caf\\u00e9\"", "caf\u00e9")]
        [TestCase("\"\\ud83d\\ude00\"", "\ud83d\ude00")]
        [TestCase("\"unicode \u00e9 as is\"", "unicode \u00e9 as is")]
        [TestCase("\"\"", "")]
        public void ParsesStringEscapes(string text, string expected)
        {
            Assert.AreEqual(expected, JsonReader.Parse(text).AsString);
        }

        [Test]
        public void ParsesEmptyContainersWhitespaceAndByteOrderMark()
        {
            Assert.AreEqual(0, JsonReader.Parse("\uFEFF{ }").Members.Count);
            Assert.AreEqual(0, JsonReader.Parse("\t[\r\n]\n").Items.Count);
        }

        [TestCase("", "expected a value, got the end")]
        [TestCase("{\"a\": 1,}", "trailing comma")]
        [TestCase("[1, 2,]", "trailing comma")]
        [TestCase("01", "leading zeros")]
        [TestCase("NaN", "expected a value")]
        [TestCase("Infinity", "expected a value")]
        [TestCase("-", "expected a digit")]
        [TestCase("1.", "digit after the decimal point")]
        [TestCase(".5", "expected a value")]
        [TestCase("1e", "digit in the exponent")]
        [TestCase("1e400", "within double range")]
        [TestCase("{'a': 1}", "string key")]
        [TestCase("// comment\n1", "expected a value")]
        [TestCase("\"abc", "closing '\"'")]
        [TestCase("\"a\tb\"", "control character U+0009")]
        [TestCase("\"\\x\"", "got '\\x'")]
        [TestCase("\"\\u12g4\"", "four hex digits")]
        [TestCase("{\"a\": 1, \"a\": 2}", "distinct keys, got \"a\" twice")]
        [TestCase("[1] 2", "expected the end of the document")]
        [TestCase("tru", "expected 'true'")]
        [TestCase("{\"a\" 1}", "expected ':'")]
        [TestCase("[1 2]", "expected ',' or ']'")]
        [TestCase("{\"a\": 1 \"b\": 2}", "expected ',' or '}'")]
        public void RejectsInvalidJson(string text, string message)
        {
            var e = Assert.Throws<JsonParseException>(() => JsonReader.Parse(text));
            StringAssert.Contains(message, e.Message);
        }

        [Test]
        public void ReportsLineAndColumnOfTheError()
        {
            var e = Assert.Throws<JsonParseException>(() => JsonReader.Parse("{\n  \"a\": 1,\n  \"b\": tru\n}"));
            Assert.AreEqual(3, e.Line);
            Assert.AreEqual(8, e.Column);
        }

        [Test]
        public void LimitsNestingDepth()
        {
            string deep = new string('[', JsonReader.MaxDepth + 1) + new string(']', JsonReader.MaxDepth + 1);
            var e = Assert.Throws<JsonParseException>(() => JsonReader.Parse(deep));
            StringAssert.Contains("nesting", e.Message);
            string ok = new string('[', JsonReader.MaxDepth) + new string(']', JsonReader.MaxDepth);
            Assert.AreEqual(JsonKind.Array, JsonReader.Parse(ok).Kind);
        }

        [Test]
        public void DescribesValuesForErrorMessages()
        {
            Assert.AreEqual("string \"8\"", JsonReader.Parse("\"8\"").Describe());
            Assert.AreEqual("number 8.0", JsonReader.Parse("8.0").Describe());
            Assert.AreEqual("boolean true", JsonReader.Parse("true").Describe());
            Assert.AreEqual("null", JsonReader.Parse("null").Describe());
            Assert.AreEqual("array of 2 items", JsonReader.Parse("[1, 2]").Describe());
            Assert.AreEqual("object with keys [a, b]", JsonReader.Parse("{\"a\": 1, \"b\": 2}").Describe());
        }
    }
}
