package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.abi.LandlockProbe;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * {@code bin/magus} of the built checkout, started as a person starts it: on a fake home, in a
 * workspace, with nothing on stdin. The one way the end-to-end tests launch it.
 */
final class BinMagus {
    private BinMagus() {
    }

    record Result(int status, String out, String err) {
        @Override
        public String toString() {
            return "status " + status + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /**
     * Skips the caller ({@code tests} names them) unless this is Linux with Landlock ABI 3+, then
     * returns bin/magus of the checkout: failsafe runs in the module's directory, so the nearest
     * ancestor holding bin/magus and a built cli.jar.
     */
    static Path find(String tests) {
        boolean linux = System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux");
        int abi = linux ? LandlockProbe.kernel().abi() : 0;
        String why = tests + " skipped: need Linux with Landlock ABI 3+ (ABI " + abi + ")";
        if (abi < 3) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(abi >= 3, why);
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isExecutable(d.resolve("bin/magus")) && Files.isRegularFile(d.resolve("cli/target/cli.jar"))) {
                return d.resolve("bin/magus");
            }
        }
        throw new IllegalStateException("no built checkout (bin/magus and cli/target/cli.jar) above "
                + Path.of("").toAbsolutePath());
    }

    /** A person's environment on the fake {@code home}, with {@code tmp} as TMPDIR; callers may add to it. */
    static Map<String, String> env(Path home, Path tmp) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", Optional.ofNullable(System.getenv("PATH")).orElse("/usr/bin:/bin"));
        env.put("HOME", home.toString());
        env.put("LANG", "C.UTF-8");
        env.put("TMPDIR", tmp.toString());
        // magus's cache and state go to the fake home too.
        env.put("XDG_CACHE_HOME", home.resolve(".cache").toString());
        env.put("XDG_STATE_HOME", home.resolve(".local/state").toString());
        return env;
    }

    /** {@code magus args...} in {@code ws} with exactly {@code env}, reading /dev/null. */
    static ProcessBuilder command(Path magus, Path ws, Map<String, String> env, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(magus.toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(ws.toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        return pb;
    }

    /** Runs {@code pb} to its end, asserting (as {@code ended}) that it ends within {@code seconds}. */
    static Result run(ProcessBuilder pb, long seconds, String ended) {
        try {
            Process p = pb.start();
            CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p.getInputStream()));
            boolean done = p.waitFor(seconds, TimeUnit.SECONDS);
            if (!done) {
                p.destroyForcibly();
            }
            assertThat(done).as("%s", ended).isTrue();
            return new Result(p.exitValue(), out.join(), err.join());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String read(InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
