/** The magus command line, the live view, the demo; the only module that binds an SLF4J backend. */
module dev.magus.cli {
    requires dev.magus.orchestrator;
    requires dev.magus.server;
    requires info.picocli;
    requires org.jline;
    requires org.yaml.snakeyaml;
    requires com.fasterxml.jackson.databind;
    requires jdk.unsupported;
    // Main starts JUL (which JNA logs through) on the launcher's preparation thread.
    requires java.logging;

    // picocli reads and sets the annotated fields of the commands.
    opens dev.magus.cli to info.picocli;
    // Nothing is exported: the command line is an application, started by dev.magus.cli.Main.
}
