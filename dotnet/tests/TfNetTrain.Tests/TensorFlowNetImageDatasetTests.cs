using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using NUnit.Framework;
using TfNetTrain.TensorFlowNet;
using static TfNetTrain.TensorFlowNet.KerasApi;

namespace TfNetTrain.Tests
{
    /// <summary>keras.preprocessing.image_dataset_from_directory from C# over a folder of PNG digits.</summary>
    [TestFixture]
    public class TensorFlowNetImageDatasetTests
    {
        private string _folder;

        /// <summary>Writes 12 of scikit-learn's 8x8 digits of each class 0, 1 and 2 as grayscale PNGs (tf.io.encode_png), one folder per class.</summary>
        [TestFixtureSetUp]
        public void WriteImages()
        {
            _folder = Path.Combine(Path.GetTempPath(), "tfnet-images-" + Guid.NewGuid().ToString("N"));
            PyScript.Run(
                "import os\n" +
                "from sklearn.datasets import load_digits\n" +
                "digits = load_digits()\n" +
                "for label in range(3):\n" +
                "    os.makedirs(os.path.join(folder, str(label)))\n" +
                "    rows = np.flatnonzero(digits.target == label)[:12]\n" +
                "    for k, row in enumerate(rows):\n" +
                "        pixels = (digits.images[row] * 15).astype(np.uint8)[:, :, None]\n" +
                "        tf.io.write_file(os.path.join(folder, str(label), f'{k:02d}.png'), tf.io.encode_png(pixels))\n",
                "folder", _folder);
        }

        [TestFixtureTearDown]
        public void RemoveImages()
        {
            if (_folder != null && Directory.Exists(_folder)) Directory.Delete(_folder, true);
        }

        private static Sequential Classifier(IList<NDArray> weights)
        {
            var model = keras.Sequential();
            model.add(keras.layers.Rescaling(1f / 255, input_shape: new[] { 8, 8, 1 }));
            model.add(keras.layers.Flatten());
            model.add(keras.layers.Dense(3));
            if (weights != null) model.set_weights(weights);
            model.compile(keras.optimizers.SGD(0.5f), keras.losses.SparseCategoricalCrossentropy(from_logits: true), new[] { "accuracy" });
            return model;
        }

        [Test]
        public void FitOnImageFolderMatchesPython()
        {
            var dataset = keras.preprocessing.image_dataset_from_directory(_folder, color_mode: "grayscale", batch_size: 8,
                                                                           image_size: new[] { 8, 8 }, shuffle: false);
            CollectionAssert.AreEqual(new[] { "0", "1", "2" }, dataset.class_names);
            Assert.AreEqual(5, dataset.length, "36 images in batches of 8");
            using (var model = Classifier(null))
            {
                List<NDArray> w0 = model.get_weights();
                History history = model.fit(dataset, epochs: 3, verbose: 0);
                var expected = PyScript.Run(
                    "ds = keras.utils.image_dataset_from_directory(folder, color_mode='grayscale', batch_size=8, image_size=(8, 8), shuffle=False, verbose=False)\n" +
                    "model = tfnet_train.Sequential([keras.Input((8, 8, 1)), keras.layers.Rescaling(1 / 255), keras.layers.Flatten(), keras.layers.Dense(3)])\n" +
                    "model.set_weights(w0)\n" +
                    "model.compile(optimizers.SGD(0.5), keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=['accuracy'])\n" +
                    "h = model.fit(ds, epochs=3, verbose=0)\n" +
                    "put('loss', np.asarray(h.history['loss'], np.float32))\n" +
                    "put('w', model.get_weights())\n",
                    "folder", _folder, "w0", w0);
                Data.AssertBitwise(expected["loss"], new NDArray(history["loss"].ToArray()), "loss per epoch");
                Data.AssertBitwise(expected, "w", model.get_weights(), "weights");
                Assert.Less(history["loss"][2], history["loss"][0], "it learns");
                var accuracy = model.evaluate(dataset, verbose: 0)["accuracy"];
                Assert.Greater(accuracy, 0.5f, "three easy digit classes");
            }
        }

        [Test]
        public void SubsetsSplitTheFolderAndBadArgumentsAreTyped()
        {
            var training = keras.preprocessing.image_dataset_from_directory(_folder, color_mode: "grayscale", batch_size: 1,
                image_size: new[] { 8, 8 }, seed: 3, validation_split: 0.25f, subset: "training");
            var validation = keras.preprocessing.image_dataset_from_directory(_folder, color_mode: "grayscale", batch_size: 1,
                image_size: new[] { 8, 8 }, seed: 3, validation_split: 0.25f, subset: "validation");
            Assert.AreEqual(27, training.length);
            Assert.AreEqual(9, validation.length);
            Assert.Throws<TfNetTrainIOException>(() => keras.preprocessing.image_dataset_from_directory(Path.Combine(_folder, "missing")));
            Assert.Throws<TfNetTrainArgumentException>(() => keras.preprocessing.image_dataset_from_directory(_folder, subset: "both"));
            Assert.Throws<TfNetTrainArgumentException>(() => keras.preprocessing.image_dataset_from_directory(_folder, label_mode: "ordinal"));
            Assert.Throws<TfNetTrainArgumentException>(() => keras.preprocessing.image_dataset_from_directory(_folder, image_size: new[] { 8 }));
        }
    }
}
