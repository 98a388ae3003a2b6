package dev.cosid.spring.boot;

import java.time.Duration;
import java.time.Instant;
import java.nio.file.Path;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;

/**
 * Turns a failed start of the CosId runtime into a short report naming the {@code cosid.*} key, its
 * value and what to do, instead of a stack trace: a value of the wrong type, a value the runtime
 * refuses, a CosId 2.x key without a counterpart, or a store that does not answer.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * Description:
 * cosid.bits = '17': the bits must be 0 to 16 (2^bits slots)
 * Action:
 * Set cosid.bits to 0..16; 10 (1024 slots) is the default.
 * }</pre>
 */
public class CosIdFailureAnalyzer implements FailureAnalyzer {

    @Override
    public FailureAnalysis analyze(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof CosIdConfigurationException configuration) {
                return new FailureAnalysis(configuration.getMessage(), configuration.action(), configuration);
            }
            if (cause instanceof CosIdStartException start) {
                return new FailureAnalysis(start.getMessage(), "Check that the store " + start.store()
                        + " is reachable and that every instance of namespace '" + start.namespace()
                        + "' uses the same cosid.bits and cosid.tolerance; the message above names what held it.",
                        start);
            }
            if (cause instanceof BindException bind && bind.getName() != null
                    && bind.getName().toString().startsWith("cosid")) {
                return bind.getCause() instanceof UnboundConfigurationPropertiesException unbound
                        ? unknownKeys(bind, unbound) : bindFailure(bind);
            }
        }
        return null;
    }

    /** Keys under a prefix that refuses the keys it does not know, such as {@code cosid.leadership}. */
    private static FailureAnalysis unknownKeys(BindException bind, UnboundConfigurationPropertiesException unbound) {
        String prefix = bind.getName().toString();
        String keys = unbound.getUnboundProperties().stream()
                .map(property -> property.getName() + " = '" + property.getValue() + "'")
                .sorted().collect(java.util.stream.Collectors.joining(", "));
        String origins = unbound.getUnboundProperties().stream().filter(property -> property.getOrigin() != null)
                .map(property -> property.getName() + " comes from " + property.getOrigin())
                .sorted().collect(java.util.stream.Collectors.joining("; "));
        boolean several = unbound.getUnboundProperties().size() > 1;
        return new FailureAnalysis(keys + ": unknown key" + (several ? "s" : "") + " under " + prefix,
                "Remove or correct " + (several ? "them" : "it") + "; " + prefix + " knows " + known(prefix) + "."
                + (origins.isEmpty() ? "" : " (" + origins + ")"), bind);
    }

    private static String known(String prefix) {
        if (prefix.equals("cosid.leadership")) {
            return "enabled, member, lease, renew, stagger, revoke-margin, retry, timeout, "
                    + "roles.NAME.{lease,renew,stagger,revoke-margin}, "
                    + "kafka.{bootstrap-servers,replication-factor,properties.*}, jdbc-fence.{table,create-table}";
        }
        return "the keys docs/spring-boot.md lists";
    }

    private static FailureAnalysis bindFailure(BindException bind) {
        ConfigurationProperty property = bind.getProperty();
        String key = property != null ? property.getName().toString() : bind.getName().toString();
        String value = property != null ? String.valueOf(property.getValue()) : "?";
        Class<?> target = bind.getTarget().getType().resolve(Object.class);
        Throwable root = bind;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return new FailureAnalysis(key + " = '" + value + "' is not " + expected(target) + ": " + root.getMessage(),
                "Set " + key + " to " + expected(target) + (property != null && property.getOrigin() != null
                        ? " (it comes from " + property.getOrigin() + ")." : "."), bind);
    }

    private static String expected(Class<?> target) {
        if (target == Duration.class) {
            return "a duration such as 30s, 500ms or PT30S";
        }
        if (target == Integer.class || target == int.class || target == Long.class || target == long.class) {
            return "a whole number";
        }
        if (target == boolean.class || target == Boolean.class) {
            return "true or false";
        }
        if (target == Instant.class) {
            return "an ISO-8601 instant such as 2026-12-01T00:00:00Z";
        }
        if (target == Path.class) {
            return "a file path";
        }
        if (target.isEnum()) {
            return "one of " + java.util.Arrays.toString(target.getEnumConstants());
        }
        return "a " + target.getSimpleName();
    }
}
