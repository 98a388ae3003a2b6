package dev.cosid.jackson;

import java.util.Collection;
import java.util.Objects;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.Version;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.cfg.MapperConfig;
import tools.jackson.databind.deser.std.StdDeserializer;
import tools.jackson.databind.introspect.Annotated;
import tools.jackson.databind.introspect.NopAnnotationIntrospector;
import tools.jackson.databind.module.SimpleModule;
import tools.jackson.databind.ser.std.StdSerializer;

/**
 * The Jackson 3 module: properties marked {@link IdAsString} are written as strings, and with
 * {@link #allLongs(IdFormat)} every {@code long} and {@code Long} is. Both read back from a string in
 * the same form or from a JSON number, so old clients that send numbers keep working.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * JsonMapper mapper = JsonMapper.builder().addModule(new CosIdJacksonModule()).build();
 * String json = mapper.writeValueAsString(order);   // {"id":"918610180118151168",...}
 * }</pre>
 */
public final class CosIdJacksonModule extends SimpleModule {

    private static final long serialVersionUID = 1L;

    /** Honours {@link IdAsString} and leaves other numbers alone. */
    public CosIdJacksonModule() {
        super("cosid", Version.unknownVersion());
    }

    /**
     * Returns a module that also writes every {@code long} and {@code Long} as a string in one form;
     * {@link IdAsString} still chooses the form of the properties it marks.
     *
     * @param format the form of every long
     * @return the module
     */
    public static CosIdJacksonModule allLongs(IdFormat format) {
        Objects.requireNonNull(format, "format");
        CosIdJacksonModule module = new CosIdJacksonModule();
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
        public Object findSerializer(MapperConfig<?> config, Annotated a) {
            IdAsString marked = a.getAnnotation(IdAsString.class);
            return marked != null && isLong(a.getRawType()) ? new IdSerializer(marked.value()) : null;
        }

        @Override
        public Object findContentSerializer(MapperConfig<?> config, Annotated a) {
            IdAsString marked = a.getAnnotation(IdAsString.class);
            return marked != null && Collection.class.isAssignableFrom(a.getRawType())
                    ? new IdSerializer(marked.value()) : null;
        }

        @Override
        public Object findDeserializer(MapperConfig<?> config, Annotated a) {
            IdAsString marked = a.getAnnotation(IdAsString.class);
            return marked != null && isLong(a.getRawType())
                    ? new IdDeserializer(marked.value(), a.getRawType().isPrimitive()) : null;
        }

        @Override
        public Object findContentDeserializer(MapperConfig<?> config, Annotated a) {
            IdAsString marked = a.getAnnotation(IdAsString.class);
            return marked != null && Collection.class.isAssignableFrom(a.getRawType())
                    ? new IdDeserializer(marked.value(), false) : null;
        }
    }

    private static final class IdSerializer extends StdSerializer<Long> {
        private final IdFormat format;

        IdSerializer(IdFormat format) {
            super(Long.class);
            this.format = format;
        }

        @Override
        public void serialize(Long value, JsonGenerator generator, SerializationContext context) {
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

        IdDeserializer(IdFormat format, boolean primitive) {
            super(Long.class);
            this.format = format;
            this.primitive = primitive;
        }

        @Override
        public Long deserialize(JsonParser parser, DeserializationContext context) {
            JsonToken token = parser.currentToken();
            if (token == JsonToken.VALUE_NUMBER_INT) {
                return parser.getLongValue();
            }
            if (token == JsonToken.VALUE_STRING) {
                String text = parser.getString();
                try {
                    return format.parse(text);
                } catch (IllegalArgumentException e) {
                    return (Long) context.handleWeirdStringValue(Long.class, text, e.getMessage());
                }
            }
            return (Long) context.handleUnexpectedToken(Long.class, parser);
        }

        @Override
        public Object getNullValue(DeserializationContext context) {
            return primitive ? 0L : null;
        }
    }
}
