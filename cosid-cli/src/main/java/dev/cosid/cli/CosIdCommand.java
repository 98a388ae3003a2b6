package dev.cosid.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code ./cosid} command: generate, decode and inspect lease-safe Snowflake ids.
 *
 * <p>Every command ends with status 0 on success, 2 for bad input and 1 for a failure, and reports an
 * error in one line on stderr, with the secrets of any store URL masked. Standard output is written in
 * whole lines and checked: a full disk ends the command with status 1 and one line; a closed pipe ends
 * it quietly with status 141, like a Unix filter that gets SIGPIPE.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * ./cosid generate --count 5
 * ./cosid decode 282061010092396544
 * ./cosid leases
 * ./cosid segment orders --count 5
 * }</pre>
 */
@Command(name = "cosid", mixinStandardHelpOptions = true, version = "cosid 5.0.0-SNAPSHOT",
        description = "Unique 63-bit Snowflake ids from a leased time window on a slot.",
        subcommands = {GenerateCommand.class, DecodeCommand.class, LeasesCommand.class, SchemaCommand.class,
                MigrateCommand.class, LeaderCommand.class, RolesCommand.class, ServeCommand.class,
                SegmentCommand.class, SegmentsCommand.class, CommandLine.HelpCommand.class})
public final class CosIdCommand implements Runnable {

    /** The store every command uses unless {@code --store} says otherwise. */
    static final String DEFAULT_STORE = "sqlite:~/.cosid/cosid.db";
    /** The namespace every command uses unless {@code --namespace} says otherwise. */
    static final String DEFAULT_NAMESPACE = "default";

    /** The status of a command whose reader closed the pipe: 128 + SIGPIPE, as for any Unix filter. */
    static final int BROKEN_PIPE = 141;

    /** Set by the shutdown path (SIGTERM): a command stops quietly instead of reporting its closed runtime. */
    static volatile boolean stopping;
    /** Whether this JVM runs only the command ({@link #main}), so a command may end the process itself. */
    static volatile boolean standalone;
    /** How long the output waits on SIGTERM for the command to wind down before it is sealed. */
    private static final long SHUTDOWN_BOUND_SECONDS = 20;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Standard output of this run, which the commands print to. */
    Output output;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "name a command: " + commands(spec));
    }

    /**
     * Runs the command line and exits with its status.
     *
     * @param args the arguments
     */
    public static void main(String[] args) {
        standalone = true;
        @SuppressWarnings("resource") // standard output stays open until the JVM ends
        Output output = Output.of(new FileOutputStream(FileDescriptor.out).getChannel());
        CountDownLatch finished = new CountDownLatch(1);
        Thread seal = new Thread(() -> {
            stopping = true;
            try {
                // a command winds down on its own (generate stops issuing, leader resigns, serve drains) and
                // may print while it does: seal the output after it returned, or after a bound
                finished.await(SHUTDOWN_BOUND_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            output.seal();
        }, "cosid-output");
        Runtime.getRuntime().addShutdownHook(seal);
        int status;
        try {
            status = run(args, output, System.err);
        } finally {
            finished.countDown();
        }
        System.exit(status);
    }

    /**
     * Runs the command line with the given streams.
     *
     * @param args the arguments
     * @param out where results go
     * @param err where errors and lease events go
     * @return the exit status: 0 success, 1 failure, 2 bad usage, 141 the output's reader went away
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return run(args, Output.of(out), err);
    }

    static int run(String[] args, Output output, PrintStream errStream) {
        CosIdCommand root = new CosIdCommand();
        root.output = output;
        CommandLine commandLine = new CommandLine(root);
        PrintWriter out = new PrintWriter(output, false);
        PrintWriter err = new PrintWriter(new MaskedLines(errStream, urls(args)), true);
        commandLine.setOut(out);
        commandLine.setErr(err);
        commandLine.setParameterExceptionHandler((e, arguments) -> {
            e.getCommandLine().getErr().println(name(e.getCommandLine()) + ": " + oneLine(e) + " (see --help)");
            return 2;
        });
        commandLine.setExecutionExceptionHandler((e, parsed, result) -> {
            if (stopping || output.failure().isPresent()) {
                // the shutdown path closed what the command used, or the output failed and is reported below
                return 1;
            }
            parsed.getErr().println(name(parsed) + ": " + oneLine(e));
            return e instanceof IllegalArgumentException ? 2 : 1;
        });
        int status;
        String unknown = unknownCommand(commandLine, args);
        if (unknown != null) {
            err.println("cosid: unknown command '" + unknown + "'; commands: " + commands(commandLine.getCommandSpec())
                    + " (see --help)");
            status = 2;
        } else {
            status = commandLine.execute(args);
        }
        out.flush();
        try {
            output.finish();
        } catch (IOException ignored) {
            // remembered as the output's failure
        }
        if (output.failure().isPresent() && !stopping) {
            if (Output.brokenPipe(output.failure().get())) {
                // the reader went away (| head): end quietly with the status of a filter killed by SIGPIPE
                status = BROKEN_PIPE;
            } else {
                err.println(name(commandLine, args) + ": cannot write the output: " + oneLine(output.failure().get()));
                status = status == 2 ? 2 : 1;
            }
        }
        err.flush();
        return status;
    }

    /** The first argument when it is neither an option nor a command. */
    private static String unknownCommand(CommandLine commandLine, String[] args) {
        if (args.length == 0 || args[0].startsWith("-")) {
            return null;
        }
        return commandLine.getSubcommands().containsKey(args[0]) ? null : args[0];
    }

    private static String commands(CommandLine.Model.CommandSpec spec) {
        List<String> names = new ArrayList<>(spec.subcommands().keySet());
        names.remove("help");
        return String.join(", ", names);
    }

    /** {@code cosid generate} for a command, {@code cosid} for the top level. */
    private static String name(CommandLine commandLine) {
        return commandLine.getCommandSpec().qualifiedName(" ");
    }

    private static String name(CommandLine commandLine, String[] args) {
        return args.length > 0 && commandLine.getSubcommands().containsKey(args[0]) ? "cosid " + args[0] : "cosid";
    }

    /** The values of options that take a store URL, and anything shaped like one, whose secrets stderr masks. */
    private static List<String> urls(String[] args) {
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            int equals = arg.indexOf('=');
            String option = arg.startsWith("--") ? (equals < 0 ? arg : arg.substring(0, equals)) : null;
            if (option != null && takesUrl(option)) {
                if (equals >= 0) {
                    urls.add(arg.substring(equals + 1));
                } else if (i + 1 < args.length) {
                    urls.add(args[i + 1]);
                }
            } else if (arg.contains("://") || arg.toLowerCase(Locale.ROOT).startsWith("jdbc:")) {
                urls.add(equals >= 0 && arg.startsWith("-") ? arg.substring(equals + 1) : arg);
            }
        }
        return urls;
    }

    private static boolean takesUrl(String option) {
        return option.contains("store") || option.contains("jdbc") || option.contains("redis")
                || option.contains("url");
    }

    private static String oneLine(Throwable e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return message.replace('\n', ' ').replace('\r', ' ');
    }
}
