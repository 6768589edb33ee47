using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using NUnit.Framework;

namespace TfNetTrain.Reference.Tests
{
    [TestFixture]
    public class NpzTests
    {
        // Written by NumPy 2.4 (np.save / np.savez / np.savez_compressed), base64-encoded.
        private const string Float32TwoByThree = "k05VTVBZAQB2AHsnZGVzY3InOiAnPGY0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDIsIDMpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAACAPgAAAD8AAEA/AACAPwAAoD8=";
        private const string Float64Fortran = "k05VTVBZAQB2AHsnZGVzY3InOiAnPGY4JywgJ2ZvcnRyYW5fb3JkZXInOiBUcnVlLCAnc2hhcGUnOiAoMiwgMyksIH0gICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAAAAAAAAAAAAAAhAAAAAAAAA8D8AAAAAAAAQQAAAAAAAAABAAAAAAAAAFEA=";
        private const string Int32BigEndian = "k05VTVBZAQB2AHsnZGVzY3InOiAnPmk0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDMsKSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAB/////gAEk+A=";
        private const string Int64Scalar = "k05VTVBZAQB2AHsnZGVzY3InOiAnPGk4JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKCksIH0gICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAr5/////////w==";
        private const string PickledObjects = "k05VTVBZAQB2AHsnZGVzY3InOiAnfE8nLCAnZm9ydHJhbl9vcmRlcic6IEZhbHNlLCAnc2hhcGUnOiAoMiwpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAqABJWUAAAAAAAAAIwWbnVtcHkuX2NvcmUubXVsdGlhcnJheZSMDF9yZWNvbnN0cnVjdJSTlIwFbnVtcHmUjAduZGFycmF5lJOUSwCFlEMBYpSHlFKUKEsBSwKFlGgDjAVkdHlwZZSTlIwCTziUiYiHlFKUKEsDjAF8lE5OTkr/////Sv////9LP3SUYoldlCh9lIwBYZRLAXNOZXSUYi4=";
        private const string SavezArchive = "UEsDBC0AAAAAAAAAIQCs3WdC//////////8NABQAd2VpZ2h0cy8wLm5weQEAEACIAAAAAAAAAIgAAAAAAAAAk05VTVBZAQB2AHsnZGVzY3InOiAnPGY0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsIDIpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAMA/AAAQwFBLAwQtAAAAAAAAACEAjN4z4P//////////BQAUAHkubnB5AQAQAJAAAAAAAAAAkAAAAAAAAACTTlVNUFkBAHYAeydkZXNjcic6ICc8aTgnLCAnZm9ydHJhbl9vcmRlcic6IEZhbHNlLCAnc2hhcGUnOiAoMiwpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgCgMAAAAAAAAAAQAAAAAAAABQSwECLQMtAAAAAAAAACEArN1nQogAAACIAAAADQAAAAAAAAAAAAAAgAEAAAAAd2VpZ2h0cy8wLm5weVBLAQItAy0AAAAAAAAAIQCM3jPgkAAAAJAAAAAFAAAAAAAAAAAAAACAAccAAAB5Lm5weVBLBQYAAAAAAgACAG4AAACOAQAAAAA=";
        private const string CompressedArchive = "UEsDBC0AAAAIAAAAIQAvO56E//////////8FABQAeC5ucHkBABAAqAAAAAAAAABSAAAAAAAAAJvsF+obEMnIUMZQrZ6SWpxcpG6loG6TZqGuo6Cell9UUpSYF59flJIKEndLzClOBYoXZyQWpAL5GqY6mjoKtQoUAC4GFHDBHkI/gNIvoPQHewBQSwECLQMtAAAACAAAACEALzuehFIAAACoAAAABQAAAAAAAAAAAAAAgAEAAAAAeC5ucHlQSwUGAAAAAAEAAQAzAAAAiQAAAAAA";

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

        private static NpyArray ReadNpy(string base64)
        {
            using (var stream = new MemoryStream(Convert.FromBase64String(base64)))
            {
                return Npy.Read(stream, "fixture");
            }
        }

        [Test]
        public void ReadsNumpyFloat32Matrix()
        {
            NpyArray a = ReadNpy(Float32TwoByThree);
            Assert.AreEqual("float32", a.Dtype);
            CollectionAssert.AreEqual(new[] { 2, 3 }, a.Shape);
            CollectionAssert.AreEqual(new[] { 0f, 0.25f, 0.5f, 0.75f, 1f, 1.25f }, (float[])a.Data);
        }

        [TestCase("Float64Fortran", "got a Fortran-order array of shape (2, 3)")]
        [TestCase("Int32BigEndian", "got big-endian dtype '>i4'")]
        public void RejectsWhatTheProjectDoesNotWrite(string fixture, string got)
        {
            string base64 = fixture == "Float64Fortran" ? Float64Fortran : Int32BigEndian;
            var e = Assert.Throws<NpyFormatException>(() => ReadNpy(base64));
            StringAssert.Contains("expected a little-endian, C-order .npy version 1.0 of dtype '<f4', '<f8', '<i4' or '<i8'", e.Message);
            StringAssert.Contains(got, e.Message);
        }

        [Test]
        public void RejectsFormatVersionsAfterOne()
        {
            byte[] bytes = Convert.FromBase64String(Float32TwoByThree);
            bytes[6] = 2;
            var e = Assert.Throws<NpyFormatException>(() => Npy.Read(new MemoryStream(bytes), "v2"));
            StringAssert.Contains("got format version 2.0", e.Message);
        }

        [Test]
        public void RejectsAHeaderNumpyDoesNotWrite()
        {
            byte[] bytes = Convert.FromBase64String(Float32TwoByThree);
            bytes[IndexOf(bytes, "'shape'") + 1] = (byte)'S';
            var e = Assert.Throws<NpyFormatException>(() => Npy.Read(new MemoryStream(bytes), "odd"));
            StringAssert.Contains("got the header {'descr': '<f4', 'fortran_order': False, 'Shape': (2, 3), }", e.Message);
        }

        [Test]
        public void ReadsNumpyScalar()
        {
            NpyArray a = ReadNpy(Int64Scalar);
            Assert.AreEqual(0, a.Rank);
            Assert.AreEqual(-7L, ((long[])a.Data)[0]);
        }

        [Test]
        public void RejectsPickledObjectArrays()
        {
            var e = Assert.Throws<NpyFormatException>(() => ReadNpy(PickledObjects));
            StringAssert.Contains("object dtype '|O'", e.Message);
            StringAssert.Contains("pickled", e.Message);
        }

        [Test]
        public void ReadsNumpySavezArchiveWithSlashInKey()
        {
            string path = Path.Combine(_folder, "a.npz");
            File.WriteAllBytes(path, Convert.FromBase64String(SavezArchive));
            Dictionary<string, NpyArray> arrays = Npz.Load(path);
            CollectionAssert.AreEqual(new[] { "weights/0", "y" }, arrays.Keys.ToArray());
            CollectionAssert.AreEqual(new[] { 1.5f, -2.25f }, (float[])arrays["weights/0"].Data);
            CollectionAssert.AreEqual(new[] { 1, 2 }, arrays["weights/0"].Shape);
            CollectionAssert.AreEqual(new[] { 3L, 1L }, (long[])arrays["y"].Data);
        }

        [Test]
        public void ReadsNumpyCompressedArchive()
        {
            string path = Path.Combine(_folder, "c.npz");
            File.WriteAllBytes(path, Convert.FromBase64String(CompressedArchive));
            NpyArray x = Npz.Load(path)["x"];
            CollectionAssert.AreEqual(new[] { 0.0, 0.25, 0.5, 0.75, 1.0 }, (double[])x.Data);
        }

        [Test]
        public void RoundTripsEveryDtypeAndShape()
        {
            var arrays = new List<KeyValuePair<string, NpyArray>>
            {
                Pair("f32", new NpyArray(new[] { 2, 2 }, "float32", new[] { 1.5f, -0f, float.MaxValue, float.Epsilon })),
                Pair("f64", new NpyArray(new[] { 3 }, "float64", new[] { Math.PI, double.NaN, -1e300 })),
                Pair("i32", new NpyArray(new[] { 1, 3 }, "int32", new[] { int.MinValue, 0, int.MaxValue })),
                Pair("step0/optimizer_state/iterations", NpyArray.Int64Scalar(long.MaxValue)),
                Pair("empty", new NpyArray(new[] { 0, 4 }, "float32", new float[0])),
            };
            string path = Path.Combine(_folder, "round.npz");
            Npz.Save(path, arrays);
            Dictionary<string, NpyArray> back = Npz.Load(path);
            CollectionAssert.AreEqual(arrays.Select(p => p.Key).ToArray(), back.Keys.ToArray());
            foreach (var pair in arrays)
            {
                NpyArray b = back[pair.Key];
                Assert.AreEqual(pair.Value.Dtype, b.Dtype, pair.Key);
                CollectionAssert.AreEqual(pair.Value.Shape, b.Shape, pair.Key);
                CollectionAssert.AreEqual(pair.Value.Data, b.Data, pair.Key);
            }
        }

        [Test]
        public void TraceFileHoldsEveryStepUnderItsPrefixAndIsWrittenWholeOrNotAtAll()
        {
            string path = Path.Combine(_folder, "mine.npz");
            var steps = new List<Dictionary<string, NpyArray>>
            {
                new Dictionary<string, NpyArray> { { "loss", NpyArray.Float64Scalar(0.5) }, { "weights/0", NpyArray.Float32(new[] { 2 }, new[] { 1.0, 2.0 }) } },
                new Dictionary<string, NpyArray> { { "loss", NpyArray.Float64Scalar(0.25) } },
            };
            TraceFile.Write(path, steps);
            Dictionary<string, NpyArray> back = Npz.Load(path);
            CollectionAssert.AreEqual(new[] { "step0/loss", "step0/weights/0", "step1/loss" }, back.Keys.ToArray());
            Assert.AreEqual(0.25, back["step1/loss"].GetDouble(0));
            steps.Add(null);
            Assert.Throws<ArgumentException>(() => TraceFile.Write(path, steps));
            CollectionAssert.AreEqual(new[] { "step0/loss", "step0/weights/0", "step1/loss" }, Npz.Load(path).Keys.ToArray(),
                "a failed write leaves the earlier file as it was");
            CollectionAssert.AreEqual(new[] { path }, Directory.GetFiles(_folder), "no temporary file is left behind");
        }

        [Test]
        public void WritesVersionOneHeadersAlignedTo64Bytes()
        {
            var stream = new MemoryStream();
            Npy.Write(stream, NpyArray.Float64Scalar(2.0));
            byte[] bytes = stream.ToArray();
            int headerLength = bytes[8] | (bytes[9] << 8);
            Assert.AreEqual(1, bytes[6]);
            Assert.AreEqual(0, (10 + headerLength) % 64);
            Assert.AreEqual((byte)'\n', bytes[10 + headerLength - 1]);
            Assert.AreEqual(10 + headerLength + 8, bytes.Length);
        }

        [Test]
        public void RejectsBadMagic()
        {
            var e = Assert.Throws<NpyFormatException>(() => Npy.Read(new MemoryStream(new byte[] { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 }), "junk"));
            StringAssert.Contains("magic", e.Message);
        }

        [Test]
        public void RejectsTruncatedData()
        {
            byte[] bytes = Convert.FromBase64String(Float32TwoByThree);
            Array.Resize(ref bytes, bytes.Length - 4);
            var e = Assert.Throws<NpyFormatException>(() => Npy.Read(new MemoryStream(bytes), "short"));
            StringAssert.Contains("expected at most 20 bytes of array data (the file's size), got a header of shape (2, 3) needing 24", e.Message);
        }

        [Test]
        public void RejectsUnsupportedDtype()
        {
            var stream = new MemoryStream();
            Npy.Write(stream, NpyArray.Float64Scalar(1.0));
            byte[] bytes = stream.ToArray();
            int at = IndexOf(bytes, "<f8");
            bytes[at + 1] = (byte)'c';
            bytes[at + 2] = (byte)'8';
            var e = Assert.Throws<NpyFormatException>(() => Npy.Read(new MemoryStream(bytes), "complex"));
            StringAssert.Contains("got dtype '<c8'", e.Message);
        }

        [Test]
        public void RejectsNonZipArchive()
        {
            string path = Path.Combine(_folder, "bad.npz");
            File.WriteAllText(path, "not a zip file at all");
            Assert.Throws<NpyFormatException>(() => Npz.Load(path));
        }

        [Test]
        public void ArrayConstructorChecksDataAgainstShapeAndDtype()
        {
            Assert.Throws<ArgumentException>(() => new NpyArray(new[] { 2, 2 }, "float32", new float[3]));
            Assert.Throws<ArgumentException>(() => new NpyArray(new[] { 2 }, "float32", new double[2]));
            Assert.Throws<ArgumentException>(() => new NpyArray(new[] { 2 }, "bool", new bool[2]));
        }

        private static KeyValuePair<string, NpyArray> Pair(string key, NpyArray value)
        {
            return new KeyValuePair<string, NpyArray>(key, value);
        }

        private static int IndexOf(byte[] bytes, string text)
        {
            for (int i = 0; i + text.Length <= bytes.Length; i++)
            {
                bool match = true;
                for (int j = 0; j < text.Length && match; j++) match = bytes[i + j] == text[j];
                if (match) return i;
            }
            throw new InvalidOperationException(text + " not found");
        }
    }
}
