package dev.magus.landlock.denials.infer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalInt;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ConnectParserTest {

    @ParameterizedTest
    @CsvSource(delimiter = '^', value = {
        "curl: (7) Failed to connect to 127.0.0.1 port 8080 after 0 ms: Couldn't connect to server^127.0.0.1^8080",
        "curl: (7) Failed to connect to repo.example.org port 443 after 2 ms: Permission denied^repo.example.org^443",
        "bash: /dev/tcp/127.0.0.1/5432: Permission denied^127.0.0.1^5432",
        "nc: connect to 10.0.0.5 port 22 (tcp) failed: Permission denied^10.0.0.5^22",
        "Connecting to example.org (example.org)|93.184.216.34|:80... failed: Permission denied.^93.184.216.34^80",
        "Error: connect EACCES 127.0.0.1:3000^127.0.0.1^3000",
    })
    void toolsThatNameHostAndPort(String line, String host, int port) {
        assertThat(ConnectParser.parse(line)).singleElement().satisfies(c -> {
            assertThat(c.host()).isEqualTo(host);
            assertThat(c.port()).isEqualTo(OptionalInt.of(port));
        });
    }

    @Test
    void javaNamesNeitherHostNorPort() {
        assertThat(ConnectParser.parse("Exception in thread \"main\" java.net.ConnectException: Permission denied"))
                .singleElement().satisfies(c -> assertThat(c.port()).isEmpty());
        assertThat(ConnectParser.parse("java.net.SocketException: Permission denied (connect failed)")).hasSize(1);
    }

    @Test
    void otherLinesAreNoConnect() {
        assertThat(ConnectParser.parse("cat: /etc/shadow: Permission denied")).isEmpty();
        assertThat(ConnectParser.parse("curl: (7) Failed to connect to x port 99999 after 0 ms")).isEmpty();
        assertThat(ConnectParser.parse("downloading from https://repo.example.org:443/")).isEmpty();
    }
}
