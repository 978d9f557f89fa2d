package dev.magus.server.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.server.protocol.Frame;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The native client's source speaks this protocol version, checked on the source itself, so
 * that a build without a C compiler (where its behaviour tests are skipped) still catches a
 * {@link Frame#VERSION} bump that forgot it.
 */
class NativeClientSourceTest {
    @Test
    void theNativeClientSaysTheProtocolVersionOfFrame() throws Exception {
        String c = Files.readString(Path.of("src", "main", "c", "magus-client.c"));
        Matcher m = Pattern.compile("(?m)^#define VERSION (\\d+)\\b").matcher(c);
        assertThat(m.find()).as("#define VERSION in magus-client.c").isTrue();
        assertThat(Integer.parseInt(m.group(1))).isEqualTo(Frame.VERSION);
        assertThat(c).contains("\\\"version\\\":\" XSTR(VERSION)");
    }
}
