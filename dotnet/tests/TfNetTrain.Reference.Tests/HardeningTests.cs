using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using NUnit.Framework;

namespace TfNetTrain.Reference.Tests
{
    /// <summary>Readers of untrusted bytes: shapes that overflow, headers that promise more than the file holds,
    /// deep JSON, and a bounded fuzz run of each reader (TFNET_FUZZ_INPUTS sets the count; docs/security.md).</summary>
    [TestFixture]
    public class HardeningTests
    {
        private static byte[] NpyWithShape(string shape, int dataBytes)
        {
            string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
            int padding = (64 - (10 + dict.Length + 1) % 64) % 64;
            byte[] header = Encoding.ASCII.GetBytes(dict + new string(' ', padding) + "\n");
            var bytes = new List<byte> { 0x93, (byte)'N', (byte)'U', (byte)'M', (byte)'P', (byte)'Y', 1, 0,
                (byte)(header.Length & 0xff), (byte)(header.Length >> 8) };
            bytes.AddRange(header);
            bytes.AddRange(new byte[dataBytes]);
            return bytes.ToArray();
        }

        [Test]
        public void AShapeWhoseProductWrapsIsRefused()
        {
            var e = Assert.Throws<NpyFormatException>(() => Npy.Read(new MemoryStream(NpyWithShape("(65536, 65536, 65536, 65536)", 0)), "wrap"));
            StringAssert.Contains("got shape (65536, 65536, 65536, 65536)", e.Message);
            Assert.Throws<ArgumentException>(() => NpyArray.SizeOf(new[] { 65536, 65536, 65536, 65536 }));
            Assert.AreEqual(0, NpyArray.SizeOf(new[] { 65536, 65536, 65536, 65536, 0 }));
        }

        [Test]
        public void ADimensionBeyondInt32IsRefused()
        {
            var e = Assert.Throws<NpyFormatException>(() => Npy.Read(new MemoryStream(NpyWithShape("(99999999999,)", 0)), "big"));
            StringAssert.Contains("expected dimensions below 2^31", e.Message);
        }

        [Test]
        public void AHeaderPromisingMoreThanTheFileHoldsAllocatesNothing()
        {
            // 500 million float32 (2 GB) promised by a file of about 100 bytes.
            byte[] bytes = NpyWithShape("(500000000,)", 16);
            long before = GC.GetTotalMemory(true);
            var e = Assert.Throws<NpyFormatException>(() => Npy.Read(new MemoryStream(bytes), "liar"));
            StringAssert.Contains("expected at most 16 bytes of array data (the file's size)", e.Message);
            Assert.Less(GC.GetTotalMemory(false) - before, 64L << 20, "bytes allocated for a 100-byte file");
        }

        [Test]
        public void AnUnseekableShortStreamCostsOnlyWhatArrives()
        {
            byte[] bytes = NpyWithShape("(100000000,)", 16);
            var e = Assert.Throws<NpyFormatException>(() => Npy.Read(new BufferedStream(new NonSeekable(bytes)), "short"));
            StringAssert.Contains("bytes of the array data, got 16 before the end", e.Message);
        }

        [Test]
        public void DeepJsonIsRefusedWithTheLimit()
        {
            string deep = new string('[', 100000) + new string(']', 100000);
            var e = Assert.Throws<CaseFormatException>(() => ConformanceCase.ParseSpec(deep));
            StringAssert.Contains("nested at most 64 levels", e.Message);
        }

        [Test]
        public void AnOversizedCaseFileIsRefused()
        {
            string folder = TestData.NewFolder();
            try
            {
                string path = Path.Combine(folder, "demo.json");
                File.WriteAllText(path, TestData.CaseJson() + new string(' ', 17 << 20));
                var e = Assert.Throws<CaseFormatException>(() => ConformanceCase.Load(path));
                StringAssert.Contains("of at most 16777216 bytes", e.Message);
            }
            finally
            {
                Directory.Delete(folder, true);
            }
        }

        [Test]
        public void SaveSyncsTheFolderAndLoadsBack()
        {
            string folder = TestData.NewFolder();
            try
            {
                string path = Path.Combine(folder, "a.npz");
                Npz.Save(path, TestData.CaseArrays());
                Assert.AreEqual(6, Npz.Load(path).Count);
                Assert.AreEqual(new[] { "a.npz" }, Directory.GetFiles(folder).Select(Path.GetFileName).ToArray());
            }
            finally
            {
                Directory.Delete(folder, true);
            }
        }

        private static int FuzzInputs()
        {
            string value = Environment.GetEnvironmentVariable("TFNET_FUZZ_INPUTS");
            return string.IsNullOrEmpty(value) ? 1500 : int.Parse(value, System.Globalization.CultureInfo.InvariantCulture);
        }

        [TestCase("npy")]
        [TestCase("npz")]
        [TestCase("case-json")]
        [TestCase("case-files")]
        public void FuzzedInputsLoadOrGetTheTypedError(string target)
        {
            int inputs = target == "case-files" ? Math.Max(1, FuzzInputs() / 5) : FuzzInputs();
            string seedText = Environment.GetEnvironmentVariable("TFNET_FUZZ_SEED");
            int seed = string.IsNullOrEmpty(seedText) ? 20261201 : int.Parse(seedText, System.Globalization.CultureInfo.InvariantCulture);
            List<string> findings = ReaderFuzz.Run(target, inputs, seed);
            Console.WriteLine($"fuzz {target}: {inputs} inputs, seed {seed}, {findings.Count} findings");
            Assert.IsEmpty(findings, string.Join("\n", findings.Take(3)));
        }

        private sealed class NonSeekable : Stream
        {
            private readonly MemoryStream _inner;
            public NonSeekable(byte[] bytes) { _inner = new MemoryStream(bytes); }
            public override bool CanRead => true;
            public override bool CanSeek => false;
            public override bool CanWrite => false;
            public override long Length => throw new NotSupportedException();
            public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }
            public override void Flush() { }
            public override int Read(byte[] buffer, int offset, int count) => _inner.Read(buffer, offset, count);
            public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();
            public override void SetLength(long value) => throw new NotSupportedException();
            public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
        }
    }
}
