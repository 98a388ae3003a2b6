package dev.cosid.jackson;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Writes a {@code long} or {@code Long} property (or the elements of a collection of them) as a JSON
 * string, and reads it back from a string in the same form or from a number.
 *
 * <p>Both {@link CosIdJacksonModule} (Jackson 3) and {@link CosIdJackson2Module} (Jackson 2) honour it;
 * the module must be registered with the mapper (the Spring Boot starter does that).
 *
 * <h2>Example</h2>
 * <pre>{@code
 * public record Order(@IdAsString long id, @IdAsString(IdFormat.RADIX62) long customer, String item) {}
 * // {"id":"918610180118151168","customer":"0B3kq7Tz0aA","item":"book"}
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.RECORD_COMPONENT})
public @interface IdAsString {

    /** Returns the form of the string; decimal by default. */
    IdFormat value() default IdFormat.DECIMAL;
}
