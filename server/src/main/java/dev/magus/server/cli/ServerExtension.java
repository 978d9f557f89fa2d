package dev.magus.server.cli;

import dev.magus.orchestrator.cli.ext.CommandExtension;

/** Puts {@code magus server} on the command line when this module is on the class path. */
public final class ServerExtension implements CommandExtension {
    @Override
    public String name() {
        return "server";
    }

    @Override
    public Object command() {
        return new ServerCommand();
    }
}
