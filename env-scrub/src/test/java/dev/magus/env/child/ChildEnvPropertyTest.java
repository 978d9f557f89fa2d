package dev.magus.env.child;

import dev.magus.events.Mode;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.env.Allowlist;
import dev.magus.env.MagusVariables;
import dev.magus.env.overlay.Overlay;
import dev.magus.env.platform.Platform;
import dev.magus.env.proc.ProcAccess;
import dev.magus.env.scrub.Scrubber;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

class ChildEnvPropertyTest {
    private static final SandboxDirs DIRS = new SandboxDirs(
            Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath().resolve("magus-run-fake"),
            Path.of(System.getProperty("user.home")).resolve(".cache/magus"),
            Path.of(System.getProperty("user.home")).resolve(".local/state/magus"));

    /** Names a real environment mixes: baseline, secrets, tool settings, magus's own, noise. */
    private static final List<String> KNOWN = List.of(
            "HOME", "USER", "LOGNAME", "PATH", "LANG", "LC_ALL", "LC_TIME", "TZ", "TERM", "SHELL", "PWD",
            "XDG_CACHE_HOME", "XDG_RUNTIME_DIR", "TMPDIR", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN",
            "VAULT_TOKEN", "NPM_TOKEN", "ANTHROPIC_API_KEY", "SSH_AUTH_SOCK", "GOOGLE_APPLICATION_CREDENTIALS",
            "GOFLAGS", "GOCACHE", "MISE_DATA_DIR", "MISE_SAFE", "ASDF_DIR", "TF_PLUGIN_CACHE_DIR",
            "MAGUS_SANDBOX", "MAGUS_CACHE_DIR", "MAGUS_STATE_DIR", "MAGUS_PROC_SOCKET", "MAGUS_PROC_TOKEN",
            "MAGUS_SERVER_ADDRESS", "MAGUS_OTHER", "LCX", "XDGX");

    @Provide
    Arbitrary<String> names() {
        Arbitrary<String> random = Arbitraries.strings().withChars("ABCDEGLMOSTX_").ofMinLength(1).ofMaxLength(10)
                .filter(s -> !Character.isDigit(s.charAt(0)));
        return Arbitraries.oneOf(Arbitraries.of(KNOWN), random);
    }

    @Provide
    Arbitrary<Map<String, String>> hosts() {
        Arbitrary<String> values = Arbitraries.strings().alpha().ofMinLength(6).ofMaxLength(12)
                // Some shaped as a run's token, the one kind of MAGUS_PROC_TOKEN a recursive magus gets.
                .map(s -> (s.length() % 2 == 0 ? "run-" : "val-") + s);
        return Arbitraries.maps(names(), values).ofMaxSize(60);
    }

    @Provide
    Arbitrary<Allowlist> allowlists() {
        Arbitrary<String> patterns = Arbitraries.oneOf(
                Arbitraries.of("MISE_*", "AWS_*", "GO_*", "MAGUS_*", "LC_*", "TF_*"),
                Arbitraries.strings().withChars("ABCDEGLMOSTX").ofMinLength(2).ofMaxLength(4).map(s -> s + "_*"));
        Arbitrary<String> entry = Arbitraries.oneOf(names(), patterns);
        return entry.list().ofMaxSize(6).map(l -> Allowlist.parse(l, "property"));
    }

    @Provide
    Arbitrary<Overlay> overlays() {
        Arbitrary<Tuple.Tuple3<Boolean, String, String>> op = Combinators.combine(
                Arbitraries.of(true, false), names(), Arbitraries.strings().alpha().ofMaxLength(8).map(s -> "ovl-" + s))
                .as(Tuple::of);
        return op.list().ofMaxSize(8).map(ops -> {
            Overlay o = Overlay.empty();
            for (Tuple.Tuple3<Boolean, String, String> t : ops) {
                o = t.get1() ? o.set(t.get2(), t.get3()) : o.unset(t.get2());
            }
            return o;
        });
    }

    @Property(tries = 400)
    void everyKeptVariableIsBaselinePassthroughOverlayOrFloor(
            @ForAll("hosts") Map<String, String> host,
            @ForAll("allowlists") Allowlist passthrough,
            @ForAll("overlays") Overlay overlay,
            @ForAll Platform platform,
            @ForAll boolean required,
            @ForAll boolean recursive) {
        Mode mode = required ? Mode.REQUIRED : Mode.BEST_EFFORT;
        ProcAccess proc = ProcAccess.forCommand(recursive, host);
        ChildEnvironment child = ChildEnv.childEnv(host,
                ChildEnvRequest.sandboxed(mode, Scrubber.of(platform, passthrough), DIRS, overlay, proc));

        Allowlist baseline = platform.baseline();
        for (String name : child.variables().keySet()) {
            boolean floor = MagusVariables.FLOOR.contains(name) || name.equals(MagusVariables.TMPDIR);
            boolean reinjected = recursive && MagusVariables.isProcPointer(name);
            assertThat(baseline.permits(name) || passthrough.permits(name) || overlay.sets().containsKey(name)
                    || floor || reinjected).as(name).isTrue();
            if (MagusVariables.isProcPointer(name)) {
                assertThat(recursive).as("proc pointer " + name + " reached a non-magus child").isTrue();
                assertThat(child.variables().get(name)).isEqualTo(host.get(name));
            }
        }
        assertThat(child.dropped() + child.keptFromHost()).isEqualTo(host.size());
        long expectedDropped = host.keySet().stream().filter(n -> !baseline.permits(n) && !passthrough.permits(n)
                && !MagusVariables.OWNED.contains(n)).count();
        assertThat(child.dropped()).isEqualTo(expectedDropped);

        assertThat(child.variables()).containsEntry("MAGUS_SANDBOX", mode.spelling())
                .containsEntry("MAGUS_CACHE_DIR", DIRS.cacheDir().toString())
                .containsEntry("MAGUS_STATE_DIR", DIRS.stateDir().toString());
        // A host value reaches the child unchanged, or not at all, unless the overlay or magus decides it.
        host.forEach((k, v) -> {
            if (child.variables().containsKey(k) && !overlay.touches(k) && !MagusVariables.OWNED.contains(k)) {
                assertThat(child.variables().get(k)).isEqualTo(v);
            }
        });

        List<Diagnostic> notices = child.diagnostics(Code.MGS2003);
        assertThat(notices).hasSize(child.dropped() > 0 ? 1 : 0);
        for (Diagnostic d : notices) {
            assertThat(d.details()).containsEntry("dropped", Integer.toString(child.dropped()));
            host.forEach((k, v) -> {
                if (!child.variables().containsKey(k)) {
                    assertThat(d.message() + d.details()).doesNotContain(v);
                }
            });
        }
        for (Diagnostic d : child.diagnostics(Code.MGS2008)) {
            host.values().forEach(v -> assertThat(d.message() + d.details()).doesNotContain(v));
        }
    }

    @Property(tries = 400)
    void modeOffIsTheOverlayOverTheHostWithoutThePointers(
            @ForAll("hosts") Map<String, String> host,
            @ForAll("overlays") Overlay overlay,
            @ForAll boolean recursive) {
        ChildEnvironment child = ChildEnv.childEnv(host,
                ChildEnvRequest.off(overlay, ProcAccess.forCommand(recursive, host)));
        Map<String, String> expected = new HashMap<>(overlay.over(host));
        MagusVariables.PROC_POINTERS.forEach(expected::remove);
        if (recursive) {
            MagusVariables.PROC_POINTERS.forEach(p -> {
                if (reinjectable(host, p)) {
                    expected.put(p, host.get(p));
                }
            });
        }
        assertThat(child.variables()).isEqualTo(expected);
        assertThat(child.dropped()).isZero();
        assertThat(child.keptFromHost()).isEqualTo(host.size());
        Map<String, String> before = overlay.over(host);
        // In a forwarded run's environment (a run's token there) the server's own pointers are decided without a line.
        boolean served = before.getOrDefault("MAGUS_PROC_TOKEN", "").startsWith("run-");
        long decided = MagusVariables.PROC_POINTERS.stream()
                .filter(n -> !(served && (n.equals("MAGUS_PROC_TOKEN") || n.equals("MAGUS_SERVER_ADDRESS"))))
                .filter(n -> before.containsKey(n) || (recursive && reinjectable(host, n))).count();
        assertThat(child.diagnostics()).hasSize((int) decided)
                .allSatisfy(d -> assertThat(d.code()).isEqualTo(Code.MGS2008));
    }

    /** Whether a recursive magus gets {@code pointer} from {@code host}: a token only when it is a run's. */
    private static boolean reinjectable(Map<String, String> host, String pointer) {
        return host.containsKey(pointer) && (!pointer.equals(dev.magus.events.MagusEnv.PROC_TOKEN)
                || host.get(pointer).startsWith(MagusVariables.RUN_TOKEN_PREFIX));
    }
}
