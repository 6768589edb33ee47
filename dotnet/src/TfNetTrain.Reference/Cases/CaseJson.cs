using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Runtime.Serialization.Json;
using System.Text.RegularExpressions;
using System.Xml;
using System.Xml.Linq;

namespace TfNetTrain.Reference
{
    /// <summary>
    /// A case's JSON read with the base library's <see cref="JsonReaderWriterFactory"/>: every value is an element whose
    /// <c>type</c> attribute is <c>object</c>, <c>array</c>, <c>string</c>, <c>number</c>, <c>boolean</c> or <c>null</c>.
    /// </summary>
    internal static class CaseJson
    {
        /// <summary>Nesting deeper than this is refused (a case file nests about ten levels).</summary>
        public const int MaxDepth = 64;

        /// <summary>A case file larger than this is refused (bytes).</summary>
        public const int MaxBytes = 16 << 20;

        // Reader quotas: depth bounds the recursion of the checks below; strings and names stay below the file cap.
        private static readonly XmlDictionaryReaderQuotas Quotas = new XmlDictionaryReaderQuotas
        {
            MaxDepth = MaxDepth,
            MaxStringContentLength = MaxBytes,
            MaxArrayLength = MaxBytes,
            MaxBytesPerRead = MaxBytes,
            MaxNameTableCharCount = MaxBytes,
        };

        // The JSON number grammar: the in-box reader passes number tokens through as text without checking them.
        private static readonly Regex NumberText = new Regex(@"^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$");

        /// <summary>The document's root element; malformed JSON is a <see cref="CaseFormatException"/> on <c>(document)</c>.</summary>
        public static XElement Parse(byte[] utf8)
        {
            if (utf8 == null) throw new ArgumentNullException(nameof(utf8));
            if (utf8.Length > MaxBytes)
                throw new CaseFormatException("(document)", "a JSON document of at most " + MaxBytes + " bytes", utf8.Length + " bytes");
            int start = utf8.Length >= 3 && utf8[0] == 0xEF && utf8[1] == 0xBB && utf8[2] == 0xBF ? 3 : 0;
            XElement root;
            try
            {
                using (XmlDictionaryReader reader = JsonReaderWriterFactory.CreateJsonReader(
                    utf8, start, utf8.Length - start, Quotas))
                {
                    root = XElement.Load(reader);
                }
            }
            catch (XmlException e)
            {
                throw new CaseFormatException("(document)", "a JSON document nested at most " + MaxDepth + " levels",
                    "malformed JSON: " + e.Message);
            }
            catch (Exception e) when (e is System.Runtime.Serialization.SerializationException || e is FormatException ||
                                      e is ArgumentException || e is IndexOutOfRangeException || e is OverflowException ||
                                      e is InvalidOperationException)
            {
                // What the base library's JSON reader throws on some malformed input besides XmlException.
                throw new CaseFormatException("(document)", "a JSON document", "malformed JSON: " + e.Message);
            }
            CheckValues(root, "", 0);
            return root;
        }

        public static XElement Parse(string text)
        {
            return Parse(System.Text.Encoding.UTF8.GetBytes(text));
        }

        public static XElement ParseFile(string path)
        {
            long length = new FileInfo(path).Length;
            if (length > MaxBytes)
                throw new CaseFormatException("(document)", "a JSON document of at most " + MaxBytes + " bytes", length + " bytes in " + path);
            return Parse(File.ReadAllBytes(path));
        }

        /// <summary>The value's kind: the reader's <c>type</c> attribute (absent means string).</summary>
        public static string Kind(XElement value)
        {
            return (string)value.Attribute("type") ?? "string";
        }

        /// <summary>An object member's key (keys that are not XML names come as <c>&lt;item item="key"&gt;</c>).</summary>
        public static string Key(XElement member)
        {
            return member.Name.NamespaceName == "item" ? (string)member.Attribute("item") : member.Name.LocalName;
        }

        public static List<XElement> Items(XElement value)
        {
            return value.Elements().ToList();
        }

        public static double Number(XElement value)
        {
            return double.Parse(value.Value, NumberStyles.Float, CultureInfo.InvariantCulture);
        }

        /// <summary>Written without a fraction or exponent (so <c>4.0</c> is not an integer).</summary>
        public static bool IsInteger(XElement value)
        {
            return value.Value.IndexOfAny(new[] { '.', 'e', 'E' }) < 0;
        }

        /// <summary>The value as error messages name it: <c>string "8"</c>, <c>number 8.0</c>, <c>array of 2 items</c>, ...</summary>
        public static string Describe(XElement value)
        {
            switch (Kind(value))
            {
                case "null": return "null";
                case "boolean": return "boolean " + value.Value;
                case "number": return "number " + value.Value;
                case "array": return "array of " + value.Elements().Count() + " items";
                case "object": return "object with keys [" + string.Join(", ", value.Elements().Select(Key)) + "]";
                default:
                    string s = value.Value.Length > 40 ? value.Value.Substring(0, 40) + "..." : value.Value;
                    return "string \"" + s + "\"";
            }
        }

        private static void CheckValues(XElement value, string path, int depth)
        {
            if (depth > MaxDepth)
                throw new CaseFormatException(path.Length == 0 ? "(document)" : path, "at most " + MaxDepth + " levels of nesting", "deeper nesting");
            string kind = Kind(value);
            string where = path.Length == 0 ? "(document)" : path;
            double parsed;
            if (kind == "number" && (!NumberText.IsMatch(value.Value) ||
                !double.TryParse(value.Value, NumberStyles.Float, CultureInfo.InvariantCulture, out parsed) || double.IsInfinity(parsed)))
                throw new CaseFormatException(where, "a JSON number within double range", "the token " + value.Value);
            if (kind == "object")
            {
                var seen = new HashSet<string>(StringComparer.Ordinal);
                foreach (XElement member in value.Elements())
                {
                    string key = Key(member);
                    string child = path.Length == 0 ? key : path + "." + key;
                    if (!seen.Add(key)) throw new CaseFormatException(child, "distinct keys", "\"" + key + "\" twice");
                    CheckValues(member, child, depth + 1);
                }
            }
            else if (kind == "array")
            {
                int i = 0;
                foreach (XElement item in value.Elements()) CheckValues(item, where + "[" + i++ + "]", depth + 1);
            }
        }
    }
}
