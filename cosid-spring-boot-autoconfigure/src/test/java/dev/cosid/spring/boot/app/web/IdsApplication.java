package dev.cosid.spring.boot.app.web;

import dev.cosid.IdUnavailableException;
import dev.cosid.SegmentId;
import dev.cosid.SnowflakeId;
import dev.cosid.jackson.IdAsString;
import dev.cosid.spring.boot.CosIdGenerators;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** A web application that serves ids, as a user would write it; it has no database of its own. */
@SpringBootApplication(excludeName = {
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration",
        "org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration"})
public class IdsApplication {

    /** An issued id; the id is a JSON string, so a browser keeps every digit. */
    public record IssuedId(String generator, @IdAsString long id) {
    }

    @RestController
    public static class Ids {
        private final CosIdGenerators generators;
        private final SnowflakeId ids;
        private final ObjectProvider<SegmentId> numbers;

        /**
         * Takes the generators by name, and the shared Snowflake and segment generators by type; the segment
         * generator when first used, since a static slot has no store and so no segments.
         */
        public Ids(CosIdGenerators generators, SnowflakeId ids, ObjectProvider<SegmentId> numbers) {
            this.generators = generators;
            this.ids = ids;
            this.numbers = numbers;
        }

        @GetMapping("/ids/{name}")
        public IssuedId next(@PathVariable("name") String name) {
            return new IssuedId(name, generators.get(name).nextId());
        }

        @GetMapping("/by-type/{kind}")
        public IssuedId byType(@PathVariable("kind") String kind) {
            return kind.equals("segment") ? new IssuedId(numbers.getObject().name(), numbers.getObject().nextId())
                    : new IssuedId(ids.name(), ids.nextId());
        }

        @ExceptionHandler(IdUnavailableException.class)
        public ResponseEntity<Map<String, String>> unavailable(IdUnavailableException e) {
            return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                    .body(Map.of("reason", e.reason().name(), "message", String.valueOf(e.getMessage())));
        }
    }
}
