using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Text;

namespace TfNetTrain.Reference.Tests
{
    /// <summary>
    /// A mutation fuzzer for the readers of untrusted bytes (Npy.Read, Npz.Load, ConformanceCase.ParseSpec and
    /// ConformanceCase.Load): seed files are mutated at random (bit flips, interesting bytes and digits, inserted,
    /// deleted, duplicated or spliced chunks, truncation) and each input must either load or be refused with the
    /// reader's typed error (NpyFormatException, CaseFormatException). Any other exception, or an input that takes
    /// longer than <see cref="SlowInput"/>, is a finding, reported with the input's base64.
    /// </summary>
    public static class ReaderFuzz
    {
        public static readonly TimeSpan SlowInput = TimeSpan.FromSeconds(5);

        public static readonly string[] Targets = { "npy", "npz", "case-json", "case-files" };

        private static readonly byte[] Interesting =
            Encoding.ASCII.GetBytes("0123456789(),[]{}:'\" -.eE").Concat(new byte[] { 0, 0xff, 0x7f, 0x80, 0x93 }).ToArray();

        private static readonly string[] Tokens =
        {
            "99999999999", "65536, 65536, 65536, 65536", "2147483647", "-1", "[[[[[[[[[[[[[[[[", "{\"a\":", "1e999",
            "\"\\u0000\"", "null", "true", "0.0", "4294967296", ",", "\"type\": \"Dense\"",
        };

        /// <summary>The seeds of <paramref name="target"/>: bytes the reader accepts.</summary>
        public static List<byte[]> Seeds(string target)
        {
            var arrays = TestData.CaseArrays();
            switch (target)
            {
                case "npy":
                    return arrays.Values.Select(a =>
                    {
                        using (var m = new MemoryStream()) { Npy.Write(m, a); return m.ToArray(); }
                    }).ToList();
                case "npz":
                case "case-files":
                    return new List<byte[]> { NpzBytes(arrays, CompressionLevel.NoCompression), NpzBytes(arrays, CompressionLevel.Optimal) };
                case "case-json":
                    return new List<byte[]>
                    {
                        Encoding.UTF8.GetBytes(TestData.CaseJson()),
                        Encoding.UTF8.GetBytes(TestData.CaseJson(semantics: "tfnet", optimizer: "{\"name\": \"adam\"}")),
                    };
                default:
                    throw new ArgumentException("target: expected one of " + string.Join(", ", Targets) + ", got " + target, nameof(target));
            }
        }

        private static byte[] NpzBytes(Dictionary<string, NpyArray> arrays, CompressionLevel level)
        {
            using (var m = new MemoryStream())
            {
                using (var zip = new ZipArchive(m, ZipArchiveMode.Create, true))
                {
                    foreach (var pair in arrays)
                    {
                        using (var s = zip.CreateEntry(pair.Key + ".npy", level).Open()) Npy.Write(s, pair.Value);
                    }
                }
                return m.ToArray();
            }
        }

        /// <summary>One mutation of <paramref name="seed"/> (1 to 4 edits).</summary>
        public static byte[] Mutate(byte[] seed, Random random)
        {
            var bytes = new List<byte>(seed);
            int edits = 1 + random.Next(4);
            for (int e = 0; e < edits; e++)
            {
                int at = bytes.Count == 0 ? 0 : random.Next(bytes.Count);
                switch (random.Next(8))
                {
                    case 0:
                        if (bytes.Count > 0) bytes[at] ^= (byte)(1 << random.Next(8));
                        break;
                    case 1:
                        if (bytes.Count > 0) bytes[at] = Interesting[random.Next(Interesting.Length)];
                        break;
                    case 2:
                        bytes.InsertRange(at, Encoding.ASCII.GetBytes(Tokens[random.Next(Tokens.Length)]));
                        break;
                    case 3:
                        bytes.RemoveRange(at, Math.Min(bytes.Count - at, 1 + random.Next(16)));
                        break;
                    case 4:
                        int length = Math.Min(bytes.Count - at, 1 + random.Next(64));
                        bytes.InsertRange(random.Next(bytes.Count + 1), bytes.GetRange(at, length));
                        break;
                    case 5:
                        bytes.RemoveRange(at, bytes.Count - at);
                        break;
                    case 6:
                        for (int i = 0; i < 4 && at + i < bytes.Count; i++) bytes[at + i] = (byte)random.Next(256);
                        break;
                    default:
                        if (bytes.Count > 0) bytes[at] = (byte)(bytes[at] + random.Next(-3, 4));
                        break;
                }
            }
            return bytes.ToArray();
        }

        /// <summary>Runs <paramref name="inputs"/> mutated inputs through <paramref name="target"/>'s reader;
        /// returns the findings (empty when every input loaded or was refused with the typed error).</summary>
        public static List<string> Run(string target, int inputs, int seed)
        {
            List<byte[]> seeds = Seeds(target);
            var random = new Random(seed);
            var findings = new List<string>();
            string folder = target == "case-files" ? TestData.NewFolder() : null;
            string json = TestData.CaseJson();
            try
            {
                for (int i = 0; i < inputs && findings.Count < 10; i++)
                {
                    byte[] input = Mutate(seeds[random.Next(seeds.Count)], random);
                    var clock = Stopwatch.StartNew();
                    try
                    {
                        Read(target, input, folder, json);
                    }
                    catch (NpyFormatException)
                    {
                    }
                    catch (CaseFormatException)
                    {
                    }
                    catch (Exception e)
                    {
                        findings.Add(target + " input " + i + ": " + e.GetType().Name + ": " + e.Message + "\n  " + Convert.ToBase64String(input));
                    }
                    if (clock.Elapsed > SlowInput)
                        findings.Add(target + " input " + i + ": took " + clock.Elapsed.TotalSeconds + " s\n  " + Convert.ToBase64String(input));
                }
            }
            finally
            {
                if (folder != null) Directory.Delete(folder, true);
            }
            return findings;
        }

        private static void Read(string target, byte[] input, string folder, string json)
        {
            switch (target)
            {
                case "npy":
                    Npy.Read(new MemoryStream(input), "fuzz.npy");
                    break;
                case "npz":
                    Npz.Load(new MemoryStream(input), "fuzz.npz");
                    break;
                case "case-json":
                    ConformanceCase.ParseSpec(Encoding.UTF8.GetString(input));
                    break;
                default:
                    File.WriteAllText(Path.Combine(folder, "demo.json"), json);
                    File.WriteAllBytes(Path.Combine(folder, "demo.npz"), input);
                    ConformanceCase.Load(Path.Combine(folder, "demo.json"));
                    break;
            }
        }
    }
}
