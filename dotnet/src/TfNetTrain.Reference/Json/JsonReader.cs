using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Text;

namespace TfNetTrain.Reference
{
    /// <summary>
    /// A strict RFC 8259 JSON parser: no comments, no trailing commas, no NaN/Infinity, no leading zeros,
    /// no control characters inside strings, no repeated keys in an object, nothing after the value.
    /// </summary>
    public sealed class JsonReader
    {
        /// <summary>Deepest nesting of arrays and objects accepted.</summary>
        public const int MaxDepth = 256;

        private readonly string _text;
        private int _pos;
        private int _depth;

        private JsonReader(string text)
        {
            _text = text;
        }

        /// <summary>Parses one JSON document.</summary>
        /// <exception cref="JsonParseException">The text is not valid JSON.</exception>
        public static JsonValue Parse(string text)
        {
            if (text == null) throw new ArgumentNullException(nameof(text));
            var reader = new JsonReader(text);
            if (text.Length > 0 && text[0] == '\uFEFF') reader._pos = 1;
            reader.SkipWhitespace();
            JsonValue value = reader.ParseValue();
            reader.SkipWhitespace();
            if (reader._pos < text.Length) throw reader.Error("expected the end of the document, got '" + text[reader._pos] + "'");
            return value;
        }

        /// <summary>Reads and parses a UTF-8 file.</summary>
        public static JsonValue ParseFile(string path)
        {
            return Parse(File.ReadAllText(path, new UTF8Encoding(false, true)));
        }

        private JsonValue ParseValue()
        {
            if (_pos >= _text.Length) throw Error("expected a value, got the end of the document");
            char c = _text[_pos];
            switch (c)
            {
                case '{': return ParseObject();
                case '[': return ParseArray();
                case '"': return JsonValue.FromString(ParseString());
                case 't': ParseLiteral("true"); return JsonValue.FromBoolean(true);
                case 'f': ParseLiteral("false"); return JsonValue.FromBoolean(false);
                case 'n': ParseLiteral("null"); return JsonValue.Null;
                default:
                    if (c == '-' || (c >= '0' && c <= '9')) return ParseNumber();
                    throw Error("expected a value, got '" + c + "'");
            }
        }

        private JsonValue ParseObject()
        {
            Enter();
            _pos++;
            var members = new List<KeyValuePair<string, JsonValue>>();
            var keys = new HashSet<string>(StringComparer.Ordinal);
            SkipWhitespace();
            if (Peek() == '}')
            {
                _pos++;
                _depth--;
                return JsonValue.FromObject(members);
            }
            while (true)
            {
                SkipWhitespace();
                if (Peek() != '"') throw Error(Peek() == '}' ? "expected a key after ',', got '}' (trailing comma)" : "expected a string key");
                int keyOffset = _pos;
                string key = ParseString();
                if (!keys.Add(key)) throw ErrorAt(keyOffset, "expected distinct keys, got \"" + key + "\" twice");
                SkipWhitespace();
                if (Peek() != ':') throw Error("expected ':' after a key");
                _pos++;
                SkipWhitespace();
                members.Add(new KeyValuePair<string, JsonValue>(key, ParseValue()));
                SkipWhitespace();
                char c = Peek();
                _pos++;
                if (c == ',') continue;
                if (c == '}') break;
                _pos--;
                throw Error("expected ',' or '}' in an object");
            }
            _depth--;
            return JsonValue.FromObject(members);
        }

        private JsonValue ParseArray()
        {
            Enter();
            _pos++;
            var items = new List<JsonValue>();
            SkipWhitespace();
            if (Peek() == ']')
            {
                _pos++;
                _depth--;
                return JsonValue.FromArray(items);
            }
            while (true)
            {
                SkipWhitespace();
                if (Peek() == ']') throw Error("expected a value after ',', got ']' (trailing comma)");
                items.Add(ParseValue());
                SkipWhitespace();
                char c = Peek();
                _pos++;
                if (c == ',') continue;
                if (c == ']') break;
                _pos--;
                throw Error("expected ',' or ']' in an array");
            }
            _depth--;
            return JsonValue.FromArray(items);
        }

        private string ParseString()
        {
            int start = _pos;
            _pos++;
            var sb = new StringBuilder();
            while (true)
            {
                if (_pos >= _text.Length) throw ErrorAt(start, "expected a closing '\"' for the string starting here");
                char c = _text[_pos++];
                if (c == '"') return sb.ToString();
                if (c < 0x20) throw ErrorAt(_pos - 1, string.Format("expected an escape for control character U+{0:X4} in a string", (int)c));
                if (c != '\\')
                {
                    sb.Append(c);
                    continue;
                }
                if (_pos >= _text.Length) throw Error("expected an escape character after '\\'");
                char e = _text[_pos++];
                switch (e)
                {
                    case '"': sb.Append('"'); break;
                    case '\\': sb.Append('\\'); break;
                    case '/': sb.Append('/'); break;
                    case 'b': sb.Append('\b'); break;
                    case 'f': sb.Append('\f'); break;
                    case 'n': sb.Append('\n'); break;
                    case 'r': sb.Append('\r'); break;
                    case 't': sb.Append('\t'); break;
                    case 'u':
                        if (_pos + 4 > _text.Length) throw Error("expected four hex digits after '\\u'");
                        int code;
                        string hex = _text.Substring(_pos, 4);
                        if (!int.TryParse(hex, NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out code) || hex.Trim() != hex)
                            throw Error("expected four hex digits after '\\u', got \"" + hex + "\"");
                        sb.Append((char)code);
                        _pos += 4;
                        break;
                    default:
                        throw ErrorAt(_pos - 1, "expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u, got '\\" + e + "'");
                }
            }
        }

        private JsonValue ParseNumber()
        {
            int start = _pos;
            if (Peek() == '-') _pos++;
            if (Peek() == '0')
            {
                _pos++;
                if (IsDigit(Peek())) throw Error("expected no leading zeros in a number");
            }
            else if (IsDigit(Peek()))
            {
                while (IsDigit(Peek())) _pos++;
            }
            else
            {
                throw Error("expected a digit in a number");
            }
            if (Peek() == '.')
            {
                _pos++;
                if (!IsDigit(Peek())) throw Error("expected a digit after the decimal point");
                while (IsDigit(Peek())) _pos++;
            }
            if (Peek() == 'e' || Peek() == 'E')
            {
                _pos++;
                if (Peek() == '+' || Peek() == '-') _pos++;
                if (!IsDigit(Peek())) throw Error("expected a digit in the exponent");
                while (IsDigit(Peek())) _pos++;
            }
            string text = _text.Substring(start, _pos - start);
            double value;
            bool parsed = double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out value);
            if (!parsed || double.IsInfinity(value)) throw ErrorAt(start, "expected a number within double range, got " + text);
            return JsonValue.FromNumber(value, text);
        }

        private void ParseLiteral(string literal)
        {
            if (string.CompareOrdinal(_text, _pos, literal, 0, literal.Length) != 0)
            {
                int end = _pos;
                while (end < _text.Length && char.IsLetter(_text[end])) end++;
                throw Error("expected '" + literal + "', got '" + _text.Substring(_pos, Math.Max(1, end - _pos)) + "'");
            }
            _pos += literal.Length;
        }

        private void Enter()
        {
            if (++_depth > MaxDepth) throw Error("expected nesting at most " + MaxDepth + " deep");
        }

        private char Peek()
        {
            return _pos < _text.Length ? _text[_pos] : '\0';
        }

        private static bool IsDigit(char c)
        {
            return c >= '0' && c <= '9';
        }

        private void SkipWhitespace()
        {
            while (_pos < _text.Length)
            {
                char c = _text[_pos];
                if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
                _pos++;
            }
        }

        private JsonParseException Error(string message)
        {
            return ErrorAt(_pos, message);
        }

        private JsonParseException ErrorAt(int offset, string message)
        {
            int line = 1;
            int column = 1;
            for (int i = 0; i < offset && i < _text.Length; i++)
            {
                if (_text[i] == '\n')
                {
                    line++;
                    column = 1;
                }
                else
                {
                    column++;
                }
            }
            return new JsonParseException(message, offset, line, column);
        }
    }
}
