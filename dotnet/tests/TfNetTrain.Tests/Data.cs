using System;
using System.Collections.Generic;
using System.Linq;
using NUnit.Framework;

namespace TfNetTrain.Tests
{
    /// <summary>Deterministic test data and bit-exact assertions.</summary>
    public static class Data
    {
        /// <summary>Uniform float32 values in [-1, 1) with the given shape.</summary>
        public static NDArray Uniform(int seed, params int[] shape)
        {
            var random = new Random(seed);
            var values = new float[shape.Aggregate(1, (a, b) => a * b)];
            for (int i = 0; i < values.Length; i++) values[i] = (float)(random.NextDouble() * 2 - 1);
            return new NDArray(values, shape);
        }

        /// <summary>Integer class labels in [0, classes) as int64.</summary>
        public static NDArray Labels(int seed, int count, int classes)
        {
            var random = new Random(seed);
            var values = new long[count];
            for (int i = 0; i < count; i++) values[i] = random.Next(classes);
            return new NDArray(values, count);
        }

        /// <summary>Asserts equal dtype, shape and bits.</summary>
        public static void AssertBitwise(NDArray expected, NDArray actual, string what)
        {
            Assert.IsNotNull(actual, what + ": missing");
            Assert.IsTrue(expected.BitwiseEquals(actual),
                $"{what}: expected {expected} {expected.Preview()} but got {actual} {actual.Preview()}");
        }

        /// <summary>Asserts a C# float equals (bit for bit) a float32 value computed in Python.</summary>
        public static void AssertBitwise(NDArray expected, float actual, string what)
        {
            Assert.AreEqual(0, expected.Rank, what + ": expected a scalar");
            float e = (float)expected.GetDouble(0);
            Assert.AreEqual(BitConverter.ToInt32(BitConverter.GetBytes(e), 0), BitConverter.ToInt32(BitConverter.GetBytes(actual), 0),
                $"{what}: expected {e:R} but got {actual:R}");
        }

        /// <summary>Asserts each pair of lists is bitwise equal.</summary>
        public static void AssertBitwise(IDictionary<string, NDArray> expected, string prefix, IList<NDArray> actual, string what)
        {
            int count = expected.Keys.Count(k => k.StartsWith(prefix + "/", StringComparison.Ordinal) && !k.Substring(prefix.Length + 1).Contains("/"));
            Assert.AreEqual(count, actual.Count, what + ": count");
            for (int i = 0; i < count; i++) AssertBitwise(expected[prefix + "/" + i], actual[i], $"{what}[{i}]");
        }

        /// <summary>Asserts logs equal the Python values stored under prefix/name.</summary>
        public static void AssertLogs(IDictionary<string, NDArray> expected, string prefix, IDictionary<string, float> actual)
        {
            var names = expected.Keys.Where(k => k.StartsWith(prefix + "/", StringComparison.Ordinal))
                                     .Select(k => k.Substring(prefix.Length + 1)).ToList();
            CollectionAssert.AreEquivalent(names, actual.Keys, prefix + ": metric names");
            foreach (var name in names) AssertBitwise(expected[prefix + "/" + name], actual[name], prefix + "/" + name);
        }
    }
}
