package dev.cosid.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code ./cosid} command: generate, decode and inspect lease-safe Snowflake ids.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * ./cosid generate --count 5
 * ./cosid decode 282061010092396544
 * ./cosid leases
 * }</pre>
 */
@Command(name = "cosid", mixinStandardHelpOptions = true, version = "cosid 5.0.0-SNAPSHOT",
        description = "Unique 63-bit Snowflake ids from a leased time window on a slot.",
        subcommands = {GenerateCommand.class, DecodeCommand.class, LeasesCommand.class, SchemaCommand.class,
                MigrateCommand.class, LeaderCommand.class, RolesCommand.class, ServeCommand.class,
                CommandLine.HelpCommand.class})
public final class CosIdCommand implements Runnable {

    /** The store every command uses unless {@code --store} says otherwise. */
    static final String DEFAULT_STORE = "sqlite:~/.cosid/cosid.db";
    /** The namespace every command uses unless {@code --namespace} says otherwise. */
    static final String DEFAULT_NAMESPACE = "default";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "name a command: generate, decode, leases, schema, migrate, leader or roles");
    }

    /**
     * Runs the command line and exits with its status.
     *
     * @param args the arguments
     */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs the command line with the given streams.
     *
     * @param args the arguments
     * @param out where results go
     * @param err where errors and lease events go
     * @return the exit status: 0 success, 1 failure, 2 bad usage
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        CommandLine commandLine = new CommandLine(new CosIdCommand());
        commandLine.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
        commandLine.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        commandLine.setParameterExceptionHandler((e, arguments) -> {
            e.getCommandLine().getErr().println("cosid " + e.getCommandLine().getCommandName() + ": " + e.getMessage()
                    + " (see --help)");
            return 2;
        });
        commandLine.setExecutionExceptionHandler((e, parsed, result) -> {
            parsed.getErr().println("cosid " + parsed.getCommandName() + ": " + oneLine(e));
            return e instanceof IllegalArgumentException ? 2 : 1;
        });
        return commandLine.execute(args);
    }

    private static String oneLine(Throwable e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return message.replace('\n', ' ');
    }
}
