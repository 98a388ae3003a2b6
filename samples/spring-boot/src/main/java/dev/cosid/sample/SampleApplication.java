package dev.cosid.sample;

import dev.cosid.IdUnavailableException;
import dev.cosid.jackson.IdAsString;
import dev.cosid.jackson.IdFormat;
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
 * shows the lease, {@code /actuator/cosid} the slot table, {@code /actuator/prometheus} the meters.
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
         * Issues an id.
         *
         * @param name the generator
         * @return the id
         */
        @GetMapping("/ids/{name}")
        public IssuedId next(@PathVariable("name") String name) {
            long id = generators.get(name).nextId();
            return new IssuedId(name, id, id);
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
