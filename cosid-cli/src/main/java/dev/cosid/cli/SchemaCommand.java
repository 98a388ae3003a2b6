package dev.cosid.cli;

import dev.cosid.jdbc.JdbcDialect;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./cosid schema}: prints the DDL of the JDBC store for one database. */
@Command(name = "schema", mixinStandardHelpOptions = true,
        description = "Prints the tables the JDBC store needs, for a DBA to create (the store creates them "
                + "itself unless its URL says createSchema=false).")
final class SchemaCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--dialect", paramLabel = "NAME", required = true,
            description = "sqlite, postgresql, mariadb (or mysql) or h2")
    String dialect;

    @Override
    public Integer call() {
        spec.commandLine().getOut().print(JdbcDialect.named(dialect).schemaScript());
        spec.commandLine().getOut().flush();
        return 0;
    }
}
