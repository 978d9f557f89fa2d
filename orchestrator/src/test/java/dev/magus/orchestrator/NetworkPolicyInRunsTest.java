package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.RunEvent;
import dev.magus.orchestrator.network.HostResolver;
import dev.magus.orchestrator.run.RunRequest;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The network policy end to end: real confined children (curl, bash), the run's proxy, the
 * kernel's TCP rules. Every byte stays on loopback: test names are mapped to 127.0.0.1 through
 * the proxy's resolver seam, and a name mapped to the metadata address is refused before any
 * connection is made.
 */
class NetworkPolicyInRunsTest {
    @TempDir
    Path root;
    TestHost t;
    LoopbackHttp http;

    /** The names these tests use, and where they lead; nothing else resolves. */
    static final HostResolver RESOLVER = host -> switch (host) {
        case "repo.magus.test", "other.magus.test", "a.magus.test", "repo.maven.apache.org" ->
                List.of(InetAddress.getByName("127.0.0.1"));
        case "meta.magus.test" -> List.of(InetAddress.getByName("169.254.169.254"));
        default -> throw new UnknownHostException(host + " (not mapped by the test)");
    };

    @BeforeEach
    void setUp() {
        int abi = TestHost.assumeLandlock();
        String why = "network policy test skipped: TCP rules need Landlock ABI 4, this host has " + abi;
        if (abi < 4) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(abi >= 4, why);
        t = new TestHost(root);
        http = new LoopbackHttp(null);
    }

    @AfterEach
    void tearDown() {
        if (http != null) {
            http.close();
        }
    }

    private List<RunEvent> run(String yaml, String script) {
        t.yaml(yaml);
        try (Orchestrator o = Orchestrator.builder(t.host()).resolver(RESOLVER).build()) {
            return TestHost.events(o.submit(RunRequest.builder(t.workspace, "bash", "-c", script).build()));
        }
    }

    private static List<Diagnostic> network(List<RunEvent> events) {
        return events.stream().filter(e -> e instanceof RunEvent.Diag).map(e -> ((RunEvent.Diag) e).diagnostic())
                .filter(d -> d.code() == Code.MGS2013).toList();
    }

    private static String out(List<RunEvent> events) {
        return String.join("\n", TestHost.lines(events, RunEvent.Stream.STDOUT));
    }

    private static final String PROXY = """
            sandbox:
              mode: required
              network:
                mode: proxy
                allow: [repo.magus.test]
            """;

    @Test
    void anAllowedHostWorksThroughTheProxyForPlainHttpAndConnect() {
        int port = http.port();
        List<RunEvent> events = run(PROXY, "curl -sS http://repo.magus.test:" + port + "/hello"
                + " && curl -sS --proxytunnel http://repo.magus.test:" + port + "/hello");
        assertThat(out(events)).as(TestHost.text(events)).isEqualTo("hello\nhello");
        assertThat(network(events)).isEmpty();
        assertThat(http.requests).containsExactly("/hello host=repo.magus.test:" + port, "/hello host=repo.magus.test:" + port);
    }

    @Test
    void anUndeclaredHostGets403AndALiveMgs2013WithTheYamlThatAllowsIt() {
        int port = http.port();
        List<RunEvent> events = run(PROXY, "curl -sS -o /dev/null -w '%{http_code}\\n' http://other.magus.test:" + port
                + "/hello; curl -sS --proxytunnel http://other.magus.test:" + port + "/hello; echo status=$?");
        assertThat(out(events)).as(TestHost.text(events)).startsWith("403\n").contains("status=56");
        assertThat(network(events)).hasSize(2).allSatisfy(d -> {
            assertThat(d.layer()).isEqualTo(Layer.PROXY);
            assertThat(d.operation()).isEqualTo(Operation.CONNECT);
            assertThat(d.subject()).isEqualTo("other.magus.test:" + port);
            assertThat(d.message()).contains("other.magus.test:" + port).contains("not a declared host");
            assertThat(d.details()).containsEntry("class", "hint")
                    .containsEntry("allow_yaml", "sandbox:\n  network:\n    mode: proxy\n    allow: [\"other.magus.test\"]\n");
        });
        // Started comes first: a refusal is a live event of the running child.
        assertThat(events.get(0)).isInstanceOf(RunEvent.Started.class);
        assertThat(http.requests).isEmpty();
    }

    @Test
    void aDirectConnectBypassingTheProxyIsRefusedByTheKernel() {
        int port = http.port();
        List<RunEvent> events = run(PROXY, "curl -sS --noproxy '*' http://127.0.0.1:" + port + "/hello; echo curl=$?;"
                + " (exec 3<>/dev/tcp/127.0.0.1/" + port + ") ; echo bash=$?");
        assertThat(out(events)).as(TestHost.text(events)).contains("curl=7").contains("bash=1").doesNotContain("hello");
        assertThat(String.join("\n", TestHost.lines(events, RunEvent.Stream.STDERR))).contains("Permission denied");
        assertThat(http.requests).isEmpty();
        // Inferred from curl's and bash's lines, confirmed by the run's TCP rules: one denial, reported once.
        assertThat(network(events)).singleElement().satisfies(d -> {
            assertThat(d.layer()).isEqualTo(Layer.KERNEL);
            assertThat(d.subject()).isEqualTo("127.0.0.1:" + port);
            assertThat(d.source()).startsWith("inferred:");
            assertThat(d.details()).containsEntry("allow_yaml", "sandbox:\n  network:\n    mode: proxy\n    ports: [" + port + "]\n");
        });
    }

    @Test
    void noneRefusesEveryConnectAndSetsNoProxy() {
        int port = http.port();
        List<RunEvent> events = run("""
                sandbox:
                  mode: required
                  network:
                    mode: none
                """, "curl -sS http://127.0.0.1:" + port + "/hello; echo curl=$?; echo proxy=${http_proxy:-none}");
        assertThat(out(events)).as(TestHost.text(events)).contains("curl=7").contains("proxy=none");
        assertThat(http.requests).isEmpty();
        assertThat(network(events)).singleElement().satisfies(d -> {
            assertThat(d.layer()).isEqualTo(Layer.KERNEL);
            assertThat(d.message()).contains("network mode none allows no TCP at all");
        });
    }

    @Test
    void aNameResolvingInsideIsRefusedUnlessDeclaredExactly() {
        int port = http.port();
        List<RunEvent> events = run("""
                sandbox:
                  mode: required
                  network:
                    mode: proxy
                    allow: ["*.magus.test", repo.magus.test]
                """, "for h in a meta repo; do curl -sS -o /dev/null -w \"$h %{http_code}\\n\" http://$h.magus.test:" + port
                + "/hello; done");
        assertThat(out(events)).as(TestHost.text(events)).isEqualTo("a 403\nmeta 403\nrepo 200");
        List<Diagnostic> refused = network(events);
        assertThat(refused).hasSize(2);
        assertThat(refused.get(0).details()).containsEntry("address_class", "loopback").containsEntry("class", "hint")
                .containsKey("allow_yaml");
        assertThat(refused.get(0).message()).contains("resolves to 127.0.0.1");
        // The metadata address: called an attack, nothing to paste.
        assertThat(refused.get(1).details()).containsEntry("address_class", "link_local").containsEntry("class", "attack")
                .doesNotContainKey("allow_yaml");
        assertThat(http.requests).containsExactly("/hello host=repo.magus.test:" + port);
    }

    @Test
    void modeOpenIsUnchanged() {
        int port = http.port();
        List<RunEvent> events = run("sandbox:\n  mode: required\n", "curl -sS http://127.0.0.1:" + port
                + "/hello; echo proxy=${http_proxy:-none} jto=${JAVA_TOOL_OPTIONS:-none}");
        assertThat(out(events)).as(TestHost.text(events)).isEqualTo("hello\nproxy=none jto=none");
    }

    @Test
    void theChildFindsTheProxyInItsEnvironmentAndCannotPointItElsewhere() {
        t.yaml(PROXY);
        List<RunEvent> events;
        try (Orchestrator o = Orchestrator.builder(t.host()).resolver(RESOLVER).build()) {
            events = TestHost.events(o.submit(RunRequest.builder(t.workspace, "env")
                    .set("HTTP_PROXY", "http://evil.example:8080").set("JAVA_TOOL_OPTIONS", "-Xmx64m").build()));
        }
        Map<String, String> env = TestHost.parseEnv(TestHost.lines(events, RunEvent.Stream.STDOUT));
        assertThat(env.get("HTTP_PROXY")).matches("http://127\\.0\\.0\\.1:\\d+");
        assertThat(env.get("https_proxy")).isEqualTo(env.get("HTTP_PROXY"));
        assertThat(env.get("NO_PROXY")).isEqualTo("localhost,127.0.0.1,::1");
        String port = env.get("HTTP_PROXY").substring(env.get("HTTP_PROXY").lastIndexOf(':') + 1);
        assertThat(env.get("JAVA_TOOL_OPTIONS")).isEqualTo("-Xmx64m -Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=" + port
                + " -Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=" + port);
    }

    /**
     * Maven under the {@code java} spell, with no host declared in the workspace: the spell's
     * registry hosts are the allow list, and Maven (which ignores the *_PROXY variables) finds
     * the proxy through JAVA_TOOL_OPTIONS. Its repository, {@code repo.maven.apache.org}, is a
     * server on loopback here: the proxy's resolver seam maps the name to 127.0.0.1, so no byte
     * leaves the machine. The build needs no plugin: the artifact is a build extension, which
     * Maven's core resolves while it reads the project, so {@code validate} downloads exactly
     * one pom and one jar from the repository server.
     */
    @Test
    void mavenFetchesThroughTheProxyFromALocalRepository() throws Exception {
        Path mvn = Path.of("/usr/bin/mvn");
        String why = "Maven test skipped: no mvn at " + mvn;
        if (!java.nio.file.Files.isExecutable(mvn)) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(java.nio.file.Files.isExecutable(mvn), why);
        http.close();
        // The extension, and the plexus-utils 1.1 Maven adds to every extension without one: a
        // stand-in, served like the rest, so nothing outside this temp dir is read or fetched.
        artifact(root.resolve("srv/maven2"), "dev.magus.fixture", "demo", "1.0");
        artifact(root.resolve("srv/maven2"), "org.codehaus.plexus", "plexus-utils", "1.1");
        http = new LoopbackHttp(root.resolve("srv"));
        int port = http.port();
        java.nio.file.Files.writeString(t.workspace.resolve("pom.xml"), """
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>dev.magus.test</groupId><artifactId>uses-demo</artifactId><version>1</version>
                  <packaging>pom</packaging>
                  <build><extensions><extension>
                    <groupId>dev.magus.fixture</groupId><artifactId>demo</artifactId><version>1.0</version>
                  </extension></extensions></build>
                </project>
                """);
        java.nio.file.Files.writeString(t.workspace.resolve("settings.xml"), """
                <settings><mirrors><mirror>
                  <id>local</id><mirrorOf>*</mirrorOf><url>http://repo.maven.apache.org:%d/maven2/</url>
                </mirror></mirrors></settings>
                """.formatted(port));
        String javaSpell = """
                sandbox:
                  mode: required
                  network: {mode: proxy}
                projects:
                  - dir: .
                    spells: [java]
                """;
        List<RunEvent> events = run(javaSpell, "mvn -B -ntp -s settings.xml -Dmaven.repo.local=$PWD/m2 validate 2>&1; echo mvn=$?");
        assertThat(out(events)).as(TestHost.text(events)).contains("BUILD SUCCESS").endsWith("mvn=0");
        assertThat(http.requests).contains("/maven2/dev/magus/fixture/demo/1.0/demo-1.0.jar host=repo.maven.apache.org:" + port);
        assertThat(t.workspace.resolve("m2/dev/magus/fixture/demo/1.0/demo-1.0.jar")).exists();
        assertThat(network(events)).isEmpty();
    }

    /** A pom without parent and a jar holding one text file, laid out as a Maven repository does. */
    private static void artifact(Path repo, String group, String artifact, String version) throws java.io.IOException {
        Path dir = java.nio.file.Files.createDirectories(repo.resolve(group.replace('.', '/')).resolve(artifact).resolve(version));
        java.nio.file.Files.writeString(dir.resolve(artifact + "-" + version + ".pom"), """
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>%s</groupId><artifactId>%s</artifactId><version>%s</version>
                </project>
                """.formatted(group, artifact, version));
        try (var jar = new java.util.jar.JarOutputStream(
                java.nio.file.Files.newOutputStream(dir.resolve(artifact + "-" + version + ".jar")), new java.util.jar.Manifest())) {
            jar.putNextEntry(new java.util.zip.ZipEntry(artifact + ".txt"));
            jar.write(artifact.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
    }
}
