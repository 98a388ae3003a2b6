package dev.cosid;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.SlotLease;
import dev.cosid.time.ManualClock;
import dev.cosid.time.ManualScheduler;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Static slots: the ceiling on disk before any id, moved ahead in the background, and bad state files. */
class StaticSlotTest {

    private static final long T0 = 1_800_000_000_000L;

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(T0);
    private final ManualScheduler scheduler = new ManualScheduler(clock);

    private Path file() {
        return dir.resolve("state");
    }

    private CosIdRuntime.Builder builder() {
        return CosIdRuntime.builder().namespace("orders").staticSlot(3).stateFile(file())
                .ahead(Duration.ofSeconds(10)).clock(clock).scheduler(scheduler).maxWait(Duration.ZERO);
    }

    private long ceilingOnDisk() {
        return StateFile.read(file()).orElseThrow().ceiling();
    }

    @Test
    void theCeilingIsOnDiskBeforeTheFirstId() {
        try (CosIdRuntime runtime = builder().start()) {
            assertEquals(T0 + 10_000, ceilingOnDisk());
            SlotLease lease = runtime.lease();
            assertEquals(3, lease.slot());
            assertEquals(0, lease.floor());
            assertEquals(ceilingOnDisk(), lease.ceiling());
            assertEquals(3, IdLayout.MILLISECOND.parse(runtime.snowflake("order").nextId()).slot());
        }
    }

    @Test
    void theCeilingMovesAheadWhenLessThanHalfOfAheadRemainsAndIdsNeverPassIt() {
        try (CosIdRuntime runtime = builder().start()) {
            SnowflakeId ids = runtime.snowflake("order");
            clock.advance(Duration.ofMillis(4_000));
            scheduler.runDue();
            assertEquals(T0 + 10_000, ceilingOnDisk(), "6 s remain: not yet");
            clock.advance(Duration.ofMillis(1_500));
            scheduler.runNext();
            long moved = ceilingOnDisk();
            assertTrue(moved > T0 + 10_000, "moved to " + moved);
            assertEquals(moved, runtime.lease().ceiling());
            // a clock that runs past the ceiling on disk before the keeper runs gets no id
            clock.set(moved + 1);
            assertThrows(IdUnavailableException.class, ids::nextId);
            scheduler.runNext();
            assertTrue(ceilingOnDisk() > clock.nowMillis(), "the keeper moved the ceiling past the clock");
            assertEquals(clock.nowMillis(), IdLayout.MILLISECOND.parse(ids.nextId()).timestampMillis());
        }
    }

    @Test
    void aRestartStartsPastTheCeilingOnDiskWhateverTheClockSays() {
        try (CosIdRuntime runtime = builder().start()) {
            runtime.snowflake("order").nextId();
        }
        long last = ceilingOnDisk();
        assertEquals(T0, last, "a clean close writes the exact last issued millisecond");
        clock.set(T0 - 3_600_000); // the clock was set back an hour
        try (CosIdRuntime again = builder().maxWait(Duration.ofHours(2)).start()) {
            assertEquals(T0, again.lease().floor());
            long id = again.snowflake("order").nextId();
            assertTrue(IdLayout.MILLISECOND.parse(id).timestampMillis() > T0);
        }
    }

    @Test
    void notBeforeIsTheFloorWhileNoFileExistsAndNeverLowersTheFileCeiling() {
        Instant later = Instant.ofEpochMilli(T0 + 60_000);
        try (CosIdRuntime runtime = builder().notBefore(later).start()) {
            assertEquals(later.toEpochMilli(), runtime.lease().floor());
            assertEquals(later.toEpochMilli() + 10_000, runtime.lease().ceiling());
        }
        try (CosIdRuntime runtime = builder().notBefore(Instant.ofEpochMilli(T0 - 60_000)).start()) {
            assertEquals(later.toEpochMilli(), runtime.lease().floor(), "the file's ceiling wins");
        }
    }

    @Test
    void withoutAStateFileTheSlotStillWorks() {
        try (CosIdRuntime runtime = CosIdRuntime.builder().namespace("orders").staticSlot(1).clock(clock)
                .scheduler(scheduler).start()) {
            assertEquals(1, IdLayout.MILLISECOND.parse(runtime.snowflake("order").nextId()).slot());
        }
        assertFalse(Files.exists(file()));
    }

    private StateFileException refused(byte[] content) throws Exception {
        Files.write(file(), content);
        StateFileException refused = assertThrows(StateFileException.class, () -> builder().start());
        assertArrayEquals(content, Files.readAllBytes(file()), "the file is left as it was");
        assertTrue(refused.getMessage().contains("To recover") || refused.getMessage().contains("Point state-file"),
                refused.getMessage());
        return refused;
    }

    @Test
    void badStateFilesStopTheStartWithASpecificMessageAndStayAsTheyWere() throws Exception {
        assertTrue(refused(new byte[0]).getMessage().contains("is empty"));
        assertTrue(refused("hello world\n".getBytes(StandardCharsets.UTF_8)).getMessage()
                .contains("is not a CosId state file"));
        StateFile.write(file(), new StateFile.State("orders", 3, T0));
        byte[] whole = Files.readAllBytes(file());
        for (int length : new int[] {whole.length / 3, whole.length - 20, whole.length - 3}) {
            assertTrue(refused(java.util.Arrays.copyOf(whole, length)).getMessage().contains("truncated"));
        }
        byte[] edited = new String(whole, StandardCharsets.UTF_8).replace("ceiling=" + T0, "ceiling=" + (T0 - 1))
                .getBytes(StandardCharsets.UTF_8);
        assertTrue(refused(edited).getMessage().contains("does not match"));
        StateFile.write(file(), new StateFile.State("orders", 5, T0));
        assertTrue(refused(Files.readAllBytes(file())).getMessage()
                .contains("belongs to namespace 'orders' slot 5, not namespace 'orders' slot 3"));
        StateFile.write(file(), new StateFile.State("billing", 3, T0));
        assertTrue(refused(Files.readAllBytes(file())).getMessage().contains("belongs to namespace 'billing'"));
    }

    @Test
    void configurationKeysSetUpAStaticSlot() {
        try (CosIdRuntime runtime = CosIdRuntime.builder().clock(clock).scheduler(scheduler).configure(Map.of(
                "cosid.namespace", "orders",
                "cosid.machine.static.slot", "7",
                "cosid.machine.static.state-file", file().toString(),
                "cosid.machine.static.ahead", "20s",
                "cosid.machine.static.not-before", "2026-12-01T00:00:00Z",
                "unrelated.key", "ignored")).start()) {
            assertEquals(7, runtime.lease().slot());
            assertEquals(Math.max(T0 + 20_000, Instant.parse("2026-12-01T00:00:00Z").toEpochMilli()), ceilingOnDisk());
        }
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> CosIdRuntime.builder().configure(Map.of("cosid.machine.static.slots", "1")));
        assertTrue(unknown.getMessage().contains("unknown configuration key 'cosid.machine.static.slots'"));
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> CosIdRuntime.builder().configure(Map.of("cosid.machine.static.ahead", "soon")));
        assertTrue(bad.getMessage().startsWith("cosid.machine.static.ahead = 'soon'"), bad.getMessage());
    }

    @Test
    void aStaticSlotMustFitTheBitsAndTakesNoStore() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> builder().staticSlot(1024).start())
                .getMessage().contains("slot 1024 is outside 0..1023"));
        assertThrows(IllegalArgumentException.class, () -> builder().store("memory:").start());
        try (CosIdRuntime runtime = builder().staticSlot(9).start()) {
            assertTrue(assertThrows(IllegalArgumentException.class,
                    () -> runtime.snowflake("js", IdLayout.SAFE_JS_MILLISECOND)).getMessage().contains("bits 10"));
        }
    }

    @Test
    void aSecondRuntimeOnTheSameStateFileIsRefusedNamingTheHolder() {
        try (CosIdRuntime first = builder().ownerKey("first-host:1").start()) {
            byte[] before = readState();
            StateFileException refused = assertThrows(StateFileException.class,
                    () -> builder().ownerKey("second-host:2").start());
            assertTrue(refused.getMessage().startsWith("the state file " + file() + " is in use by another runtime of "
                    + "this process (pid " + ProcessHandle.current().pid() + ", owner first-host:1"), refused.getMessage());
            assertArrayEquals(before, readState(), "the refused runtime wrote nothing");
            assertEquals(3, IdLayout.MILLISECOND.parse(first.snowflake("order").nextId()).slot());
        }
        try (CosIdRuntime next = builder().ownerKey("second-host:2").start()) {
            assertTrue(next.lease().floor() >= T0, "once the first closed, the file is free");
        }
    }

    private byte[] readState() {
        try {
            return Files.readAllBytes(file());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void aStateFileThatIsASymbolicLinkIsWrittenThroughToItsTarget() throws Exception {
        Path target = Files.createDirectories(dir.resolve("real")).resolve("state-3");
        StateFile.write(target, new StateFile.State("orders", 3, T0 + 5_000));
        Files.createSymbolicLink(file(), target);
        try (CosIdRuntime runtime = builder().start()) {
            assertEquals(T0 + 5_000, runtime.lease().floor(), "the floor comes from the link's target");
            assertEquals(T0 + 15_000, StateFile.read(target).orElseThrow().ceiling(), "floor + ahead, in the target");
        }
        assertTrue(Files.isSymbolicLink(file()), "the link stays a link");
        assertEquals(target, Files.readSymbolicLink(file()));
        assertTrue(Files.exists(dir.resolve("real").resolve("state-3.lock")), "the lock sits beside the target");
    }

    @Test
    void aDanglingSymbolicLinkIsAnErrorNotAMissingFile() throws Exception {
        Files.createSymbolicLink(file(), dir.resolve("gone"));
        StateFileException refused = assertThrows(StateFileException.class, () -> builder().start());
        assertTrue(refused.getMessage().contains("is a symbolic link to " + dir.resolve("gone") + ", which does not exist"),
                refused.getMessage());
        assertTrue(Files.isSymbolicLink(file()));
        assertFalse(Files.exists(dir.resolve("gone")), "nothing was created at the target");
    }

    @Test
    void theStateFileKeepsEachIdSpacesLayoutAndRefusesAnother() {
        try (CosIdRuntime runtime = builder().start()) {
            runtime.snowflake("order").nextId();
            runtime.snowflake("batch", IdLayout.SECOND);
        }
        StateFile.State state = StateFile.read(file()).orElseThrow();
        assertEquals(java.util.Set.of("order", "batch"), state.layouts().keySet());
        clock.advance(Duration.ofSeconds(30));
        try (CosIdRuntime again = builder().start()) {
            NamespaceMismatchException refused = assertThrows(NamespaceMismatchException.class,
                    () -> again.snowflake("order", IdLayout.SECOND));
            assertTrue(refused.getMessage().startsWith("id space 'order' of namespace 'orders' uses the layout "
                    + "MILLISECOND (epoch 1577203200000 ms, unit 1 ms, 41+10+12 bits); this generator asks for SECOND"),
                    refused.getMessage());
            assertEquals(IdLayout.SECOND, again.snowflake("batch", IdLayout.SECOND).layout());
            assertEquals(3, IdLayout.MILLISECOND.parse(again.snowflake("order").nextId()).slot());
        }
    }

    @Test
    void aStateFileWithLayoutLinesStaysReadableByTheFormatsFirstReader() {
        try (CosIdRuntime runtime = builder().start()) {
            runtime.snowflake("order-items", IdLayout.SECOND);
        }
        String text = new String(readState(), StandardCharsets.UTF_8);
        assertTrue(text.contains("\nlayout.order-items=1577203200000,1000,31,10,22\n"), text);
        assertTrue(text.contains("\nversion=1\n"), "the version stays 1: readers that predate layouts skip the lines");
    }
}
