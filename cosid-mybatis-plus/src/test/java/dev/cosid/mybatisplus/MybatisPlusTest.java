package dev.cosid.mybatisplus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.baomidou.mybatisplus.autoconfigure.MybatisPlusAutoConfiguration;
import com.baomidou.mybatisplus.core.toolkit.IdWorker;
import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.IdParts;
import dev.cosid.mybatisplus.app.Invoice;
import dev.cosid.mybatisplus.app.InvoiceMapper;
import dev.cosid.mybatisplus.app.Parcel;
import dev.cosid.mybatisplus.app.ParcelMapper;
import dev.cosid.spring.boot.CosIdAutoConfiguration;
import dev.cosid.testkit.servers.PostgresServer;
import dev.cosid.testkit.servers.ServerExtension;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.mybatis.spring.annotation.MapperScan;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Two instances of a MyBatis-Plus application, with MyBatis-Plus's own Spring Boot 4 starter, insert
 * rows with {@code IdType.ASSIGN_ID} into one PostgreSQL table: every id is one of our runtimes', none
 * repeats; an entity mapped to a segment counter gets dense numbers shared by both.
 */
class MybatisPlusTest {

    @RegisterExtension
    static final ServerExtension<PostgresServer> POSTGRES = new ServerExtension<>(PostgresServer::started);

    private static final int ROWS = 300;
    private static final IdLayout LAYOUT = CosIdIdentifierGenerator.MYBATIS_PLUS_LAYOUT;

    /** The application: MyBatis-Plus mappers over the application's DataSource. */
    @Configuration(proxyBeanMethods = false)
    @MapperScan(basePackageClasses = ParcelMapper.class)
    static class Application {
    }

    private ApplicationContextRunner runner(String namespace) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, CosIdAutoConfiguration.class,
                        CosIdMybatisPlusAutoConfiguration.class, MybatisPlusAutoConfiguration.class))
                .withUserConfiguration(Application.class)
                .withPropertyValues("spring.datasource.url=" + POSTGRES.server().jdbcUrl(), "cosid.store=datasource",
                        "cosid.namespace=" + namespace, "cosid.mybatis-plus.segments.Invoice=invoice-" + namespace);
    }

    @Test
    void twoApplicationsInsertRowsWithAssignIdIdsOfTheirOwnSlotsAndRepeatNone() {
        String namespace = "mp-" + UUID.randomUUID().toString().substring(0, 8);
        JdbcTemplate sql = new JdbcTemplate(new org.postgresql.ds.PGSimpleDataSource() {
            {
                setURL(POSTGRES.server().jdbcUrl());
            }
        });
        sql.execute("drop table if exists cosid_mp_parcel");
        sql.execute("drop table if exists cosid_mp_invoice");
        sql.execute("create table cosid_mp_parcel (id bigint primary key, label varchar(64))");
        sql.execute("create table cosid_mp_invoice (id bigint primary key, label varchar(64))");

        // an id MyBatis-Plus's own generator issued before the switch: ours continue above it
        long before = new com.baomidou.mybatisplus.core.incrementer.DefaultIdentifierGenerator(31, 31).nextId(null)
                .longValue();
        ApplicationContextRunner runner = runner(namespace);
        Map<Long, Integer> slotOf = new java.util.HashMap<>();
        List<Long> invoices = new ArrayList<>();
        runner.withPropertyValues("cosid.owner-key=mp-a").run(a -> runner.withPropertyValues("cosid.owner-key=mp-b")
                .run(b -> {
                    assertInstanceOf(CosIdIdentifierGenerator.class, a.getBean(
                            com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator.class));
                    int slotA = a.getBean(CosIdRuntime.class).lease().slot();
                    int slotB = b.getBean(CosIdRuntime.class).lease().slot();
                    assertNotEquals(slotA, slotB);
                    // IdWorker is one static of the JVM: the instance started last set it
                    assertEquals(slotB, LAYOUT.parse(IdWorker.getId()).slot(), "IdWorker is ours too");
                    for (int i = 0; i < ROWS; i++) {
                        insert(a, slotA, "a" + i, slotOf, invoices);
                        insert(b, slotB, "b" + i, slotOf, invoices);
                    }
                }));

        List<Long> stored = sql.queryForList("select id from cosid_mp_parcel", Long.class);
        assertEquals(2 * ROWS, stored.size());
        assertEquals(2 * ROWS, new HashSet<>(stored).size(), "no id twice");
        for (long id : stored) {
            assertTrue(id > before, "id " + id + " sorts after MyBatis-Plus's own " + before);
            IdParts parts = LAYOUT.parse(id);
            assertEquals(slotOf.get(id), parts.slot(), "id " + id + " carries the slot of the instance that inserted it");
        }
        List<Long> numbers = sql.queryForList("select id from cosid_mp_invoice order by id", Long.class);
        assertEquals(2 * ROWS, new HashSet<>(numbers).size(), "no invoice number twice");
        assertEquals(Set.copyOf(invoices), Set.copyOf(numbers));
        assertTrue(numbers.get(numbers.size() - 1) < 10 * ROWS + 2_000, "dense numbers of one counter: " + numbers);
    }

    private static void insert(ConfigurableApplicationContext app, int slot, String label, Map<Long, Integer> slotOf,
                               List<Long> invoices) {
        Parcel parcel = new Parcel(label);
        assertEquals(1, app.getBean(ParcelMapper.class).insert(parcel));
        slotOf.put(parcel.getId(), slot);
        Invoice invoice = new Invoice(label);
        assertEquals(1, app.getBean(InvoiceMapper.class).insert(invoice));
        invoices.add(invoice.getId());
    }
}
