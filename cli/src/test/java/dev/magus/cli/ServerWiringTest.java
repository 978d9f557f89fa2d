package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The command line carries the server module's commands itself (it depends on that module), so
 * {@code magus server} is there without anything found on the class path at run time.
 */
class ServerWiringTest {
    @Test
    void magusServerAndItsSubcommandsAreOnTheCommandLine() {
        CommandLine server = Main.commandLine(CommandLine.defaultFactory()).getSubcommands().get("server");
        assertThat(server).isNotNull();
        Object command = server.getCommand();
        assertThat(command).isInstanceOf(ServerCommand.class);
        assertThat(server.getSubcommands().keySet()).containsExactlyInAnyOrder("start", "stop", "status");
    }
}
