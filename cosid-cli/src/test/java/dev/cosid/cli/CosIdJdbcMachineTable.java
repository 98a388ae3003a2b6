package dev.cosid.cli;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import me.ahoo.cosid.machine.AbstractMachineIdDistributor;
import me.ahoo.cosid.machine.ClockBackwardsSynchronizer;
import me.ahoo.cosid.machine.InstanceId;
import me.ahoo.cosid.machine.MachineIdDistributor;
import me.ahoo.cosid.machine.MachineIdLostException;
import me.ahoo.cosid.machine.MachineState;
import me.ahoo.cosid.machine.MachineStateStorage;

/**
 * CosId 2.x's JDBC machine-id distributor as a test double that writes what the real one writes.
 *
 * <p>{@code me.ahoo.cosid:cosid-jdbc} is not served by the package registry this build reaches, so
 * this class stands in for {@code JdbcMachineIdDistributor}: it extends CosId's own
 * {@link AbstractMachineIdDistributor} (local state, clock-backwards checks, the revert and guard
 * flow are CosId's code) and runs the statements that CosId 2.13.3's distributor runs on the table
 * that its published DDL creates ({@code JdbcMachineIdInitializer}, {@code init-cosid-mysql.sql}).
 */
final class CosIdJdbcMachineTable extends AbstractMachineIdDistributor {

    /** CosId's DDL for MySQL and MariaDB, as published. */
    static final String MYSQL_DDL = "create table if not exists cosid_machine\n"
            + "(\n"
            + "    name            varchar(100)     not null comment '{namespace}.{machine_id}',\n"
            + "    namespace       varchar(100)     not null,\n"
            + "    machine_id      integer unsigned not null default 0,\n"
            + "    last_timestamp  bigint unsigned  not null default 0,\n"
            + "    instance_id     varchar(100)     not null default '',\n"
            + "    distribute_time bigint unsigned  not null default 0,\n"
            + "    revert_time     bigint unsigned  not null default 0,\n"
            + "    constraint cosid_machine_pk\n"
            + "        primary key (name)\n"
            + ") engine = InnoDB";

    /** The same table for PostgreSQL, which has no {@code unsigned}, column comments or engines. */
    static final String POSTGRES_DDL = "create table if not exists cosid_machine\n"
            + "(\n"
            + "    name            varchar(100) not null,\n"
            + "    namespace       varchar(100) not null,\n"
            + "    machine_id      integer      not null default 0,\n"
            + "    last_timestamp  bigint       not null default 0,\n"
            + "    instance_id     varchar(100) not null default '',\n"
            + "    distribute_time bigint       not null default 0,\n"
            + "    revert_time     bigint       not null default 0,\n"
            + "    constraint cosid_machine_pk primary key (name)\n"
            + ")";

    private final String url;

    CosIdJdbcMachineTable(String url, MachineStateStorage storage) {
        super(storage, ClockBackwardsSynchronizer.DEFAULT);
        this.url = url;
    }

    /** Creates the table with CosId's DDL, then its two indexes. */
    static void create(String url, String ddl) throws SQLException {
        try (Connection connection = DriverManager.getConnection(url); Statement statement = connection.createStatement()) {
            statement.execute(ddl);
            statement.execute("create index idx_namespace on cosid_machine (namespace)");
            statement.execute("create index idx_instance_id on cosid_machine (instance_id)");
        }
    }

    @Override
    protected MachineState distributeRemote(String namespace, int machineBit, InstanceId instanceId, Duration safeGuard) {
        long safeGuardAt = MachineIdDistributor.getSafeGuardAt(safeGuard, instanceId.isStable());
        try (Connection connection = DriverManager.getConnection(url)) {
            try (PreparedStatement self = connection.prepareStatement("select machine_id, last_timestamp from "
                    + "cosid_machine where namespace=? and instance_id=? and last_timestamp>?")) {
                self.setString(1, namespace);
                self.setString(2, instanceId.getInstanceId());
                self.setLong(3, safeGuardAt);
                try (ResultSet row = self.executeQuery()) {
                    if (row.next()) {
                        MachineState state = MachineState.of(row.getInt(1), System.currentTimeMillis());
                        guardRemote(namespace, instanceId, state, safeGuard);
                        return state;
                    }
                }
            }
            try (PreparedStatement reverted = connection.prepareStatement("select machine_id, last_timestamp from "
                    + "cosid_machine where namespace=? and (instance_id='' or last_timestamp<=?)")) {
                reverted.setString(1, namespace);
                reverted.setLong(2, safeGuardAt);
                try (ResultSet row = reverted.executeQuery()) {
                    if (row.next()) {
                        int machineId = row.getInt(1);
                        long lastTimestamp = row.getLong(2);
                        try (PreparedStatement take = connection.prepareStatement("update cosid_machine set "
                                + "instance_id=?,last_timestamp=?,distribute_time=? where name=? and "
                                + "(instance_id='' or last_timestamp<=?)")) {
                            take.setString(1, instanceId.getInstanceId());
                            take.setLong(2, System.currentTimeMillis());
                            take.setLong(3, System.currentTimeMillis());
                            take.setString(4, MachineIdDistributor.namespacedMachineId(namespace, machineId));
                            take.setLong(5, safeGuardAt);
                            if (take.executeUpdate() > 0) {
                                return MachineState.of(machineId, lastTimestamp);
                            }
                        }
                    }
                }
            }
            int next;
            try (PreparedStatement max = connection.prepareStatement(
                    "select max(machine_id)+1 as next_machine_id from cosid_machine where namespace=?")) {
                max.setString(1, namespace);
                try (ResultSet row = max.executeQuery()) {
                    next = row.next() ? row.getInt(1) : 0;
                }
            }
            MachineState state = MachineState.of(next, System.currentTimeMillis());
            try (PreparedStatement insert = connection.prepareStatement("insert into cosid_machine (name, namespace, "
                    + "machine_id, last_timestamp, instance_id, distribute_time, revert_time) values (?,?,?,?,?,?,0)")) {
                insert.setString(1, MachineIdDistributor.namespacedMachineId(namespace, next));
                insert.setString(2, namespace);
                insert.setInt(3, next);
                insert.setLong(4, state.getLastTimeStamp());
                insert.setString(5, instanceId.getInstanceId());
                insert.setLong(6, System.currentTimeMillis());
                insert.executeUpdate();
            }
            return state;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    protected void revertRemote(String namespace, InstanceId instanceId, MachineState state) {
        update("update cosid_machine set instance_id=?,last_timestamp=?,revert_time=? where namespace=? and instance_id=?",
                instanceId.isStable() ? instanceId.getInstanceId() : "", state.getLastTimeStamp(),
                System.currentTimeMillis(), namespace, instanceId.getInstanceId());
    }

    @Override
    protected void guardRemote(String namespace, InstanceId instanceId, MachineState state, Duration safeGuard) {
        int affected = update("update cosid_machine set last_timestamp=? where namespace=? and instance_id=? and machine_id=?",
                state.getLastTimeStamp(), namespace, instanceId.getInstanceId(), state.getMachineId());
        if (affected == 0) {
            throw new MachineIdLostException(namespace, instanceId, state);
        }
    }

    private int update(String sql, Object... values) {
        try (Connection connection = DriverManager.getConnection(url);
             PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
                statement.setObject(i + 1, values[i]);
            }
            return statement.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
