using System;
using System.Collections.Generic;
using System.Linq;
using NUnit.Framework;
using Python.Runtime;

namespace TfNetTrain.Tests
{
    [TestFixture]
    public class ArrayExchangeTests
    {
        private static readonly int[][] Shapes =
        {
            new int[0], new[] { 0 }, new[] { 1 }, new[] { 7 }, new[] { 3, 4 }, new[] { 2, 0, 3 }, new[] { 2, 3, 4 },
            new[] { 2, 1, 3, 2, 2 },
        };

        private static NDArray Sample(DType dtype, int[] shape, int seed)
        {
            int size = shape.Aggregate(1, (a, b) => a * b);
            var random = new Random(seed);
            switch (dtype)
            {
                case DType.Float32:
                    return Wrap(Enumerable.Range(0, size).Select(_ => (float)(random.NextDouble() * 200 - 100)).ToArray(), dtype, shape);
                case DType.Float64:
                    return Wrap(Enumerable.Range(0, size).Select(_ => random.NextDouble() * 2e6 - 1e6).ToArray(), dtype, shape);
                case DType.Int32:
                    return Wrap(Enumerable.Range(0, size).Select(_ => random.Next(int.MinValue, int.MaxValue)).ToArray(), dtype, shape);
                default:
                    return Wrap(Enumerable.Range(0, size).Select(_ => ((long)random.Next() << 32) - random.Next()).ToArray(), dtype, shape);
            }
        }

        private static NDArray Wrap(Array data, DType dtype, int[] shape)
        {
            NDArray a = NDArray.Zeros(dtype, shape);
            Buffer.BlockCopy(data, 0, a.Data, 0, data.Length * dtype.ElementSize());
            return a;
        }

        [Test]
        public void FitInputsAreZeroCopyViewsOfTheCallersArray([Values(DType.Float32, DType.Float64, DType.Int32, DType.Int64)] DType dtype)
        {
            NDArray original = Sample(dtype, new[] { 2, 3 }, 5);
            var seen = PythonSetup.Runtime.Run(() =>
            {
                using (var view = ArrayExchange.ViewAsNumpy(original))
                using (var shape = view.GetAttr("shape"))
                using (var name = view.GetAttr("dtype").GetAttr("name"))
                {
                    Array.Copy(Sample(dtype, new[] { 2, 3 }, 6).Data, original.Data, original.Size); // change it in C#
                    using (var float64 = new PyString("float64"))
                    using (var copy = view.InvokeMethod("astype", float64))
                    using (var flat = copy.InvokeMethod("ravel"))
                    {
                        var values = new double[original.Size];
                        for (int i = 0; i < values.Length; i++)
                            using (var item = flat[i]) values[i] = item.As<double>();
                        return Tuple.Create(shape.ToString(), name.ToString(), values);
                    }
                }
            });
            Assert.AreEqual("(2, 3)", seen.Item1);
            Assert.AreEqual(dtype.NumpyName(), seen.Item2);
            for (int i = 0; i < original.Size; i++)
                Assert.AreEqual(original.GetDouble(i), seen.Item3[i], $"element {i} must show the change made after the view was taken");
        }

        [Test]
        public void EveryDTypeAndRankRoundTripsBitForBit([Values(DType.Float32, DType.Float64, DType.Int32, DType.Int64)] DType dtype)
        {
            for (int s = 0; s < Shapes.Length; s++)
            {
                NDArray original = Sample(dtype, Shapes[s], s);
                var python = PyScript.Run(
                    "from tfnet_train.bridge import echo, describe\n" +
                    "put('echo', echo(a))\n" +
                    "d = describe(a)\n" +
                    "put('shape', np.asarray(d['shape'], dtype=np.int64))\n" +
                    "put('dtype_ok', np.asarray(d['dtype'] == dtype_name))\n" +
                    "put('sum', np.sum(a, dtype=np.float64))\n",
                    "a", original, "dtype_name", dtype.NumpyName());
                Data.AssertBitwise(original, python["echo"], $"{dtype} {original}");
                CollectionAssert.AreEqual(original.Shape.Select(d => (long)d).ToArray(), python["shape"].ToArray<long>(), "shape seen by numpy");
                Assert.AreEqual(1, python["dtype_ok"].GetDouble(0), "dtype seen by numpy");
                double expectedSum = 0;
                for (int i = 0; i < original.Size; i++) expectedSum += original.GetDouble(i);
                Assert.AreEqual(expectedSum, python["sum"].GetDouble(0), Math.Abs(expectedSum) * 1e-12 + 1e-9, "values seen by numpy");
            }
        }

        [Test]
        public void NumpyValuesArriveInRowMajorOrder()
        {
            var python = PyScript.Run(
                "put('a', np.arange(24, dtype=np.int32).reshape(2, 3, 4))\n" +
                "put('t', np.arange(6, dtype=np.float64).reshape(2, 3).T)\n" +  // a transposed (non-contiguous) view
                "put('f16', np.array([0.5, 1.5], dtype=np.float16))\n" +
                "put('b', np.array([True, False, True]))\n" +
                "put('u8', np.array([[1, 255]], dtype=np.uint8))\n");
            Assert.AreEqual(DType.Int32, python["a"].DType);
            CollectionAssert.AreEqual(new[] { 2, 3, 4 }, python["a"].Shape);
            CollectionAssert.AreEqual(Enumerable.Range(0, 24).ToArray(), python["a"].ToArray<int>());
            CollectionAssert.AreEqual(new double[] { 0, 3, 1, 4, 2, 5 }, python["t"].ToArray<double>());
            CollectionAssert.AreEqual(new[] { 3, 2 }, python["t"].Shape);
            Assert.AreEqual(DType.Float32, python["f16"].DType, "float16 widens to float32");
            CollectionAssert.AreEqual(new[] { 0.5f, 1.5f }, python["f16"].ToArray<float>());
            Assert.AreEqual(DType.Int32, python["b"].DType, "bool widens to int32");
            CollectionAssert.AreEqual(new[] { 1, 0, 1 }, python["b"].ToArray<int>());
            CollectionAssert.AreEqual(new[] { 1, 255 }, python["u8"].ToArray<int>());
        }

        [Test]
        public void NonContiguousViewsAndPythonScalarsConvert()
        {
            NDArray fromView = PythonSetup.Runtime.Run(() =>
            {
                using (var view = PythonEngine.Eval("__import__('numpy').arange(10, dtype='int64')[::3]"))
                {
                    return NDArray.FromPython(view);
                }
            });
            CollectionAssert.AreEqual(new long[] { 0, 3, 6, 9 }, fromView.ToArray<long>());
            NDArray fromScalar = PythonSetup.Runtime.Run(() =>
            {
                using (var value = PythonEngine.Eval("2.5")) return NDArray.FromPython(value);
            });
            Assert.AreEqual(0, fromScalar.Rank);
            Assert.AreEqual(2.5, fromScalar.GetDouble(0));
        }

        [Test]
        public void UnsupportedDTypesRaiseTheArgumentException()
        {
            var e = Assert.Throws<TfNetTrainArgumentException>(() => PythonSetup.Runtime.Run(() =>
            {
                using (var value = PythonEngine.Eval("__import__('numpy').array([1+2j])")) return NDArray.FromPython(value);
            }));
            Assert.AreEqual("TypeError", e.PythonType);
            StringAssert.Contains("complex128", e.PythonMessage);
        }

        [Test]
        public void ExistingBuffersAreFilledInPlaceBothWays()
        {
            var target = NDArray.Zeros(DType.Int64, 2, 3);
            long[] storage = target.GetData<long>();
            var source = new NDArray(new double[] { 1.5, -2.5, 3.25, 4, 5, 6 }, 3, 2);
            double[] seen = PythonSetup.Runtime.Run(() =>
            {
                using (var ints = PythonEngine.Eval("__import__('numpy').arange(6, dtype='int64').reshape(2, 3) * 7"))
                using (var doubles = PythonEngine.Eval("__import__('numpy').zeros((3, 2))"))
                {
                    target.CopyFromPython(ints);
                    source.CopyToPython(doubles);
                    var e = Assert.Throws<TfNetTrainArgumentException>(() => NDArray.Zeros(DType.Int32, 2, 3).CopyFromPython(ints));
                    Assert.AreEqual("array", e.ParamName);
                    var shape = Assert.Throws<TfNetTrainArgumentException>(() => new NDArray(new double[6], 6).CopyToPython(doubles));
                    StringAssert.Contains("(3, 2)", shape.Message);
                    return NDArray.FromPython(doubles).ToArray<double>();
                }
            });
            Assert.AreSame(storage, target.GetData<long>());
            CollectionAssert.AreEqual(new long[] { 0, 7, 14, 21, 28, 35 }, storage);
            CollectionAssert.AreEqual(source.ToArray<double>(), seen);
        }

        [Test]
        public void LargeArraysCrossIntact()
        {
            var data = new float[1000003];
            for (int i = 0; i < data.Length; i++) data[i] = i * 0.25f;
            var big = new NDArray(data, data.Length);
            var python = PyScript.Run("put('b', a[::-1].copy())\nput('last', a[-1])\n", "a", big);
            Assert.AreEqual(data[data.Length - 1], (float)python["last"].GetDouble(0));
            float[] reversed = python["b"].GetData<float>();
            for (int i = 0; i < data.Length; i++)
            {
                if (reversed[i] != data[data.Length - 1 - i]) Assert.Fail($"element {i} differs");
            }
        }
    }
}
