package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/magus is made by cli's build: the native client where the server module's build compiled
 * one, else a copy of libexec/magus-jvm. Either finds its installation through a link from
 * anywhere, and hands a command it does not forward to that installation's libexec/magus-jvm
 * with the same words. A fake {@code java} writes down its arguments, so no JVM runs.
 */
class BinMagusFrontTest {
    @TempDir
    Path dir;

    private static Path checkout() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("libexec/magus-jvm")) && Files.isDirectory(d.resolve("cli"))) {
                return d;
            }
        }
        throw new AssertionError("no checkout above " + Path.of("").toAbsolutePath());
    }

    @Test
    void binMagusIsTheNativeClientWhereTheBuildMadeOneElseTheJvmScript() throws Exception {
        Path checkout = checkout();
        Path client = checkout.resolve("server/target/native/magus-client");
        byte[] front = Files.readAllBytes(checkout.resolve("bin/magus"));
        if (Files.isExecutable(client)) {
            assertThat(front).isEqualTo(Files.readAllBytes(client));
        } else {
            System.err.println("native front not checked: " + client + " was not built (the build found no C compiler, cc)");
            assertThat(front).isEqualTo(Files.readAllBytes(checkout.resolve("libexec/magus-jvm")));
        }
        assertThat(checkout.resolve("bin/magus")).isExecutable();
    }

    @Test
    void aLinkToBinMagusReachesItsOwnInstallationWithTheSameWords() throws Exception {
        Path checkout = checkout();
        Path home = dir.resolve("install");
        Files.createDirectories(home.resolve("bin"));
        Files.createDirectories(home.resolve("libexec"));
        Files.createDirectories(home.resolve("cli/target/lib"));
        Files.writeString(home.resolve("cli/target/cli.jar"), "");
        Path magus = Files.copy(checkout.resolve("bin/magus"), home.resolve("bin/magus"));
        Path jvm = Files.copy(checkout.resolve("libexec/magus-jvm"), home.resolve("libexec/magus-jvm"));
        Path java = dir.resolve("jdk/bin/java");
        Files.createDirectories(java.getParent());
        Path args = dir.resolve("args");
        Files.writeString(java, "#!/bin/sh\ncase \"$*\" in *AOTMode=create*) exit 0;; esac\nprintf '%s\\n' \"$@\" > '" + args + "'\n");
        for (Path p : List.of(java, magus, jvm)) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        Path link = Files.createSymbolicLink(Files.createDirectories(dir.resolve("elsewhere")).resolve("m"), magus);

        ProcessBuilder pb = new ProcessBuilder(link.toString(), "doctor", "--weird word", "").directory(dir.toFile())
                .redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", dir.resolve("jdk").toString());
        pb.environment().put("MAGUS_SERVER", "off");
        Process p = pb.start();
        String said = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(said).isZero();
        List<String> javaArgs = Arrays.asList(Files.readString(args).split("\n", -1));
        assertThat(javaArgs).contains("-Dmagus.home=" + home.toRealPath(), "-Dmagus.launcher=" + home.toRealPath() + "/bin/magus");
        assertThat(javaArgs.subList(javaArgs.size() - 4, javaArgs.size())).containsExactly("doctor", "--weird word", "", "");
    }
}
