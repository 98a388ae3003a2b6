package dev.cosid.sample;

import dev.cosid.IdUnavailableException;
import dev.cosid.jackson.IdAsString;
import dev.cosid.jackson.IdFormat;
import dev.cosid.lease.Names;
import dev.cosid.spring.boot.CosIdGenerators;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * A small web application that serves CosId ids: {@code GET /ids/order} issues one, {@code /actuator/health}
 * shows the lease, {@code /actuator/cosid} the slot table, {@code /actuator/prometheus} the meters. Only the
 * generators of {@code cosid.generators} are served: a request for any other name answers 404 and creates
 * nothing.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * curl localhost:8080/ids/order
 * {"generator":"order","id":"918610180118151168","text":"15Mhkc7n0MS"}
 * }</pre>
 */
@SpringBootApplication
public class SampleApplication {

    /**
     * Starts the application.
     *
     * @param args Spring Boot arguments, such as {@code --server.port=8081}
     */
    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }

    /**
     * One issued id: as a decimal string (exact in a browser) and as its radix-62 text.
     *
     * <h2>Example</h2>
     * <pre>{@code
     * {"generator":"order","id":"918610180118151168","text":"15Mhkc7n0MS"}
     * }</pre>
     *
     * @param generator the id space
     * @param id the id
     * @param text the same id in radix 62
     */
    public record IssuedId(String generator, @IdAsString long id, @IdAsString(IdFormat.RADIX62) long text) {
    }

    /**
     * Serves ids.
     *
     * <h2>Example</h2>
     * <pre>{@code
     * GET /ids/order    -> 200 {"generator":"order",...}, or 503 {"reason":"CEILING",...}
     * GET /ids/nope     -> 404 {"error":"unknown_generator","message":"generator 'nope' is not served here; served: order, web"}
     * GET /ids/a%20b    -> 400 {"error":"bad_name","message":"name 'a b' contains the character U+0020; ..."}
     * }</pre>
     */
    @RestController
    public static class Ids {
        private final CosIdGenerators generators;

        /**
         * Creates the controller.
         *
         * @param generators the generators by name
         */
        public Ids(CosIdGenerators generators) {
            this.generators = generators;
        }

        /**
         * Issues an id of a configured generator; never creates one from a request.
         *
         * @param name the generator
         * @return the id, or 404 for a name not configured, or 400 for a name outside the rule of {@link Names}
         */
        @GetMapping("/ids/{name}")
        public ResponseEntity<?> next(@PathVariable("name") String name) {
            try {
                Names.require(name);
            } catch (IllegalArgumentException e) {
                return ResponseEntity.badRequest().body(Map.of("error", "bad_name", "message", e.getMessage()));
            }
            return generators.configured(name).<ResponseEntity<?>>map(ids -> {
                long id = ids.nextId();
                return ResponseEntity.ok(new IssuedId(name, id, id));
            }).orElseGet(() -> ResponseEntity.status(HttpStatus.NOT_FOUND).body(Map.of("error", "unknown_generator",
                    "message", "generator '" + name + "' is not served here; served: "
                            + String.join(", ", generators.configuredNames().stream().sorted().toList()))));
        }

        /**
         * Answers 503 while no id can be issued, naming what held it.
         *
         * @param e the refusal
         * @return the reason
         */
        @ExceptionHandler(IdUnavailableException.class)
        public ResponseEntity<Map<String, String>> unavailable(IdUnavailableException e) {
            return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                    .body(Map.of("reason", e.reason().name(), "message", String.valueOf(e.getMessage())));
        }
    }
}
