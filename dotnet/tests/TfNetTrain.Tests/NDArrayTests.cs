using System;
using NUnit.Framework;

namespace TfNetTrain.Tests
{
    [TestFixture]
    public class NDArrayTests
    {
        [Test]
        public void ConstructorWrapsDataWithShape()
        {
            var data = new float[] { 1, 2, 3, 4, 5, 6 };
            var a = new NDArray(data, 2, 3);
            CollectionAssert.AreEqual(new[] { 2, 3 }, a.Shape);
            Assert.AreEqual(DType.Float32, a.DType);
            Assert.AreEqual(6, a.Size);
            Assert.AreSame(data, a.GetData<float>(), "the constructor must not copy");
            data[0] = 42;
            Assert.AreEqual(42f, a.ToArray<float>()[0]);
        }

        [Test]
        public void NoShapeMeansVector()
        {
            var a = new NDArray(new long[] { 7 });
            CollectionAssert.AreEqual(new[] { 1 }, a.Shape);
            Assert.AreEqual(DType.Int64, a.DType);
            Assert.AreEqual(0, NDArray.Scalar(3.5).Rank);
        }

        [TestCase(DType.Float32)]
        [TestCase(DType.Float64)]
        [TestCase(DType.Int32)]
        [TestCase(DType.Int64)]
        public void EveryDTypeHasItsClrType(DType dtype)
        {
            NDArray a = NDArray.Zeros(dtype, 2, 2);
            Assert.AreEqual(dtype.ClrType(), a.Data.GetType().GetElementType());
            DType back;
            Assert.IsTrue(DTypes.TryFromNumpyName(dtype.NumpyName(), out back));
            Assert.AreEqual(dtype, back);
        }

        [Test]
        public void ShapeMismatchNamesTheParameter()
        {
            var e = Assert.Throws<TfNetTrainArgumentException>(() => new NDArray(new int[5], 2, 3));
            Assert.AreEqual("shape", e.ParamName);
            StringAssert.Contains("(2, 3)", e.Message);
            StringAssert.Contains("5", e.Message);
            Assert.Throws<TfNetTrainArgumentException>(() => new NDArray(new int[0], -1, 0));
        }

        [Test]
        public void NullDataIsRejected()
        {
            var e = Assert.Throws<ArgumentNullException>(() => new NDArray((float[])null, 1));
            Assert.AreEqual("data", e.ParamName);
            Assert.AreEqual("array", Assert.Throws<ArgumentNullException>(() => NDArray.From(null)).ParamName);
        }

        [Test]
        public void FromCopiesMultidimensionalArraysInRowMajorOrder()
        {
            var m = new float[,] { { 1, 2, 3 }, { 4, 5, 6 } };
            NDArray a = NDArray.From(m);
            CollectionAssert.AreEqual(new[] { 2, 3 }, a.Shape);
            CollectionAssert.AreEqual(new float[] { 1, 2, 3, 4, 5, 6 }, a.ToArray<float>());
            m[0, 0] = 99;
            Assert.AreEqual(1f, a.ToArray<float>()[0], "From must copy");

            var cube = new long[2, 2, 2] { { { 1, 2 }, { 3, 4 } }, { { 5, 6 }, { 7, 8 } } };
            NDArray c = NDArray.From(cube);
            Assert.AreEqual(DType.Int64, c.DType);
            CollectionAssert.AreEqual(new long[] { 1, 2, 3, 4, 5, 6, 7, 8 }, c.ToArray<long>());
            CollectionAssert.AreEqual(cube, (long[,,])c.ToMultidimensionalArray());
        }

        [Test]
        public void FromRejectsOtherElementTypes()
        {
            var e = Assert.Throws<TfNetTrainArgumentException>(() => NDArray.From(new byte[3]));
            Assert.AreEqual("array", e.ParamName);
            Assert.Throws<TfNetTrainArgumentException>(() => NDArray.From(new float[2][]));
        }

        [Test]
        public void ToArrayChecksTheElementType()
        {
            var a = new NDArray(new double[] { 1, 2 });
            var e = Assert.Throws<TfNetTrainArgumentException>(() => a.ToArray<float>());
            StringAssert.Contains("float64", e.Message);
            Assert.AreNotSame(a.GetData<double>(), a.ToArray<double>(), "ToArray must copy");
        }

        [Test]
        public void BitwiseEqualsComparesBitsNotValues()
        {
            float zero = 0f;
            var plusZero = new NDArray(new[] { zero });
            var minusZero = new NDArray(new[] { -zero });
            Assert.IsFalse(plusZero.BitwiseEquals(minusZero));
            var nan = new NDArray(new[] { float.NaN });
            Assert.IsTrue(nan.BitwiseEquals(new NDArray(new[] { float.NaN })));
            Assert.IsFalse(new NDArray(new[] { 1f, 2f }, 2).BitwiseEquals(new NDArray(new[] { 1f, 2f }, 1, 2)));
            Assert.IsFalse(new NDArray(new[] { 1 }).BitwiseEquals(new NDArray(new[] { 1L })));
        }

        [Test]
        public void CopyFromNeedsTheSameLayout()
        {
            var target = NDArray.Zeros(DType.Float32, 2, 2);
            target.CopyFrom(new NDArray(new float[] { 1, 2, 3, 4 }, 2, 2));
            CollectionAssert.AreEqual(new float[] { 1, 2, 3, 4 }, target.ToArray<float>());
            var e = Assert.Throws<TfNetTrainArgumentException>(() => target.CopyFrom(new NDArray(new float[4], 4)));
            Assert.AreEqual("source", e.ParamName);
        }
    }
}
