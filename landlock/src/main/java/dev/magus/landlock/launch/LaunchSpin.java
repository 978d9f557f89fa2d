package dev.magus.landlock.launch;

/**
 * How long a caller spins for its spawn's result before parking: the system property
 * {@value #PROPERTY}, in microseconds. Read once per process; an invalid value is not an error
 * at class load (which would make the class unusable for good) but at every {@link Launcher}
 * construction, through {@link #requireValid()}.
 */
final class LaunchSpin {
    /**
     * System property: how long (microseconds) a caller spins for its spawn's result before
     * parking. Default 0: a spinning caller holds the CPU the new child needs.
     */
    static final String PROPERTY = "magus.launch.spin";
    static final long DEFAULT_MICROS = 0;
    /** Why the property is invalid, or null. */
    private static final String SETTINGS_ERROR = settingsError();
    /** The spin, in nanoseconds; the default when the property is invalid (never used then: see {@link #requireValid()}). */
    static final long NANOS = orDefault();

    private LaunchSpin() {
    }

    /** @throws IllegalArgumentException naming the property, when its value is invalid */
    static void requireValid() {
        if (SETTINGS_ERROR != null) {
            throw new IllegalArgumentException(SETTINGS_ERROR);
        }
    }

    private static long orDefault() {
        try {
            return nanos(PROPERTY, System.getProperty(PROPERTY), DEFAULT_MICROS);
        } catch (IllegalArgumentException invalid) {
            return DEFAULT_MICROS * 1000L;
        }
    }

    private static String settingsError() {
        try {
            nanos(PROPERTY, System.getProperty(PROPERTY), DEFAULT_MICROS);
            return null;
        } catch (IllegalArgumentException invalid) {
            return invalid.getMessage();
        }
    }

    /** {@code micros} (blank: {@code defaultMicros}) in nanoseconds; 0 to 100 000 microseconds. */
    static long nanos(String property, String micros, long defaultMicros) {
        if (micros == null || micros.isBlank()) {
            return defaultMicros * 1000L;
        }
        try {
            long us = Long.parseLong(micros.strip());
            if (us < 0 || us > 100_000) {
                throw new NumberFormatException();
            }
            return us * 1000L;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(property + " must be microseconds from 0 to 100000, not '" + micros + "'");
        }
    }
}
