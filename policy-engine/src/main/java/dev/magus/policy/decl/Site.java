package dev.magus.policy.decl;

import java.util.Map;
import java.util.Objects;

/**
 * Where a declaration was written, so that every MGS2004 names its layer and key.
 *
 * @param origin       the layer or file position of the whole entry ({@code spell:go},
 *                     {@code magus.yaml:7:7})
 * @param key          the key path of the entry ({@code sandbox.allow[2]}, {@code sandbox.env.passthrough})
 * @param fieldOrigins a finer position per field when the reader knows it
 *                     ({@code mode -> magus.yaml:9:13}); fields not listed use {@code origin}
 */
public record Site(String origin, String key, Map<String, String> fieldOrigins) {
    public Site {
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(key, "key");
        fieldOrigins = Map.copyOf(fieldOrigins);
    }

    public static Site of(String origin, String key) {
        return new Site(origin, key, Map.of());
    }

    /** The key path of one field: {@code sandbox.allow[2].mode}. */
    public String subject(String field) {
        return field.isEmpty() ? key : key + "." + field;
    }

    /** The diagnostic source of one field: {@code magus.yaml:9:13 sandbox.allow[2].mode}. */
    public String source(String field) {
        return fieldOrigins.getOrDefault(field, origin) + " " + subject(field);
    }

    /** The diagnostic source of the entry as a whole. */
    public String source() {
        return origin + " " + key;
    }
}
