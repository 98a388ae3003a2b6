package dev.cosid.spring.boot.app.jpa;

import dev.cosid.spring.boot.app.web.IdsApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** A web application with entities whose ids come from a named generator, stored by Hibernate. */
@SpringBootApplication
@Import(IdsApplication.Ids.class)
public class ItemsApplication {

    /** What a client posts. */
    public record NewItem(String label) {
    }

    @RestController
    public static class ItemsController {
        private final Items items;

        public ItemsController(Items items) {
            this.items = items;
        }

        @PostMapping("/items")
        public Item create(@RequestBody NewItem request) {
            Item item = new Item();
            item.setLabel(request.label());
            return items.save(item);
        }

        @GetMapping("/items/{id}")
        public Item read(@PathVariable("id") long id) {
            return items.findById(id).orElseThrow();
        }
    }
}
