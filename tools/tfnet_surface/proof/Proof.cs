// Calls generated members from C# and prints each result as JSON (dtype, shape, values), one line per case:
// `case<TAB>json`. proof.py makes the same calls in Python and compares. Cases are TF.NET programs' calls, unchanged
// but for reaching tf/keras through the generated classes (new tensorflow(), new KerasInterface()).
using System;
using System.Collections.Generic;
using System.IO;
using Python.Runtime;
using Tensorflow;
using Tensorflow.Keras;
using TfNetTrain;
using Face = TfNetTrain.TensorFlowNet.Binding;
using Tensor = TfNetTrain.TensorFlowNet.Tensor;
using Tensors = TfNetTrain.TensorFlowNet.Tensors;
using Shape = TfNetTrain.TensorFlowNet.Shape;
using TF_DataType = TfNetTrain.TensorFlowNet.TF_DataType;

public static class Proof
{
    private static PyObject _describe;

    private static void Print(string name, Func<object> call)
    {
        string json;
        try
        {
            object value = call();
            json = FaceCodec.Run(() =>
            {
                if (_describe == null)
                {
                    using (PyObject module = PyModule.FromString("proof_describe", DescribeSource))
                        _describe = module.GetAttr("describe");
                }
                using (PyObject py = FaceCodec.ToPython(value))
                using (PyObject text = _describe.Invoke(py))
                    return text.As<string>();
            });
        }
        catch (Exception e)
        {
            string python = e is TfNetTrainException t ? t.PythonType ?? "" : "";
            json = "{\"error\": \"" + e.GetType().Name + "\", \"python\": \"" + python + "\"}";
            Console.Error.WriteLine(name + ": " + e);
        }
        Console.WriteLine(name + "\t" + json);
    }

    // A complex64 tensor of the given real and imaginary parts and shape (made in Python: the face has no complex dtype).
    private static Tensor Complex(float[] real, float[] imag, params int[] shape) => FaceCodec.Run(() =>
    {
        using (PyObject tf = Py.Import("tensorflow"))
        using (PyObject re = FaceCodec.ToPython(real))
        using (PyObject im = FaceCodec.ToPython(imag))
        using (PyObject c = tf.InvokeMethod("complex", re, im))
        using (PyObject dims = FaceCodec.ToPython(shape))
        using (PyObject shaped = tf.InvokeMethod("reshape", c, dims))
            return FaceCodec.FromPython<Tensor>(shaped);
    });

    // Results as proof.py's describe() writes them (the same function, so both sides are shown alike).
    public static string DescribeSource = "";

    public static int Main(string[] args)
    {
        DescribeSource = File.ReadAllText(args[0]);
        string folder = args[1];
        var tf = new tensorflow();
        var keras = new KerasInterface();
        var face = Face.tf;

        Tensor a = face.constant(new float[,] { { 4f, 1f }, { 2f, 3f } });
        var pixels = new float[2, 3, 3];
        var batch = new float[1, 2, 3, 3];
        for (int i = 0; i < 18; i++)
        {
            pixels[i / 9, i / 3 % 3, i % 3] = i / 17f;
            batch[0, i / 9, i / 3 % 3, i % 3] = i / 17f;
        }
        var large = new float[16, 16, 3];
        var largeBatch = new float[1, 16, 16, 3];
        for (int y = 0; y < 16; y++)
            for (int x = 0; x < 16; x++)
                for (int c = 0; c < 3; c++)
                {
                    large[y, x, c] = (y * 7 + x * 3 + c * 5) % 17 / 17f;
                    largeBatch[0, y, x, c] = large[y, x, c];
                }
        Tensor image = face.constant(pixels);
        Tensor images = face.constant(batch);
        Tensor big = face.constant(large);
        Tensor bigs = face.constant(largeBatch);
        Tensor other = face.constant(pixels) * 0.5f;
        Tensor text = face.constant("HeLLo wOrld");
        Tensor ints = face.constant(new int[] { 12, 10, 7 });
        Tensor shifts = face.constant(new int[] { 1, 2, 3 });
        Tensor boxes = face.constant(new float[,] { { 0f, 0f, 1f, 1f }, { 0f, 0.1f, 1f, 1.1f }, { 0f, -0.1f, 1f, 0.9f }, { 0f, 10f, 1f, 11f } });
        Tensor scores = face.constant(new float[] { 0.9f, 0.75f, 0.6f, 0.95f });
        Tensor overlaps = face.constant(new float[,] { { 1f, 0.7f, 0.2f }, { 0.7f, 1f, 0f }, { 0.2f, 0f, 1f } });
        Tensor three = face.constant(new float[] { 0.9f, 0.6f, 0.8f });
        Tensor signal = Complex(new float[] { 1f, 2f, 3f, 4f }, new float[] { 0f, 1f, 0f, -1f }, 4);
        Tensor signal2d = Complex(new float[] { 1f, 2f, 3f, 4f }, new float[] { 0f, 1f, 0f, -1f }, 2, 2);
        Tensor signal3d = Complex(new float[] { 1f, 2f, 3f, 4f, 5f, 6f, 7f, 8f }, new float[8], 2, 2, 2);

        Print("linalg.eye", () => tf.linalg.eye(3));
        Print("linalg.eye.columns", () => tf.linalg.eye(2, num_columns: 3, dtype: TF_DataType.TF_FLOAT));
        Print("linalg.batch_matmul", () => tf.linalg.batch_matmul(a, a, adj_y: true));
        Print("linalg.einsum", () => tf.linalg.einsum("ij,jk->ik", new Tensors(a, a)));
        Print("linalg.qr", () => tf.linalg.qr(a));
        Print("linalg.norm.axis", () => tf.linalg.norm(a, axis: 1));
        Print("linalg.inv", () => tf.linalg.inv(a));
        Print("linalg.l2_normalize", () => tf.linalg.l2_normalize(a));
        Print("linalg.inv.not_square", () => tf.linalg.inv(face.constant(new float[,] { { 1f, 2f, 3f } })));
        Print("linalg.diag", () => tf.linalg.diag(face.constant(new float[] { 1f, 2f })));
        Print("linalg.matmul", () => tf.linalg.matmul(a, a));
        Print("linalg.global_norm", () => tf.linalg.global_norm(new[] { a, a }));
        Print("linalg.lstsq", () => tf.linalg.lstsq(a, face.constant(new float[,] { { 1f }, { 2f } })));
        Print("linalg.tensor_diag_part", () => tf.linalg.tensor_diag_part(a));
        Print("linalg.tensordot", () => tf.linalg.tensordot(a, a, new int[,] { { 1 }, { 0 } }));
        Print("image.flip_left_right", () => tf.image.flip_left_right(image));
        Print("image.flip_up_down", () => tf.image.flip_up_down(image));
        Print("image.rot90", () => tf.image.rot90(image, k: 2));
        Print("image.transpose", () => tf.image.transpose(image));
        Print("image.central_crop", () => tf.image.central_crop(image, 0.5f));
        Print("image.pad_to_bounding_box", () => tf.image.pad_to_bounding_box(image, 1, 2, 4, 6));
        Print("image.crop_to_bounding_box", () => tf.image.crop_to_bounding_box(big, 2, 3, 5, 4));
        Print("image.resize_image_with_crop_or_pad", () => tf.image.resize_image_with_crop_or_pad(image, 4, 2));
        Print("image.resize_images", () => tf.image.resize_images(image, face.constant(new int[] { 4, 6 }), antialias: false));
        Print("image.resize_images.5", () => tf.image.resize_images(image, face.constant(new int[] { 4, 6 }), "nearest", false, "r"));
        Print("image.resize_images_v2", () => tf.image.resize_images_v2(image, new Shape(4, 6)));
        Print("image.resize_images_v2.tensor", () => tf.image.resize_images_v2(image, face.constant(new int[] { 3, 5 }), method: "bicubic"));
        Print("image.resize_images_with_pad", () => tf.image.resize_images_with_pad(image, 4, 4, "bilinear", false));
        Print("image.resize", () => tf.image.resize(image, new Shape(5, 5)));
        Print("image.resize.tensor", () => tf.image.resize(image, face.constant(new int[] { 2, 2 }), "area"));
        Print("image.resize_bilinear", () => tf.image.resize_bilinear(images, face.constant(new int[] { 4, 6 })));
        Print("image.resize_nearest_neighbor", () => tf.image.resize_nearest_neighbor(images, new int[] { 4, 6 }));
        Print("image.per_image_standardization", () => tf.image.per_image_standardization(image));
        Print("image.adjust_brightness", () => tf.image.adjust_brightness(image, 0.25f));
        Print("image.adjust_contrast", () => tf.image.adjust_contrast(image, 2f));
        Print("image.adjust_contrast.tensor", () => tf.image.adjust_contrast(image, face.constant(0.5f)));
        Print("image.adjust_gamma", () => tf.image.adjust_gamma(image, 2, 3));
        Print("image.adjust_hue", () => tf.image.adjust_hue(image, 0.2f));
        Print("image.adjust_hue.tensor", () => tf.image.adjust_hue(image, face.constant(-0.1f)));
        Print("image.adjust_saturation", () => tf.image.adjust_saturation(image, 1.5f));
        Print("image.adjust_saturation.tensor", () => tf.image.adjust_saturation(image, face.constant(0.5f)));
        Print("image.adjust_jpeg_quality", () => tf.image.adjust_jpeg_quality(big, face.constant(60)));
        Print("image.rgb_to_grayscale", () => tf.image.rgb_to_grayscale(image));
        Print("image.grayscale_to_rgb", () => tf.image.grayscale_to_rgb(tf.image.rgb_to_grayscale(image)));
        Print("image.rgb_to_yiq", () => tf.image.rgb_to_yiq(image));
        Print("image.yiq_to_rgb", () => tf.image.yiq_to_rgb(image));
        Print("image.rgb_to_yuv", () => tf.image.rgb_to_yuv(image));
        Print("image.yuv_to_rgb", () => tf.image.yuv_to_rgb(image));
        Print("image.total_variation", () => tf.image.total_variation(image));
        Print("image.psnr", () => tf.image.psnr(image, other, 1f));
        Print("image.ssim", () => tf.image.ssim(big, big * 0.9f));
        Print("image.ssim_multiscale", () => tf.image.ssim_multiscale(big, big * 0.9f, 1f, new[] { 0.5f, 0.5f }, filter_size: 3f));
        Print("image.image_gradients", () => tf.image.image_gradients(images));
        Print("image.sobel_edges", () => tf.image.sobel_edges(images));
        Print("image.convert_image_dtype", () => tf.image.convert_image_dtype(image, TF_DataType.TF_UINT8));
        Print("image.encode_png.decode_image", () => tf.image.decode_image(tf.image.encode_png(tf.image.convert_image_dtype(big, TF_DataType.TF_UINT8))));
        Print("image.encode_jpeg.decode_jpeg", () => tf.image.decode_jpeg(tf.image.encode_jpeg(tf.image.convert_image_dtype(big, TF_DataType.TF_UINT8))));
        Print("image.is_jpeg", () => tf.image.is_jpeg(tf.image.encode_png(tf.image.convert_image_dtype(big, TF_DataType.TF_UINT8))));
        Print("image.non_max_suppression", () => tf.image.non_max_suppression(boxes, scores, face.constant(3)));
        Print("image.non_max_suppression_with_overlaps", () => tf.image.non_max_suppression_with_overlaps(overlaps, three, face.constant(2)));
        Print("image.non_max_suppression_padded", () => tf.image.non_max_suppression_padded(boxes, scores, face.constant(3), pad_to_max_output_size: true));
        Print("image.combined_non_max_suppression", () => tf.image.combined_non_max_suppression(
            face.constant(new float[,,,] { { { { 0f, 0f, 1f, 1f } }, { { 0f, 0.1f, 1f, 1.1f } } } }),
            face.constant(new float[,,] { { { 0.9f }, { 0.8f } } }), 2, 2, 0.5f, 0f));
        Print("image.crop_and_resize", () => tf.image.crop_and_resize(bigs, face.constant(new float[,] { { 0f, 0f, 0.5f, 0.5f } }),
            face.constant(new int[] { 0 }), face.constant(new int[] { 3, 3 })));
        Print("image.extract_glimpse", () => tf.image.extract_glimpse(bigs, face.constant(new int[] { 4, 4 }), face.constant(new float[,] { { 0f, 0f } })));
        Print("image.draw_bounding_boxes", () => tf.image.draw_bounding_boxes(bigs, face.constant(new float[,,] { { { 0.1f, 0.1f, 0.6f, 0.6f } } })));
        Print("random:image.random_flip_up_down", () => tf.image.random_flip_up_down(image, 3));
        Print("random:image.random_flip_left_right", () => tf.image.random_flip_left_right(image));
        Print("random:image.random_brightness", () => tf.image.random_brightness(image, 0.2f));
        Print("random:image.random_contrast", () => tf.image.random_contrast(image, 0.5f, 1.5f));
        Print("random:image.random_hue", () => tf.image.random_hue(image, 0.1f));
        Print("random:image.random_saturation", () => tf.image.random_saturation(image, 0.5f, 1.5f));
        Print("random:image.random_jpeg_quality", () => tf.image.random_jpeg_quality(big, 50f, 90f));
        Print("random:image.sample_distorted_bounding_box", () => tf.image.sample_distorted_bounding_box(
            face.constant(new int[] { 16, 16, 3 }), face.constant(new float[,,] { { { 0.1f, 0.1f, 0.9f, 0.9f } } }), seed: 1));
        Print("strings.lower", () => tf.strings.lower(text));
        Print("strings.regex_replace", () => tf.strings.regex_replace(text, "[lL]+", "_"));
        Print("strings.substr", () => tf.strings.substr(text, 1, 3));
        Print("strings.substr.string", () => tf.strings.substr("abcdef", 2, 2));
        Print("strings.string_length", () => tf.strings.string_length(text));
        Print("strings.format", () => tf.strings.format("{} and {}", new[] { ints, shifts }));
        Print("strings.split", () => tf.strings.split(face.constant("a b  c")));
        Print("strings.unicode_decode_with_offsets", () => tf.strings.unicode_decode_with_offsets(face.constant("h\u00e9!"), "UTF-8"));
        Print("signal.fft", () => tf.signal.fft(signal));
        Print("signal.ifft", () => tf.signal.ifft(signal));
        Print("signal.fft2d", () => tf.signal.fft2d(signal2d));
        Print("signal.ifft2d", () => tf.signal.ifft2d(signal2d));
        Print("signal.fft3d", () => tf.signal.fft3d(signal3d));
        Print("signal.ifft3d", () => tf.signal.ifft3d(signal3d));
        Print("bitwise.bitwise_and", () => tf.bitwise.bitwise_and(ints, shifts));
        Print("bitwise.bitwise_or", () => tf.bitwise.bitwise_or(ints, shifts));
        Print("bitwise.bitwise_xor", () => tf.bitwise.bitwise_xor(ints, shifts));
        Print("bitwise.left_shift", () => tf.bitwise.left_shift(ints, shifts));
        Print("bitwise.right_shift", () => tf.bitwise.right_shift(ints, shifts));
        Print("bitwise.invert", () => tf.bitwise.invert(ints));
        Print("initializers.Orthogonal", () => keras.initializers.Orthogonal(gain: 2f, seed: 3));
        Print("initializers.HeNormal", () => keras.initializers.HeNormal(seed: 5));
        var sequences = new List<int[]> { new[] { 1, 2, 3 }, new[] { 4, 5 }, new[] { 6, 7, 8, 9, 10 } };
        Print("sequence.pad_sequences", () => keras.preprocessing.sequence.pad_sequences(sequences, maxlen: 4));
        Print("sequence.pad_sequences.post", () => keras.preprocessing.sequence.pad_sequences(sequences, padding: "post", value: 9));
        Print("io.read_file", () => tf.io.read_file(Path.Combine(folder, "a.txt")));
        Print("io.read_file.tensor", () => tf.io.read_file(face.constant(Path.Combine(folder, "sub", "b.txt"))));
        Print("io.restore_v2", () => tf.io.restore_v2(face.constant(Path.Combine(folder, "ckpt", "c-1")),
            new[] { "v/.ATTRIBUTES/VARIABLE_VALUE" }, new[] { "" }, new[] { TF_DataType.TF_FLOAT }));
        Print("io.gfile.listdir", () => tf.io.gfile.listdir(Path.Combine(folder, "sub")));
        Print("gfile.join", () => tf.gfile.join(folder, "sub", "b.txt"));
        Print("gfile.listdir", () => tf.gfile.listdir(folder));
        Print("gfile.glob", () => tf.gfile.glob(Path.Combine(folder, "*.txt")));
        Print("gfile.Walk", () => tf.gfile.Walk(Path.Combine(folder, "sub")));
        return 0;
    }
}
