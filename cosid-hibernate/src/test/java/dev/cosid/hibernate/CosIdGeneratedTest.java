package dev.cosid.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.IdParts;
import dev.cosid.testkit.servers.PostgresServer;
import dev.cosid.testkit.servers.ServerExtension;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import java.util.ArrayList;
import java.util.List;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class CosIdGeneratedTest {

    @RegisterExtension
    static final ServerExtension<PostgresServer> POSTGRES = new ServerExtension<>(PostgresServer::started);

    @Entity(name = "Parcel")
    public static class Parcel {
        @Id
        @CosIdGenerated("parcel")
        private Long id;
        private String label;

        public Parcel() {
        }

        Parcel(String label) {
            this.label = label;
        }
    }

    @Entity(name = "Batch")
    public static class Batch {
        @Id
        @CosIdGenerated(value = "batch", layout = "SECOND")
        private long id;
    }

    @Entity(name = "Invoice")
    public static class Invoice {
        @Id
        @CosIdGenerated(value = "invoice", segment = true)
        private Long number;
    }

    @Entity(name = "Named")
    public static class Named {
        @Id
        @CosIdGenerated("named")
        private String id;
    }

    private Configuration hibernate(Class<?>... entities) {
        Configuration configuration = new Configuration();
        for (Class<?> entity : entities) {
            configuration.addAnnotatedClass(entity);
        }
        String url = POSTGRES.server().jdbcUrl();
        configuration.setProperty("hibernate.connection.url", url.substring(0, url.indexOf('?')));
        configuration.setProperty("hibernate.connection.username", "postgres");
        configuration.setProperty("hibernate.hbm2ddl.auto", "create-drop");
        configuration.setProperty("hibernate.connection.pool_size", "2");
        return configuration;
    }

    @Test
    void anEntitySavedToPostgresqlGetsItsIdFromTheNamedGenerator() {
        try (CosIdRuntime runtime = CosIdRuntime.builder().namespace("hibernate").store(POSTGRES.server().jdbcUrl())
                .ownerKey("hibernate-test").start()) {
            Configuration configuration = hibernate(Parcel.class, Batch.class);
            configuration.getProperties().put(CosIdGenerated.RUNTIME_SETTING, runtime);
            try (SessionFactory factory = configuration.buildSessionFactory()) {
                List<Long> ids = new ArrayList<>();
                factory.inTransaction(session -> {
                    for (int i = 0; i < 3; i++) {
                        Parcel parcel = new Parcel("p" + i);
                        session.persist(parcel);
                        ids.add(parcel.id);
                    }
                    session.persist(new Batch());
                });
                List<Long> stored = factory.fromSession(session -> session
                        .createSelectionQuery("select p.id from Parcel p order by p.id", Long.class).getResultList());
                assertEquals(ids, stored, "the ids in the table are the ones the generator issued, in order");
                assertEquals(3, runtime.snowflake("parcel").stats().issued());
                for (long id : stored) {
                    IdParts parts = IdLayout.MILLISECOND.parse(id);
                    assertEquals(runtime.lease().slot(), parts.slot());
                    assertTrue(parts.timestampMillis() > runtime.lease().floor());
                }
                long batchId = factory.fromSession(session -> session
                        .createSelectionQuery("select b.id from Batch b", Long.class).getSingleResult());
                assertEquals(IdLayout.SECOND, runtime.snowflake("batch", IdLayout.SECOND).layout());
                assertEquals(1, runtime.snowflake("batch", IdLayout.SECOND).stats().issued());
                assertEquals(runtime.lease().slot(), IdLayout.SECOND.parse(batchId).slot());
            }
        }
    }

    @Test
    void aSegmentEntityGetsDenseNumbersFromItsCounter() {
        try (CosIdRuntime runtime = CosIdRuntime.builder().namespace("hibernate-seg").store(POSTGRES.server().jdbcUrl())
                .ownerKey("hibernate-seg").start()) {
            Configuration configuration = hibernate(Invoice.class);
            configuration.getProperties().put(CosIdGenerated.RUNTIME_SETTING, runtime);
            try (SessionFactory factory = configuration.buildSessionFactory()) {
                long before = runtime.segment("invoice").nextId();
                factory.inTransaction(session -> {
                    for (int i = 0; i < 3; i++) {
                        session.persist(new Invoice());
                    }
                });
                List<Long> stored = factory.fromSession(session -> session
                        .createSelectionQuery("select i.number from Invoice i order by i.number", Long.class)
                        .getResultList());
                assertEquals(List.of(before + 1, before + 2, before + 3), stored, "the next numbers of the counter");
            }
        }
    }

    @Test
    void withoutARuntimeInTheSettingsTheSessionFactoryDoesNotBuild() {
        Exception e = assertThrows(Exception.class, () -> hibernate(Parcel.class).buildSessionFactory().close());
        assertTrue(rootMessage(e).contains("@CosIdGenerated(\"parcel\") on " + Parcel.class.getName()
                + ".id finds no CosIdRuntime in the Hibernate setting 'dev.cosid.hibernate.runtime'"), rootMessage(e));
    }

    @Test
    void aStringIdIsRefusedNamingTheField() {
        try (CosIdRuntime runtime = CosIdRuntime.builder().namespace("hibernate-bad").store("memory:").start()) {
            Configuration configuration = hibernate(Named.class);
            configuration.getProperties().put(CosIdGenerated.RUNTIME_SETTING, runtime);
            Exception e = assertThrows(Exception.class, () -> configuration.buildSessionFactory().close());
            assertTrue(rootMessage(e).contains("@CosIdGenerated on " + Named.class.getName()
                    + ".id needs a long or Long id, not java.lang.String"), rootMessage(e));
        }
    }

    private static String rootMessage(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append(" | ");
        }
        return all.toString();
    }
}
