package dev.cosid.spring.boot.app.jpa;

import org.springframework.data.jpa.repository.JpaRepository;

/** The items table. */
public interface Items extends JpaRepository<Item, Long> {
}
