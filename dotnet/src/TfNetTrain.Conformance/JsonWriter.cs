using System;
using System.Collections;
using System.Globalization;
using System.IO;
using System.Text;

namespace TfNetTrain.Conformance
{
    /// <summary>
    /// Writes JSON as Python's <c>json.dumps(doc, indent=2)</c> lays it out. Non-finite doubles become the strings
    /// "inf", "-inf" and "nan" (the report schema's rule); integral doubles keep a ".0".
    /// </summary>
    public static class JsonWriter
    {
        /// <summary>The document as indented JSON text.</summary>
        public static string Serialize(object value)
        {
            var sb = new StringBuilder();
            Write(sb, value, 0);
            return sb.ToString();
        }

        /// <summary>Writes the document and a final newline to <paramref name="path"/> (UTF-8, no byte order mark).</summary>
        public static void WriteFile(string path, object value)
        {
            if (path == null) throw new ArgumentNullException(nameof(path));
            File.WriteAllText(path, Serialize(value) + "\n", new UTF8Encoding(false));
        }

        private static void Write(StringBuilder sb, object value, int depth)
        {
            if (value == null) { sb.Append("null"); return; }
            if (value is bool) { sb.Append((bool)value ? "true" : "false"); return; }
            var text = value as string;
            if (text != null) { WriteString(sb, text); return; }
            if (value is int || value is long || value is short || value is byte)
            {
                sb.Append(Convert.ToInt64(value, CultureInfo.InvariantCulture).ToString(CultureInfo.InvariantCulture));
                return;
            }
            if (value is double || value is float)
            {
                double d = Convert.ToDouble(value, CultureInfo.InvariantCulture);
                if (double.IsNaN(d)) WriteString(sb, "nan");
                else if (double.IsInfinity(d)) WriteString(sb, d > 0 ? "inf" : "-inf");
                else sb.Append(PyFormat.Json(d));
                return;
            }
            var obj = value as JsonObject;
            if (obj != null) { WriteObject(sb, obj, depth); return; }
            var sequence = value as IEnumerable;
            if (sequence != null) { WriteArray(sb, sequence, depth); return; }
            throw new ArgumentException("value: cannot write a " + value.GetType().FullName + " as JSON", nameof(value));
        }

        private static void WriteObject(StringBuilder sb, JsonObject obj, int depth)
        {
            if (obj.Count == 0) { sb.Append("{}"); return; }
            sb.Append('{');
            bool first = true;
            foreach (var member in obj)
            {
                sb.Append(first ? "\n" : ",\n");
                first = false;
                Indent(sb, depth + 1);
                WriteString(sb, member.Key);
                sb.Append(": ");
                Write(sb, member.Value, depth + 1);
            }
            sb.Append('\n');
            Indent(sb, depth);
            sb.Append('}');
        }

        private static void WriteArray(StringBuilder sb, IEnumerable items, int depth)
        {
            bool first = true;
            foreach (object item in items)
            {
                sb.Append(first ? "[\n" : ",\n");
                first = false;
                Indent(sb, depth + 1);
                Write(sb, item, depth + 1);
            }
            if (first) { sb.Append("[]"); return; }
            sb.Append('\n');
            Indent(sb, depth);
            sb.Append(']');
        }

        private static void Indent(StringBuilder sb, int depth)
        {
            sb.Append(' ', 2 * depth);
        }

        private static void WriteString(StringBuilder sb, string text)
        {
            sb.Append('"');
            foreach (char c in text)
            {
                switch (c)
                {
                    case '"': sb.Append("\\\""); break;
                    case '\\': sb.Append("\\\\"); break;
                    case '\n': sb.Append("\\n"); break;
                    case '\r': sb.Append("\\r"); break;
                    case '\t': sb.Append("\\t"); break;
                    case '\b': sb.Append("\\b"); break;
                    case '\f': sb.Append("\\f"); break;
                    default:
                        if (c < 0x20 || c > 0x7e) sb.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                        else sb.Append(c);
                        break;
                }
            }
            sb.Append('"');
        }
    }
}
