package dev.cosid.spring.boot3.app;

import dev.cosid.hibernate.CosIdGenerated;
import dev.cosid.jackson.IdAsString;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** An entity whose id comes from the generator "item". */
@Entity
public class Item {
    @Id
    @CosIdGenerated("item")
    @IdAsString
    private Long id;
    private String label;

    public Long getId() {
        return id;
    }

    public String getLabel() {
        return label;
    }

    public void setLabel(String label) {
        this.label = label;
    }
}
