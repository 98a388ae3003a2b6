package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.testkit.Await;
import dev.cosid.testkit.ChildJvm;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./cosid serve} as real processes on one SQLite file: load, SIGTERM, and the next holder's floor. */
class ServeProcessTest {

    private static final String TOKEN = "serve-process-token-0123456789";
    private static final Pattern SERVING = Pattern.compile("on slot (\\d+) \\(fence \\d+\\) at (http://\\S+)");
    private static final Pattern IDS = Pattern.compile("\"(\\d+)\"");
    private static final Pattern BARE = Pattern.compile("\\d+");
    private static final Pattern RELEASED = Pattern.compile("with last issued millisecond (\\d+)");

    @TempDir
    Path dir;

    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void stopAll() throws InterruptedException {
        for (Process process : processes) {
            process.destroyForcibly();
            process.waitFor(20, TimeUnit.SECONDS);
        }
    }

    /** One running {@code serve}: its process, its stderr file, its slot and base URI. */
    private record Served(Process process, Path err, int slot, URI uri) {
    }

    private String store() {
        return "sqlite:" + dir.resolve("cosid.db");
    }

    private Served serve(String name, boolean tokenFromEnvironment, String... options) throws Exception {
        List<String> arguments = new ArrayList<>(List.of("serve", "--port", "0", "--store", store(), "--ttl", "10s"));
        arguments.addAll(List.of(options));
        List<String> command = ChildJvm.command(List.of("-Xmx256m"), CosIdCommand.class.getName(), arguments);
        ProcessBuilder builder = new ProcessBuilder(command);
        if (tokenFromEnvironment) {
            builder.environment().put("COSID_TOKEN", TOKEN);
        } else {
            builder.environment().remove("COSID_TOKEN");
            command.addAll(List.of("--token-file", Files.writeString(dir.resolve(name + ".token"), TOKEN + "\n")
                    .toString()));
            builder.command(command);
        }
        Path err = dir.resolve(name + ".err");
        builder.redirectOutput(dir.resolve(name + ".out").toFile()).redirectError(err.toFile());
        Process process = builder.start();
        processes.add(process);
        Matcher[] serving = new Matcher[1];
        Await.until(() -> {
            if (!process.isAlive()) {
                throw new AssertionError(name + " exited: " + read(err));
            }
            serving[0] = SERVING.matcher(read(err));
            return serving[0].find();
        }, Duration.ofSeconds(60), name + " to serve");
        return new Served(process, err, Integer.parseInt(serving[0].group(1)), URI.create(serving[0].group(2)));
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "";
        }
    }

    /** Asks a server for ids until told to stop, keeping every id it answered with and every status. */
    private static final class Client extends Thread {
        private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        private final URI target;
        private final AtomicBoolean running;
        private final ConcurrentLinkedQueue<Integer> statuses;
        private long[] ids = new long[1 << 16];
        private int size;
        private int failures;

        Client(URI target, AtomicBoolean running, ConcurrentLinkedQueue<Integer> statuses) {
            this.target = target;
            this.running = running;
            this.statuses = statuses;
        }

        @Override
        public void run() {
            HttpRequest request = HttpRequest.newBuilder(target).header("Authorization", "Bearer " + TOKEN)
                    .timeout(Duration.ofSeconds(20)).build();
            while (running.get()) {
                HttpResponse<String> response;
                try {
                    response = http.send(request, HttpResponse.BodyHandlers.ofString());
                } catch (IOException e) {
                    failures++; // refused or closed: the server stopped accepting
                    if (failures > 50) {
                        return;
                    }
                    continue;
                } catch (InterruptedException e) {
                    return;
                }
                statuses.add(response.statusCode());
                if (response.statusCode() != 200) {
                    continue;
                }
                String body = response.body();
                if (BARE.matcher(body).matches()) { // cosid-proxy-server's paths answer one bare id
                    add(Long.parseLong(body));
                    continue;
                }
                Matcher id = IDS.matcher(body);
                while (id.find()) {
                    add(Long.parseLong(id.group(1)));
                }
            }
        }

        private void add(long id) {
            if (size == ids.length) {
                ids = Arrays.copyOf(ids, size * 2);
            }
            ids[size++] = id;
        }

        long[] ids() {
            return Arrays.copyOf(ids, size);
        }
    }

    private static long[] merge(List<Client> clients) {
        long[] all = clients.stream().map(Client::ids).flatMapToLong(Arrays::stream).toArray();
        Arrays.sort(all);
        return all;
    }

    @Test
    void twoServersOnOneStoreHammeredAtOnceHandOutDistinctIdsFromDifferentSlots() throws Exception {
        Served a = serve("a", true);
        Served b = serve("b", false);
        assertNotEquals(a.slot(), b.slot(), "two servers on one store hold different slots");
        AtomicBoolean running = new AtomicBoolean(true);
        ConcurrentLinkedQueue<Integer> statuses = new ConcurrentLinkedQueue<>();
        List<Client> clients = new ArrayList<>();
        List<Client> ofA = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Served target = i % 2 == 0 ? a : b;
            // batches of 100 and 1000 on the /v1 API, single ids on cosid-proxy-server's paths
            String path = switch (i % 4) {
                case 0 -> "/v1/ids?count=100";
                case 1 -> "/v1/ids?count=1000";
                case 2 -> "/ids";
                default -> "/ids/as-string";
            };
            Client client = new Client(target.uri().resolve(path), running, statuses);
            clients.add(client);
            if (target == a) {
                ofA.add(client);
            }
            client.start();
        }
        Await.elapse(Duration.ofSeconds(6)); // the load test's bounded time
        running.set(false);
        for (Client client : clients) {
            client.join(TimeUnit.SECONDS.toMillis(30));
        }
        long[] all = merge(clients);
        System.out.println("load test: " + all.length + " ids in " + statuses.size() + " requests in 6 s");
        assertTrue(all.length > 10_000, "the load test took " + all.length + " ids");
        for (int i = 1; i < all.length; i++) {
            if (all[i] == all[i - 1]) {
                throw new AssertionError("id " + all[i] + " was handed out twice among " + all.length);
            }
        }
        assertTrue(statuses.stream().allMatch(s -> s == 200), "every request was answered with ids: " + statuses
                .stream().filter(s -> s != 200).toList());
        for (long id : merge(ofA)) {
            assertEquals(a.slot(), IdLayout.MILLISECOND.parse(id).slot(), "server a issued on its own slot");
        }
        long ofB = Arrays.stream(all).filter(id -> IdLayout.MILLISECOND.parse(id).slot() == b.slot()).count();
        assertEquals(all.length - merge(ofA).length, ofB, "every other id came from server b's slot");
        for (Served served : List.of(a, b)) {
            served.process().destroy();
            assertTrue(served.process().waitFor(30, TimeUnit.SECONDS), "serve stops on SIGTERM");
        }
    }

    @Test
    void sigtermFinishesRequestsInFlightThenHandsTheExactLastMillisecondToTheNextHolder() throws Exception {
        Served served = serve("drain", true);
        AtomicBoolean running = new AtomicBoolean(true);
        ConcurrentLinkedQueue<Integer> statuses = new ConcurrentLinkedQueue<>();
        List<Client> clients = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Client client = new Client(served.uri().resolve("/v1/ids?count=" + (i + 1) * 250), running, statuses);
            clients.add(client);
            client.start();
        }
        AtomicInteger answered = new AtomicInteger();
        Await.until(() -> {
            answered.set(statuses.size());
            return answered.get() > 200;
        }, Duration.ofSeconds(30), "the clients to get ids");
        served.process().destroy(); // SIGTERM, with requests in flight
        assertTrue(served.process().waitFor(30, TimeUnit.SECONDS), "serve stops on SIGTERM");
        assertEquals(143, served.process().exitValue(), "the exit status of SIGTERM");
        running.set(false);
        for (Client client : clients) {
            client.join(TimeUnit.SECONDS.toMillis(30));
        }
        assertTrue(statuses.stream().allMatch(s -> s == 200),
                "requests in flight finished with ids, none was cut off: " + statuses.stream().filter(s -> s != 200)
                        .toList());
        long[] all = merge(clients);
        long lastMillis = IdLayout.MILLISECOND.parse(all[all.length - 1]).timestampMillis();
        String err = read(served.err());
        Matcher released = RELEASED.matcher(err);
        assertTrue(released.find(), err);
        assertEquals(lastMillis, Long.parseLong(released.group(1)), "the last id any client got is the last issued");

        try (CosIdRuntime next = CosIdRuntime.builder().namespace("default").store(store()).ownerKey("next")
                .preferredSlot(served.slot()).ttl(Duration.ofSeconds(10)).start()) {
            assertEquals(served.slot(), next.lease().slot());
            assertEquals(lastMillis, next.lease().floor(), "the next holder's floor is the last issued millisecond");
        }
    }

    @Test
    void aServerThatIssuedOnlySegmentIdsSaysOnStopWhatItHandedBack() throws Exception {
        Served served = serve("segments", true, "--segments", "invoice");
        HttpResponse<String> taken = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                served.uri().resolve("/v1/segments/invoice?count=3")).header("Authorization", "Bearer " + TOKEN)
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals("{\"name\":\"invoice\",\"ids\":[\"1\",\"2\",\"3\"]}", taken.body());
        served.process().destroy(); // SIGTERM
        assertTrue(served.process().waitFor(30, TimeUnit.SECONDS), "serve stops on SIGTERM");
        List<String> lines = read(served.err()).lines().toList();
        assertEquals("cosid: stopped; released slot " + served.slot() + ", having issued no Snowflake id, and handed "
                + "back the unused ids of segment invoice where no later range was reserved",
                lines.get(lines.size() - 1));
        assertEquals(List.of("4"), Cli.run("segment", "invoice", "--store", store()).lines(),
                "the counter took the unused ids back: the next run continues after the last id served");
    }
}
