package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which runs libexec/magus-jvm asks to make the class archive: not one that only prints its help or
 * version (its archive would lack the sandbox's classes until the next build); and
 * which runs compile later than the JVM's defaults (a command line, not the server). The script
 * of this checkout is copied beside a fake build and started with a fake {@code java} that
 * writes down its arguments, so no JVM runs.
 */
class BinMagusArchiveTest {
    @TempDir
    Path dir;
    private Path magus;
    private Path jvm;
    private Path args;

    @BeforeEach
    void fakeBuild() throws IOException {
        Path checkout = null;
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("bin/magus"))) {
                checkout = d;
                break;
            }
        }
        assertThat(checkout).as("bin/magus above %s", Path.of("").toAbsolutePath()).isNotNull();
        Path home = dir.resolve("magus");
        Files.createDirectories(home.resolve("bin"));
        magus = Files.copy(checkout.resolve("bin/magus"), home.resolve("bin/magus"));
        Files.createDirectories(home.resolve("libexec"));
        jvm = Files.copy(checkout.resolve("libexec/magus-jvm"), home.resolve("libexec/magus-jvm"));
        Files.createDirectories(home.resolve("cli/target/lib"));
        Files.writeString(home.resolve("cli/target/cli.jar"), "");
        Path java = dir.resolve("jdk/bin/java");
        Files.createDirectories(java.getParent());
        args = dir.resolve("args");
        // The JVM's assembly of an AOT cache runs in the background: it only leaves a mark.
        Files.writeString(java, "#!/bin/sh\ncase \"$*\" in *AOTMode=create*) echo \"$@\" > \"$ARGS_OUT.assembled\"; exit 0;; esac\n"
                + "printf '%s\\n' \"$@\" > \"$ARGS_OUT\"\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(magus, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(jvm, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private List<String> javaArgs(String... magusArgs) throws Exception {
        return javaArgs(java.util.Map.of(), magusArgs);
    }

    private List<String> javaArgs(java.util.Map<String, String> env, String... magusArgs) throws Exception {
        // The JVM's side, which bin/magus (the native client, where it was built) hands these to.
        List<String> cmd = new ArrayList<>(List.of("bash", jvm.toString()));
        cmd.addAll(List.of(magusArgs));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", dir.resolve("jdk").toString());
        pb.environment().put("ARGS_OUT", args.toString());
        pb.environment().put("XDG_RUNTIME_DIR", dir.resolve("run").toString());
        pb.environment().remove("MAGUS_SERVER_ADDRESS");
        pb.environment().remove("MAGUS_RUN_ID");
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return Files.readAllLines(args);
    }

    /** The class bin/magus starts: the fast client when it forwards the run, the full command line otherwise. */
    private static String entry(List<String> javaArgs) {
        int cp = javaArgs.indexOf("-cp");
        assertThat(cp).as("%s", javaArgs).isNotNegative();
        return javaArgs.get(cp + 2);
    }

    private static boolean archives(List<String> javaArgs) {
        return javaArgs.stream().anyMatch(a -> a.startsWith("-XX:ArchiveClassesAtExit="));
    }

    @Test
    void a_run_that_only_asks_for_help_or_version_makes_no_archive() throws Exception {
        for (String[] a : List.of(new String[] {"run", "--help"}, new String[] {"run", "-h"}, new String[] {"run", "-qh"},
                new String[] {"run", "--version"}, new String[] {"run", "-V"}, new String[] {"run", "--local", "--help", "--", "x"},
                new String[] {"target", "--help"})) {
            List<String> javaArgs = javaArgs(a);
            assertThat(archives(javaArgs)).as("magus %s: %s", List.of(a), javaArgs).isFalse();
            assertThat(javaArgs).as("magus %s", List.of(a)).endsWith(a);
        }
    }

    @Test
    void a_run_of_a_command_makes_one_even_when_the_command_has_a_help_flag() throws Exception {
        for (String[] a : List.of(new String[] {"run", "--", "true"}, new String[] {"run", "--local", "-q", "--", "ls", "-h"},
                new String[] {"run", "--sandbox=off", "--env=V=-h", "--", "true"}, new String[] {"run", "-qv", "--", "true"},
                // the first positional is the command: picocli stops there, and so does bin/magus
                new String[] {"run", "ls", "-lh"}, new String[] {"run", "-q", "grep", "-V"}, new String[] {"run", "--env", "V=-h", "true"},
                new String[] {"run", "--sandbox", "off", "--allow", "-h", "--", "true"})) {
            List<String> javaArgs = javaArgs(a);
            assertThat(archives(javaArgs)).as("magus %s: %s", List.of(a), javaArgs).isTrue();
            assertThat(javaArgs).as("magus %s", List.of(a)).endsWith(a);
        }
    }

    @Test
    void a_magus_inside_a_run_makes_none_its_domain_would_not_let_it_write() throws Exception {
        List<String> javaArgs = javaArgs(java.util.Map.of("MAGUS_RUN_ID", "0123456789abcdef"), "run", "--", "true");
        assertThat(archives(javaArgs)).as("%s", javaArgs).isFalse();
        assertThat(javaArgs).endsWith("run", "--", "true");
    }

    @Test
    void a_command_line_compiles_later_than_the_defaults_on_one_thread_and_the_server_much_sooner() throws Exception {
        String later = "-XX:CompileThresholdScaling=3";
        String oneThread = "-XX:CICompilerCount=1";
        for (String[] a : List.of(new String[] {"run", "--local", "--", "true"}, new String[] {"run", "--", "true"},
                new String[] {"policy"}, new String[] {"explain", "MGS2001"})) {
            List<String> javaArgs = javaArgs(a);
            assertThat(javaArgs).as("magus %s", List.of(a))
                    .contains("-XX:TieredStopAtLevel=1", later, oneThread, "-XX:-UseDynamicNumberOfCompilerThreads").endsWith(a);
        }
        for (String[] a : List.of(new String[] {"server"}, new String[] {"server", "--metrics", "127.0.0.1:0"})) {
            List<String> javaArgs = javaArgs(a);
            assertThat(javaArgs).as("magus %s", List.of(a)).doesNotContain(later, oneThread)
                    .contains("-XX:TieredStopAtLevel=1", "-XX:CompileThresholdScaling=0.1").endsWith(a);
        }
    }

    @Test
    void only_magus_s_own_local_option_keeps_a_run_from_the_server() throws Exception {
        Path runtime = Files.createDirectories(dir.resolve("run/magus"));
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(runtime.resolve("server.sock")));
            assertThat(entry(javaArgs("run", "--local", "ls"))).isEqualTo("dev.magus.cli.Main");
            assertThat(entry(javaArgs("run", "-q", "--local", "--", "ls"))).isEqualTo("dev.magus.cli.Main");
            // --local after the command (or after --) is the command's own argument: the run is forwarded
            assertThat(entry(javaArgs("run", "ls", "--local"))).isEqualTo("dev.magus.server.client.FastClient");
            assertThat(entry(javaArgs("run", "--", "ls", "--local"))).isEqualTo("dev.magus.server.client.FastClient");
            assertThat(entry(javaArgs("run", "--events", "--local", "ls"))).isEqualTo("dev.magus.server.client.FastClient");
        }
    }

    private void release(String version) throws IOException {
        Files.writeString(dir.resolve("jdk/release"), "IMPLEMENTOR=\"test\"\nJAVA_VERSION=\"" + version + "\"\n");
    }

    @Test
    void java_17_keeps_a_cds_archive_and_is_not_told_about_native_access() throws Exception {
        release("17.0.15");
        List<String> javaArgs = javaArgs("run", "--", "true");
        assertThat(javaArgs).contains("-Xshare:auto").noneMatch(a -> a.startsWith("--enable-native-access"))
                .noneMatch(a -> a.startsWith("-XX:AOT"));
        assertThat(archives(javaArgs)).isTrue();
    }

    @Test
    void java_22_is_told_that_jna_calls_native_code_and_keeps_a_cds_archive() throws Exception {
        release("22.0.2");
        List<String> javaArgs = javaArgs("run", "--", "true");
        assertThat(javaArgs).contains("--enable-native-access=ALL-UNNAMED", "-Xshare:auto");
        assertThat(archives(javaArgs)).isTrue();
    }

    @Test
    void java_25_records_an_aot_configuration_quietly_then_assembles_it_in_the_background_then_maps_the_cache() throws Exception {
        release("25.0.3");
        Path target = dir.resolve("magus/cli/target");
        List<String> first = javaArgs("run", "--", "true");
        assertThat(first).contains("--enable-native-access=ALL-UNNAMED", "-XX:AOTMode=record", "-XX:-DisplayVMOutput")
                .doesNotContain("-Xshare:auto").noneMatch(a -> a.startsWith("-XX:ArchiveClassesAtExit="));
        String conf = first.stream().filter(a -> a.startsWith("-XX:AOTConfiguration=")).findFirst().orElseThrow()
                .substring("-XX:AOTConfiguration=".length());
        assertThat(Path.of(conf).getParent()).isEqualTo(target);
        assertThat(conf).matches(".*/magus-full-[0-9]+\\.aotconf");

        // The JVM wrote its record; the next run has it assembled, detached, and records nothing itself.
        Files.writeString(Path.of(conf), "recorded");
        List<String> second = javaArgs("run", "--", "true");
        assertThat(second).noneMatch(a -> a.startsWith("-XX:AOTMode=record")).noneMatch(a -> a.startsWith("-XX:AOTCache="));
        Path assembled = Path.of(args + ".assembled");
        for (int i = 0; i < 100 && !Files.exists(assembled); i++) {
            Thread.sleep(50);
        }
        assertThat(Files.readString(assembled)).contains("-XX:AOTMode=create", "-XX:AOTConfiguration=" + conf + ".");
        for (int i = 0; i < 100 && Files.exists(Path.of(conf)); i++) {
            Thread.sleep(50);
        }
        assertThat(Path.of(conf)).as("taken by the assembly").doesNotExist();

        Path cache = Files.writeString(target.resolve("magus-full-7.aot"), "x");
        List<String> third = javaArgs("run", "--", "true");
        assertThat(third).contains("-XX:AOTCache=" + cache, "-XX:AOTMode=auto").doesNotContain("-Xshare:auto");
    }

    @Test
    void an_archive_marked_thin_is_passed_over_until_three_are_there() throws Exception {
        Path target = dir.resolve("magus/cli/target");
        Path full = Files.writeString(target.resolve("magus-full-7.jsa"), "x");
        List<String> javaArgs = javaArgs("run", "--", "true");
        assertThat(javaArgs).contains("-XX:SharedArchiveFile=" + full).noneMatch(a -> a.startsWith("-XX:ArchiveClassesAtExit="));

        Files.createFile(target.resolve("magus-full-7.jsa.thin"));
        javaArgs = javaArgs("run", "--", "true");
        assertThat(javaArgs).noneMatch(a -> a.startsWith("-XX:SharedArchiveFile="));
        String made = javaArgs.stream().filter(a -> a.startsWith("-XX:ArchiveClassesAtExit="))
                .findFirst().orElseThrow().substring("-XX:ArchiveClassesAtExit=".length());
        // The path the JVM dumps to, told to the command line so that it can mark it thin.
        assertThat(javaArgs).contains("-Dmagus.archive=" + made);
        // A run that makes none maps the thin one rather than none.
        assertThat(javaArgs("run", "--help")).contains("-XX:SharedArchiveFile=" + full);

        for (String pid : new String[] {"8", "9"}) {
            Files.writeString(target.resolve("magus-full-" + pid + ".jsa"), "x");
            Files.createFile(target.resolve("magus-full-" + pid + ".jsa.thin"));
        }
        javaArgs = javaArgs("run", "--", "true");
        assertThat(javaArgs).as("three thin ones: one is mapped, no fourth made")
                .anyMatch(a -> a.startsWith("-XX:SharedArchiveFile=")).noneMatch(a -> a.startsWith("-XX:ArchiveClassesAtExit="));

        Path unmarked = Files.writeString(target.resolve("magus-full-90.jsa"), "x");
        assertThat(javaArgs("run", "--", "true")).as("an unmarked one wins").contains("-XX:SharedArchiveFile=" + unmarked);
    }
}
