using System;
using System.Collections.Generic;
using System.Linq;
using Python.Runtime;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>TF.NET's <c>keras.preprocessing</c>: datasets read from files.</summary>
    public sealed class PreprocessingApi
    {
        internal PreprocessingApi()
        {
        }

        /// <summary>
        /// A dataset of (images, labels) batches from a folder with one sub-folder per class (TF.NET's names and
        /// defaults), read by Keras 3's <c>keras.utils.image_dataset_from_directory</c>. Images are float32
        /// (batch, height, width, channels) resized to <paramref name="image_size"/> (default 256x256); labels follow
        /// <paramref name="label_mode"/> ("int", "categorical", "binary"). As in TF.NET, <paramref name="validation_split"/>
        /// applies only when <paramref name="subset"/> is "training" or "validation" (then give a
        /// <paramref name="seed"/> when shuffling, so both subsets split the same files). The class names, in label
        /// order, are the dataset's <c>class_names</c>.
        /// </summary>
        public IDatasetV2 image_dataset_from_directory(string directory, string labels = "inferred", string label_mode = "int",
                                                       string[] class_names = null, string color_mode = "rgb", int batch_size = 32,
                                                       Shape image_size = null, bool shuffle = true, int? seed = null,
                                                       float validation_split = 0.2f, string subset = null,
                                                       string interpolation = "bilinear", bool follow_links = false)
        {
            if (directory == null) throw new ArgumentNullException(nameof(directory));
            if (batch_size < 1) throw new TfNetTrainArgumentException(nameof(batch_size), $"must be >= 1; got {batch_size}");
            if (subset != null && subset != "training" && subset != "validation")
                throw new TfNetTrainArgumentException(nameof(subset), $"must be \"training\", \"validation\" or null; got \"{subset}\"");
            if (image_size != null && (image_size.ndim != 2 || image_size[0] < 1 || image_size[1] < 1))
                throw new TfNetTrainArgumentException(nameof(image_size), $"must be (height, width) with both >= 1; got {image_size}");
            var kwargs = new Dictionary<string, object>
            {
                { "labels", labels }, { "label_mode", label_mode }, { "class_names", class_names?.ToList() },
                { "color_mode", color_mode }, { "batch_size", batch_size }, { "image_size", image_size },
                { "shuffle", shuffle }, { "seed", seed }, { "validation_split", subset == null ? null : (object)validation_split },
                { "subset", subset }, { "interpolation", interpolation }, { "follow_links", follow_links },
            };
            PythonRuntime runtime = Face.Runtime;
            return Face.Run(runtime, f =>
            {
                using (var result = Face.Invoke(f, "datasets", "image_dataset_from_directory", new object[] { directory }, kwargs))
                using (var dataset = result["dataset"])
                using (var names = result["class_names"])
                {
                    return (IDatasetV2)new DatasetV2(runtime, dataset.NewReference(), names.As<string[]>());
                }
            });
        }
    }
}
