using Python.Runtime;

namespace TfNetTrain.Demo
{
    /// <summary>
    /// scikit-learn's 1,797 handwritten 8x8 digits (bundled with the package, no download), split into train and
    /// test sets by tfnet_train.demo.digits_split and handed to C# as NDArrays: pixels float32 in [0, 1], labels int32.
    /// </summary>
    public sealed class DigitsData
    {
        private DigitsData() { }

        /// <summary>Training images, (n, 64).</summary>
        public NDArray XTrain { get; private set; }

        /// <summary>Training labels, (n,).</summary>
        public NDArray YTrain { get; private set; }

        /// <summary>Test images, (m, 64).</summary>
        public NDArray XTest { get; private set; }

        /// <summary>Test labels, (m,).</summary>
        public NDArray YTest { get; private set; }

        /// <summary>Pixels per image.</summary>
        public int Features => XTrain.Dim(1);

        /// <summary>Loads and splits the digits in Python (a fixed seed gives the same split every run).</summary>
        public static DigitsData Load(PythonRuntime python, double testFraction, int seed)
        {
            return python.Run(() =>
            {
                using (var demo = Py.Import("tfnet_train.demo"))
                using (var fraction = testFraction.ToPython())
                using (var pySeed = seed.ToPython())
                using (var split = demo.InvokeMethod("digits_split", fraction, pySeed))
                {
                    var parts = new NDArray[4];
                    for (int i = 0; i < parts.Length; i++)
                    {
                        using (var item = split.GetItem(i)) parts[i] = NDArray.FromPython(item);
                    }
                    return new DigitsData { XTrain = parts[0], YTrain = parts[1], XTest = parts[2], YTest = parts[3] };
                }
            });
        }
    }
}
