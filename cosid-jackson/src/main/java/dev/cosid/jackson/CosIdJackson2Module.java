package dev.cosid.jackson;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.Version;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.introspect.Annotated;
import com.fasterxml.jackson.databind.introspect.NopAnnotationIntrospector;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.util.Collection;
import java.util.Objects;

/**
 * The Jackson 2 module: properties marked {@link IdAsString} are written as strings, and with
 * {@link #allLongs(IdFormat)} every {@code long} and {@code Long} is. Both read back from a string in
 * the same form or from a JSON number, so old clients that send numbers keep working.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * ObjectMapper mapper = new ObjectMapper().registerModule(new CosIdJackson2Module());
 * String json = mapper.writeValueAsString(order);   // {"id":"918610180118151168",...}
 * }</pre>
 */
public final class CosIdJackson2Module extends SimpleModule {

    private static final long serialVersionUID = 1L;

    /** Honours {@link IdAsString} and leaves other numbers alone. */
    public CosIdJackson2Module() {
        super("cosid", Version.unknownVersion());
    }

    /**
     * Returns a module that also writes every {@code long} and {@code Long} as a string in one form;
     * {@link IdAsString} still chooses the form of the properties it marks.
     *
     * @param format the form of every long
     * @return the module
     */
    public static CosIdJackson2Module allLongs(IdFormat format) {
        Objects.requireNonNull(format, "format");
        CosIdJackson2Module module = new CosIdJackson2Module();
        module.addSerializer(Long.class, new IdSerializer(format));
        module.addSerializer(Long.TYPE, new IdSerializer(format));
        module.addDeserializer(Long.class, new IdDeserializer(format, false));
        module.addDeserializer(Long.TYPE, new IdDeserializer(format, true));
        return module;
    }

    @Override
    public void setupModule(SetupContext context) {
        super.setupModule(context);
        context.insertAnnotationIntrospector(new Introspector());
    }

    private static boolean isLong(Class<?> type) {
        return type == Long.class || type == Long.TYPE;
    }

    /** Finds {@link IdAsString} on longs and on collections of them. */
    private static final class Introspector extends NopAnnotationIntrospector {
        private static final long serialVersionUID = 1L;

        @Override
        public Object findSerializer(Annotated a) {
            IdAsString marked = a.getAnnotation(IdAsString.class);
            return marked != null && isLong(a.getRawType()) ? new IdSerializer(marked.value()) : null;
        }

        @Override
        public Object findContentSerializer(Annotated a) {
            IdAsString marked = a.getAnnotation(IdAsString.class);
            return marked != null && Collection.class.isAssignableFrom(a.getRawType())
                    ? new IdSerializer(marked.value()) : null;
        }

        @Override
        public Object findDeserializer(Annotated a) {
            IdAsString marked = a.getAnnotation(IdAsString.class);
            return marked != null && isLong(a.getRawType())
                    ? new IdDeserializer(marked.value(), a.getRawType().isPrimitive()) : null;
        }

        @Override
        public Object findContentDeserializer(Annotated a) {
            IdAsString marked = a.getAnnotation(IdAsString.class);
            return marked != null && Collection.class.isAssignableFrom(a.getRawType())
                    ? new IdDeserializer(marked.value(), false) : null;
        }
    }

    private static final class IdSerializer extends StdSerializer<Long> {
        private final IdFormat format;

        private static final long serialVersionUID = 1L;

        IdSerializer(IdFormat format) {
            super(Long.class);
            this.format = format;
        }

        @Override
        public void serialize(Long value, JsonGenerator generator, SerializerProvider context) throws IOException {
            String text;
            try {
                text = format.format(value);
            } catch (IllegalArgumentException e) {
                context.reportMappingProblem("cannot write %s as a %s id: %s", value, format, e.getMessage());
                return;
            }
            generator.writeString(text);
        }
    }

    private static final class IdDeserializer extends StdDeserializer<Long> {
        private final IdFormat format;
        private final boolean primitive;

        private static final long serialVersionUID = 1L;

        IdDeserializer(IdFormat format, boolean primitive) {
            super(Long.class);
            this.format = format;
            this.primitive = primitive;
        }

        @Override
        public Long deserialize(JsonParser parser, DeserializationContext context) throws IOException {
            JsonToken token = parser.currentToken();
            if (token == JsonToken.VALUE_NUMBER_INT) {
                return parser.getLongValue();
            }
            if (token == JsonToken.VALUE_STRING) {
                String text = parser.getText();
                try {
                    return format.parse(text);
                } catch (IllegalArgumentException e) {
                    return (Long) context.handleWeirdStringValue(Long.class, text, e.getMessage());
                }
            }
            return (Long) context.handleUnexpectedToken(Long.class, parser);
        }

        @Override
        public Long getNullValue(DeserializationContext context) {
            return primitive ? 0L : null;
        }
    }
}
