/** Micrometer meters, SLF4J and NDJSON sinks, MGS2005 once per invocation. */
module dev.magus.telemetry {
    requires transitive dev.magus.events;
    requires transitive micrometer.core;
    requires transitive reactor.core;
    requires transitive org.reactivestreams; // reactor-core is an automatic module: its Publisher type is read from here
    requires org.slf4j;
    requires com.fasterxml.jackson.databind;

    exports dev.magus.telemetry.dedupe;
    exports dev.magus.telemetry.log;
    exports dev.magus.telemetry.meters;
    exports dev.magus.telemetry.ndjson;
}
