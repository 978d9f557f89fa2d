package dev.magus.telemetry.meters;

import io.micrometer.core.instrument.Meter;
import java.util.List;

/**
 * Every meter magus publishes. Tags are low-cardinality by construction: each tag's values
 * come from a closed set (an enum or the three mode spellings), never a path, run id,
 * pid, variable name or argv.
 */
public enum MagusMeter {
    /** One timing per finished run; tag values: outcome = {@link Outcome}, mode = off|best-effort|required|unknown. */
    RUNS("magus.runs", Meter.Type.TIMER,
            "Wall time of each run, from spawn (or refusal) to exit",
            "", List.of("outcome", "mode")),
    /** Tag values: code = MGS2001…MGS3001, layer = binding|kernel|policy. */
    DIAGNOSTICS("magus.diagnostics", Meter.Type.COUNTER,
            "Diagnostics raised, by code and enforcement layer",
            "diagnostics", List.of("code", "layer")),
    /** One sample per MGS2003 notice: how many variables the rebuilt child environment dropped. */
    ENV_DROPPED("magus.env.dropped", Meter.Type.DISTRIBUTION_SUMMARY,
            "Variables dropped from a child's environment by the scrubber (MGS2003), per run",
            "variables", List.of()),
    /** The probed Landlock ABI of this host; 0 when the kernel has no Landlock. */
    LANDLOCK_ABI("magus.landlock.abi", Meter.Type.GAUGE,
            "Landlock ABI version the running kernel offers (0 = none)",
            "", List.of());

    private final String meterName;
    private final Meter.Type type;
    private final String description;
    private final String baseUnit;
    private final List<String> tagKeys;

    MagusMeter(String meterName, Meter.Type type, String description, String baseUnit, List<String> tagKeys) {
        this.meterName = meterName;
        this.type = type;
        this.description = description;
        this.baseUnit = baseUnit;
        this.tagKeys = List.copyOf(tagKeys);
    }

    /** The Micrometer name, dotted; registries render it in their own convention. */
    public String meterName() {
        return meterName;
    }

    public Meter.Type type() {
        return type;
    }

    public String description() {
        return description;
    }

    /** Empty when the meter has no base unit of its own (a timer's is time). */
    public String baseUnit() {
        return baseUnit;
    }

    /** The only tag keys this meter ever carries, in order. */
    public List<String> tagKeys() {
        return tagKeys;
    }
}
