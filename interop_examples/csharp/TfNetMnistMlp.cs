// A TensorFlow.NET Keras program (an MNIST-style MLP: Sequential, add, compile, fit, evaluate, predict) running on
// tfnet-train: only its `using` lines differ from the TF.NET original, and keras.datasets.digits (scikit-learn's
// bundled 8x8 digits, 64 pixels) stands in for keras.datasets.mnist (no download).
//
// Run:  make build && mono dotnet/bin/TfNetMnistMlp.exe [--epochs 10]
using System;
using System.Linq;
using TfNetTrain;
using TfNetTrain.TensorFlowNet;
using static TfNetTrain.TensorFlowNet.Binding;
using static TfNetTrain.TensorFlowNet.KerasApi;

namespace TfNetTrain.Examples
{
    public static class TfNetMnistMlp
    {
        public static int Main(string[] args)
        {
            int i = Array.IndexOf(args, "--epochs");
            int epochs = i >= 0 && i + 1 < args.Length ? int.Parse(args[i + 1]) : 10;

            tf.set_random_seed(0);
            var data = keras.datasets.digits.load_data();  // TF.NET: var ((x_train, y_train), (x_test, y_test)) = ... (mcs lacks that syntax)
            NDArray x_train = data.Train.Item1, y_train = data.Train.Item2, x_test = data.Test.Item1, y_test = data.Test.Item2;

            var model = keras.Sequential();
            model.add(keras.layers.Dense(64, activation: "relu", input_shape: 64));
            model.add(keras.layers.Dropout(0.1f));
            model.add(keras.layers.Dense(10));
            model.summary();

            model.compile(optimizer: keras.optimizers.Adam(learning_rate: 0.005f),
                          loss: keras.losses.SparseCategoricalCrossentropy(from_logits: true),
                          metrics: new[] { "accuracy" });
            var history = model.fit(x_train, y_train, batch_size: 32, epochs: epochs, verbose: 0, validation_split: 0.1f);
            for (int e = 0; e < epochs; e++)
                print($"epoch {e + 1}/{epochs}: loss {history["loss"][e]:F4}  accuracy {history["accuracy"][e]:F4}  val_accuracy {history["val_accuracy"][e]:F4}");

            var result = model.evaluate(x_test, y_test, verbose: 0);
            print($"test: loss {result["loss"]:F4}  accuracy {result["accuracy"]:F4}");

            var logits = model.predict(x_test);
            var predicted = tf.argmax(logits, 1).ToArray<long>();
            var labels = y_test.ToArray<int>();
            int correct = Enumerable.Range(0, labels.Length).Count(k => predicted[k] == labels[k]);
            print($"predict: {correct}/{labels.Length} correct, accuracy {(float)correct / labels.Length:F4}");
            return 0;
        }
    }
}
