using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace TfNetTrain.Reference.Tests
{
    /// <summary>Deterministic inputs and temporary folders for the tests.</summary>
    internal static class TestData
    {
        /// <summary>A reproducible uniform sequence in [-1, 1) (a small linear congruential generator).</summary>
        public static double[] Uniform(int count, int seed, double scale = 1.0)
        {
            ulong state = (ulong)(seed * 7919 + 17);
            var values = new double[count];
            for (int i = 0; i < count; i++)
            {
                state = state * 6364136223846793005UL + 1442695040888963407UL;
                values[i] = scale * (((state >> 11) / (double)(1UL << 53)) * 2.0 - 1.0);
            }
            return values;
        }

        /// <summary>Values rounded to float32 and wrapped as a tensor.</summary>
        public static Tensor Float32Tensor(int[] shape, double[] values)
        {
            return new Tensor(shape, values.Select(v => (double)(float)v).ToArray());
        }

        /// <summary>A fresh empty folder under the system temp folder.</summary>
        public static string NewFolder()
        {
            string path = Path.Combine(Path.GetTempPath(), "tfnet-reference-tests-" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(path);
            return path;
        }

        /// <summary>A valid case document; <paramref name="edit"/> may change the text before it is returned.</summary>
        public static string CaseJson(string name = "demo", string semantics = "keras", string optimizer = null, string metrics = "[\"mae\"]",
            string layers = null, string loss = "{\"name\": \"mse\", \"from_logits\": false}", int batchSize = 4, int steps = 2)
        {
            optimizer = optimizer ?? "{\"name\": \"sgd\", \"learning_rate\": 0.1, \"momentum\": 0.0, \"nesterov\": false, " +
                "\"clipnorm\": null, \"clipvalue\": null, \"global_clipnorm\": null}";
            layers = layers ?? "[{\"type\": \"Dense\", \"units\": 3, \"activation\": \"relu\", \"use_bias\": true}, " +
                "{\"type\": \"Dense\", \"units\": 1, \"activation\": \"linear\"}]";
            return "{\n" +
                "  \"schema\": \"tfnet-train/case@1\",\n" +
                "  \"name\": \"" + name + "\",\n" +
                "  \"description\": \"a small case\",\n" +
                "  \"semantics\": \"" + semantics + "\",\n" +
                "  \"model\": {\"input_shape\": [2], \"layers\": " + layers + "},\n" +
                "  \"loss\": " + loss + ",\n" +
                "  \"metrics\": " + metrics + ",\n" +
                "  \"optimizer\": " + optimizer + ",\n" +
                "  \"batch_size\": " + batchSize + ",\n" +
                "  \"steps\": " + steps + ",\n" +
                "  \"tolerance\": {\"rtol\": 1e-5, \"atol\": 1e-6}\n" +
                "}\n";
        }

        /// <summary>Arrays matching <see cref="CaseJson"/>'s default model (2 -> 3 relu -> 1) for n rows.</summary>
        public static Dictionary<string, NpyArray> CaseArrays(int n = 8, bool sampleWeight = false, bool targets1d = true)
        {
            var arrays = new Dictionary<string, NpyArray>
            {
                { "weights/0", NpyArray.Float32(new[] { 2, 3 }, Uniform(6, 1, 0.8)) },
                { "weights/1", NpyArray.Float32(new[] { 3 }, Uniform(3, 2, 0.1)) },
                { "weights/2", NpyArray.Float32(new[] { 3, 1 }, Uniform(3, 3, 0.8)) },
                { "weights/3", NpyArray.Float32(new[] { 1 }, Uniform(1, 4, 0.1)) },
                { "x", NpyArray.Float32(new[] { n, 2 }, Uniform(2 * n, 5)) },
                { "y", NpyArray.Float32(targets1d ? new[] { n } : new[] { n, 1 }, Uniform(n, 6)) },
            };
            if (sampleWeight) arrays["sample_weight"] = NpyArray.Float32(new[] { n }, Uniform(n, 7).Select(v => 1.1 + v).ToArray());
            return arrays;
        }

        /// <summary>Writes a case pair into <paramref name="folder"/> and returns the JSON path.</summary>
        public static string WriteCase(string folder, string json, IDictionary<string, NpyArray> arrays, string name = "demo")
        {
            string jsonPath = Path.Combine(folder, name + ".json");
            File.WriteAllText(jsonPath, json);
            Npz.Save(Path.Combine(folder, name + ".npz"), arrays);
            return jsonPath;
        }
    }
}
