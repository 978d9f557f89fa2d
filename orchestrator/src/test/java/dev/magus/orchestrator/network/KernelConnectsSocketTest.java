package dev.magus.orchestrator.network;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Operation;
import dev.magus.landlock.compile.NetRules;
import dev.magus.landlock.seccomp.SocketRules;
import dev.magus.policy.net.NetworkMode;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** MGS2015 confirmed against the run's socket rules, never taken from the tool's words alone. */
class KernelConnectsSocketTest {
    private static final NetRules NONE = new NetRules(NetworkMode.NONE, new TreeSet<>(), new TreeSet<>());

    @Test
    void aUnixSocketIsReportedOnlyWhenUndeclaredAndAnAgentsSocketGetsNoHint() {
        KernelConnects undeclared = new KernelConnects(NetRules.OPEN, SocketRules.of(NetworkMode.OPEN, false));
        assertThat(undeclared.confirmSocket("/run/postgresql/.s.PGSQL.5432")).hasValueSatisfying(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2015);
            assertThat(d.operation()).isEqualTo(Operation.SOCKET);
            assertThat(d.subject()).isEqualTo("/run/postgresql/.s.PGSQL.5432");
            assertThat(d.details()).containsEntry("class", "hint")
                    .containsEntry("allow_yaml", "sandbox:\n  network:\n    unix: [/run/postgresql/.s.PGSQL.5432]\n");
        });
        assertThat(undeclared.confirmSocket("/var/run/docker.sock")).hasValueSatisfying(d -> {
            assertThat(d.details()).containsEntry("class", "attack").doesNotContainKey("allow_yaml");
        });
        assertThat(undeclared.confirmSocket("udp")).as("UDP is not filtered under open").isEmpty();
        KernelConnects declared = new KernelConnects(NetRules.OPEN, SocketRules.of(NetworkMode.OPEN, true));
        assertThat(declared.confirmSocket("/run/x.sock")).isEmpty();
        assertThat(declared.confirmSocket("")).as("nothing is filtered at all").isEmpty();
    }

    @Test
    void underNoneUdpRawAndPacketAreReportedAndAnUnnamedSocketToo() {
        KernelConnects none = new KernelConnects(NONE, SocketRules.of(NetworkMode.NONE, true));
        assertThat(none.confirmSocket("udp")).hasValueSatisfying(d -> {
            assertThat(d.subject()).isEqualTo("a UDP (datagram) socket");
            assertThat(d.details()).containsEntry("reason", "network mode none opens TCP sockets only");
        });
        assertThat(none.confirmSocket("raw")).isPresent();
        assertThat(none.confirmSocket("packet")).isPresent();
        assertThat(none.confirmSocket("unix")).as("declared").isEmpty();
        assertThat(none.confirmSocket("")).hasValueSatisfying(d -> assertThat(d.subject()).isEqualTo("a socket"));
    }
}
