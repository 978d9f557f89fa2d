package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.sys.Capabilities;
import dev.magus.orchestrator.run.Host;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProbeCommandTest {
    @TempDir
    Path dir;

    private static final String NEEDS_LINUX = "the host probe reads Linux's /proc and Landlock";

    /** Skips the test off Linux, saying why once. */
    private static void assumeLinux() {
        boolean linux = System.getProperty("os.name", "").toLowerCase().contains("linux");
        if (!linux) {
            System.err.println("SKIP ProbeCommandTest: " + NEEDS_LINUX);
        }
        Assumptions.assumeTrue(linux, NEEDS_LINUX);
    }

    @Test
    void textOnThisHostHasEveryFactAndEveryMode() {
        assumeLinux();
        Host host = Cli.fakeHost(dir, Map.of());
        Cli.Result r = Cli.run(Cli.realKernel(host, dir), "probe");

        assertThat(r.status()).as(r.err()).isEqualTo(0);
        List<String> lines = r.out().lines().toList();
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("landlock\\s+(ABI \\d+|not available \\(ABI 0\\))"));
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("kernel\\s+\\S+.*"));
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("unenforced\\s+.+"));
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("capabilities\\s+.+"));
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("kernel audit\\s+(readable|not readable): .+"));
        assertThat(lines).anySatisfy(l -> assertThat(l).matches(
                "containment\\s+runs are contained by (cgroup v2: .+|freeze-then-kill over magus's descendants \\(no cgroup of their own: .+\\))"));
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("\\s+off\\s+runs\\s+.+"));
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("\\s+best-effort\\s+runs\\s+.+"));
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("\\s+required\\s+(runs|refused)\\s+.+"));
    }

    @Test
    void jsonOnThisHostFollowsItsSchema() throws IOException {
        assumeLinux();
        Host host = Cli.fakeHost(dir, Map.of());
        Cli.Result r = Cli.run(Cli.realKernel(host, dir), "probe", "--json");

        assertThat(r.status()).as(r.err()).isEqualTo(0);
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertThat(json.get("landlock_abi").isInt()).isTrue();
        assertThat(json.get("containment").get("cgroup").isBoolean()).isTrue();
        assertThat(json.get("containment").get("summary").asText()).startsWith("runs are contained by ");
        int abi = json.get("landlock_abi").asInt();
        assertThat(abi).isGreaterThanOrEqualTo(0);
        assertThat(json.get("kernel").asText()).isNotBlank();
        List<String> modes = new ArrayList<>();
        json.get("modes").forEach(m -> modes.add(m.get("mode").asText() + "=" + m.get("runs").asBoolean()));
        assertThat(modes).containsExactly("off=true", "best-effort=true", "required=" + (abi >= 3));
        json.get("modes").forEach(m -> assertThat(m.get("kernel_layer").asText()).isIn("confine", "unconfined", "refuse"));
        assertThat(json.get("unenforced").isArray()).isTrue();
        assertThat(json.get("capabilities").get("summary").asText()).isNotBlank();
        assertThat(json.get("capabilities").get("root").isBoolean()).isTrue();
        assertThat(json.get("capabilities").get("dropped").isBoolean()).isTrue();
        assertThat(json.get("audit").get("available").isBoolean()).isTrue();
        assertThat(json.get("audit").get("summary").asText()).isNotBlank();
    }

    @Test
    void belowAbi3RequiredIsRefusedAndTruncateIsUnenforced() throws IOException {
        Host host = Cli.fakeHost(dir, Map.of());
        Cli.Result text = Cli.run(Cli.context(host, dir, LandlockProbe.fixed(2)), "probe");
        assertThat(text.out()).containsPattern("required\\s+refused\\s+.*MGS2012")
                .containsPattern("unenforced\\s+truncate, device ioctl")
                .contains("not readable: fake host: no audit")
                .containsPattern("network unenforced\\s+TCP connect and bind \\(network modes proxy and none need ABI 4")
                .contains("a TCP rule names a port")
                .containsPattern("layers\\s+landlock fs: ")
                .contains("seccomp: socket(AF_UNIX): refused (EACCES) unless sandbox.network.unix is declared")
                .contains("seccomp: under network none or proxy, AF_INET/AF_INET6: TCP stream sockets only; UDP, raw, ICMP, MPTCP");
        JsonNode seven = new ObjectMapper().readTree(Cli.run(Cli.context(host, dir, LandlockProbe.fixed(7)), "probe", "--json").out());
        List<String> net = new ArrayList<>();
        seven.get("network_unenforced").forEach(n -> net.add(n.asText()));
        // At ABI 7 TCP itself is held, and the seccomp layer refuses UDP, raw and MPTCP sockets
        // under none and proxy: what is left is that a TCP rule names a port, not an address.
        assertThat(net).hasSize(1).noneMatch(n -> n.startsWith("TCP connect and bind"));
        List<String> layers = new ArrayList<>();
        seven.get("layers").forEach(n -> layers.add(n.asText()));
        assertThat(layers).anyMatch(l -> l.startsWith("landlock net: TCP connect and bind"))
                .anyMatch(l -> l.startsWith("landlock scope: abstract Unix sockets"))
                .anyMatch(l -> l.startsWith("seccomp: io_uring"));

        JsonNode none = new ObjectMapper().readTree(Cli.run(Cli.context(host, dir, LandlockProbe.fixed(0)), "probe", "--json").out());
        assertThat(none.get("modes").get(1).get("kernel_layer").asText()).isEqualTo("unconfined");
        assertThat(none.get("modes").get(1).get("diagnostic").asText()).startsWith("MGS2005");
        assertThat(none.get("modes").get(2).get("runs").asBoolean()).isFalse();
        assertThat(none.get("audit").get("available").asBoolean()).isFalse();
    }

    @Test
    void capabilitiesAreDroppedForRootOrForPrivilegedCapabilitiesOnly() {
        String user = "Name:\tjava\nUid:\t1000\t1000\t1000\t1000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\n";
        assertThat(ProbeCommand.Privileges.fromStatus(user).dropped()).isFalse();
        assertThat(ProbeCommand.Privileges.fromStatus(user).root()).isFalse();

        String root = "Uid:\t0\t0\t0\t0\nCapPrm:\t000001ffffffffff\nCapEff:\t000001ffffffffff\n";
        assertThat(ProbeCommand.Privileges.fromStatus(root).dropped()).isTrue();
        assertThat(ProbeCommand.Privileges.fromStatus(root).summary()).contains("root");

        String sysAdmin = "Uid:\t1000\t1000\t1000\t1000\nCapPrm:\t" + String.format("%016x", 1L << Capabilities.SYS_ADMIN)
                + "\nCapEff:\t0000000000000000\n";
        assertThat(ProbeCommand.Privileges.fromStatus(sysAdmin).dropped()).isTrue();
        assertThat(ProbeCommand.Privileges.fromStatus(sysAdmin).root()).isFalse();
    }
}
