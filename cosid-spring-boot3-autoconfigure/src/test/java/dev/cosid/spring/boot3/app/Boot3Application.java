package dev.cosid.spring.boot3.app;

import dev.cosid.jackson.IdAsString;
import dev.cosid.spring.boot.CosIdGenerators;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** A Spring Boot 3.5 web application with ids over HTTP and entities stored by Hibernate ORM 6. */
@SpringBootApplication
public class Boot3Application {

    /** An issued id, a JSON string. */
    public record IssuedId(String generator, @IdAsString long id) {
    }

    /** What a client posts. */
    public record NewItem(String label) {
    }

    @RestController
    public static class Api {
        private final CosIdGenerators generators;
        private final Items items;

        public Api(CosIdGenerators generators, Items items) {
            this.generators = generators;
            this.items = items;
        }

        @GetMapping("/ids/{name}")
        public IssuedId next(@PathVariable("name") String name) {
            return new IssuedId(name, generators.get(name).nextId());
        }

        @PostMapping("/items")
        public Item create(@RequestBody NewItem request) {
            Item item = new Item();
            item.setLabel(request.label());
            return items.save(item);
        }
    }
}
