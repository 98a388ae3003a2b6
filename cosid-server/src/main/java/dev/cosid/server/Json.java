package dev.cosid.server;

/** Writes JSON text into a builder: the few shapes the API answers with, no reflection. */
final class Json {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private final StringBuilder out;
    private boolean first = true;

    Json(int capacity) {
        this.out = new StringBuilder(capacity);
    }

    Json begin() {
        out.append('{');
        first = true;
        return this;
    }

    Json end() {
        out.append('}');
        first = false;
        return this;
    }

    Json beginArray(String name) {
        name(name).append('[');
        first = true;
        return this;
    }

    Json endArray() {
        out.append(']');
        first = false;
        return this;
    }

    /** Starts an object inside an array, or a named object when name is not null. */
    Json beginObject(String name) {
        if (name == null) {
            comma();
        } else {
            name(name);
        }
        out.append('{');
        first = true;
        return this;
    }

    Json field(String name, String value) {
        StringBuilder b = name(name);
        if (value == null) {
            b.append("null");
        } else {
            quote(b, value);
        }
        return this;
    }

    Json field(String name, long value) {
        name(name).append(value);
        return this;
    }

    Json field(String name, double value) {
        name(name).append(Double.isFinite(value) ? Double.toString(value) : "null");
        return this;
    }

    Json field(String name, boolean value) {
        name(name).append(value);
        return this;
    }

    Json nullField(String name) {
        name(name).append("null");
        return this;
    }

    /** Adds a number element to the current array. */
    Json element(double value) {
        comma();
        out.append(Double.isFinite(value) ? Double.toString(value) : "null");
        return this;
    }

    private StringBuilder name(String name) {
        comma();
        quote(out, name);
        return out.append(':');
    }

    private void comma() {
        if (!first) {
            out.append(',');
        }
        first = false;
    }

    @Override
    public String toString() {
        return out.toString();
    }

    static void quote(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    // below space, and the line separators some JavaScript parsers reject
                    if (c < ' ' || c == '\u2028' || c == '\u2029') {
                        b.append("\\u").append(HEX[(c >> 12) & 0xf]).append(HEX[(c >> 8) & 0xf])
                                .append(HEX[(c >> 4) & 0xf]).append(HEX[c & 0xf]);
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }
}
