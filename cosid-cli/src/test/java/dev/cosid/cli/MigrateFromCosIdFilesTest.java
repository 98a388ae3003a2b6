package dev.cosid.cli;

import static dev.cosid.cli.Migration.all;
import static dev.cosid.cli.Migration.assertAllGreaterAndNoneRepeated;
import static dev.cosid.cli.Migration.issueOurs;
import static dev.cosid.cli.Migration.migrate;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.stream.Stream;
import me.ahoo.cosid.machine.ClockBackwardsSynchronizer;
import me.ahoo.cosid.machine.LocalMachineStateStorage;
import me.ahoo.cosid.machine.ManualMachineIdDistributor;
import me.ahoo.cosid.snowflake.SafeJavaScriptSnowflakeId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Migration from CosId 2.x's local machine-state files ({@code LocalMachineStateStorage}), written by
 * CosId's own manual distributor and guarder, into static slots with state files.
 */
class MigrateFromCosIdFilesTest {

    @TempDir
    Path dir;

    private ManualMachineIdDistributor manual(int machineId, Path states) {
        return new ManualMachineIdDistributor(machineId, new LocalMachineStateStorage(states.toString()),
                ClockBackwardsSynchronizer.DEFAULT);
    }

    private static List<Path> files(Path states) throws IOException {
        try (Stream<Path> listing = Files.list(states)) {
            return listing.sorted().toList();
        }
    }

    @Test
    void cosIdsLocalStateFilesBecomeTheFloorOfAStaticSlot() throws IOException {
        Path states = dir.resolve(".cosid-machine-state");
        // the instance that crashes is the last one to issue: the bound is its last guard write + the safe guard
        LegacyInstance crashed = LegacyInstance.start(manual(3, states), "orders", "10.0.0.3:8080");
        LegacyInstance stopped = LegacyInstance.start(manual(5, states), "orders", "10.0.0.5:8080");
        LegacyInstance other = LegacyInstance.start(manual(3, states), "billing", "10.0.0.3:8080");
        stopped.issueFor(Duration.ofMillis(400));
        other.issueFor(Duration.ofMillis(100));
        other.stopCleanly();
        stopped.stopCleanly();
        crashed.issueFor(Duration.ofMillis(800));
        crashed.crash();
        // CosId names each file by the Base64 of namespace__instanceId
        String name = Base64.getEncoder().encodeToString("orders__10.0.0.3:8080".getBytes(StandardCharsets.UTF_8));
        assertTrue(files(states).contains(states.resolve(name)), files(states).toString());

        Path stateFile = dir.resolve("slot-3.state");
        Cli done = migrate("--from-file", states.toString(), "--legacy-namespace", "orders",
                "--safe-guard", LegacyInstance.SAFE_GUARD.toMillis() + "ms",
                "--to-state-file", stateFile.toString(), "--slot", "3", "--namespace", "orders");
        assertTrue(done.out().contains("(namespace 'orders', instance '10.0.0.5:8080')"), done.out());
        assertTrue(!done.out().contains("'billing'"), "--legacy-namespace skips other namespaces: " + done.out());

        long[] theirs = all(crashed, stopped);
        long[] ours = issueOurs(CosIdRuntime.builder().namespace("orders").staticSlot(3).stateFile(stateFile),
                IdLayout.MILLISECOND, theirs);
        assertEquals(3, IdLayout.MILLISECOND.parse(ours[0]).slot());
        assertAllGreaterAndNoneRepeated(theirs, ours, IdLayout.MILLISECOND);
    }

    @Test
    void safeJavaScriptMillisecondIdsOfCosId2ContinueInTheLegacyEpochLayout() {
        Path states = dir.resolve(".cosid-machine-state");
        LegacyInstance js = LegacyInstance.start(manual(2, states), "web", "10.0.0.2:8080", 3,
                SafeJavaScriptSnowflakeId::ofMillisecond);
        js.issueFor(Duration.ofMillis(500));
        js.stopCleanly();
        long[] theirs = js.ids();
        IdLayout legacy = IdLayout.SAFE_JS_MILLISECOND_LEGACY_EPOCH;

        Path stateFile = dir.resolve("web.state");
        migrate("--from-file", states.toString(), "--safe-guard", LegacyInstance.SAFE_GUARD.toMillis() + "ms",
                "--layout", "SAFE_JS_MILLISECOND_LEGACY_EPOCH", "--bits", "3",
                "--to-state-file", stateFile.toString(), "--slot", "2", "--namespace", "web");
        long[] ours = issueOurs(CosIdRuntime.builder().namespace("web").bits(3).staticSlot(2).stateFile(stateFile),
                legacy, theirs);
        assertAllGreaterAndNoneRepeated(theirs, ours, legacy);
        assertTrue(ours[ours.length - 1] < (1L << 53), "still within JavaScript's safe integers");

        // the same instant in the fixed layout is about eight times smaller: ids would sort below CosId's
        long sameInstant = IdLayout.SAFE_JS_MILLISECOND.compose(
                IdLayout.SAFE_JS_MILLISECOND.unitOf(legacy.parse(ours[0]).timestampMillis()), 2, 0);
        assertTrue(sameInstant < theirs[0], sameInstant + " against CosId's " + theirs[0]);
    }
}
