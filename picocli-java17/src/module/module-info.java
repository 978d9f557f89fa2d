/**
 * picocli's own module name, as its published jar declares it (META-INF/versions/9), so that the
 * cli module's {@code requires info.picocli} finds this Java 17 build of the same sources.
 * java.sql is only reached by reflection (optional converters), so it is not required here.
 */
module info.picocli {
    exports picocli;
}
