package dev.magus.policy;

import dev.magus.events.DetailKey;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.env.Allowlist;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.policy.control.ControlFiles;
import dev.magus.policy.fs.Access;
import dev.magus.policy.fs.AccessMode;
import dev.magus.policy.fs.Rule;
import dev.magus.policy.fs.Ruleset;
import dev.magus.policy.lease.LeaseJob;
import dev.magus.policy.lease.LeaseNarrowing;
import dev.magus.policy.lease.LeaseScope;
import dev.magus.policy.lease.Narrowing;
import dev.magus.policy.lease.Tree;
import dev.magus.policy.lease.WriteGlob;
import dev.magus.events.Mode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The binding layer of a leased policy on a real checkout: exactly the job's globs, and every refusal names the job. */
class LeasePolicyCheckTest {
    @TempDir
    Path dir;
    Path ws;
    Path cache;
    Path temp;
    Policy leased;

    @BeforeEach
    void setUp() throws IOException {
        dir = dir.toRealPath();
        ws = Files.createDirectories(dir.resolve("ws"));
        cache = Files.createDirectories(dir.resolve("cache"));
        temp = Files.createDirectories(dir.resolve("tmp"));
        Files.createDirectories(ws.resolve("docs"));
        Files.createDirectories(ws.resolve("src"));
        Ruleset rules = Ruleset.of(List.of(new Rule(ws, AccessMode.RWX, "core:workspace"), new Rule(cache, AccessMode.RW, "core:cache"),
                new Rule(temp, AccessMode.RWX, "core:temp"), new Rule(Path.of("/usr"), AccessMode.RX, "core:/usr")));
        Policy p = new Policy(Mode.REQUIRED, ws, dir.resolve("home"), rules, Allowlist.EMPTY, ControlFiles.of(ws, List.of()),
                List.of());
        LeaseJob job = new LeaseJob("4", true, true, List.of(WriteGlob.parse("docs/*.md", "t"), WriteGlob.parse("src/**", "t")));
        Narrowing n = LeaseNarrowing.plan(p.ruleset(), job, new LeaseScope(ws, cache, temp, dir.resolve("state")), Tree.real());
        leased = p.narrowedBy((Narrowing.Narrowed) n);
    }

    private Verdict write(String path) {
        return leased.check(Access.WRITE, Path.of(path), ws);
    }

    @Test
    void whereTheKernelGrantsTheWholeDirectoryTheBindingAllowsOnlyTheGlob() {
        assertThat(leased.ruleset().permits(ws.resolve("docs/new.txt"), Access.WRITE)).as("the kernel's rule: all of docs/").isTrue();
        assertThat(write("docs/new.md")).isInstanceOf(Verdict.Allowed.class);
        assertThat(write("docs/new.txt")).isInstanceOfSatisfying(Verdict.Denied.class, d -> {
            assertThat(d.diagnostic().code()).isEqualTo(Code.MGS2002);
            assertThat(d.diagnostic().details()).containsEntry("job", "4").containsEntry("write_paths", "docs/*.md src/**");
            assertThat(d.diagnostic().message()).contains("job 4");
        });
        assertThat(write("src/a/b.java")).isInstanceOf(Verdict.Allowed.class);
    }

    @Test
    void aWriteTheLeaseTookAwayNamesTheJobNotAnAllowToAdd() {
        assertThat(write("README")).isInstanceOfSatisfying(Verdict.Denied.class, d -> {
            assertThat(d.diagnostic().details()).containsEntry("job", "4").doesNotContainKey(DetailKey.ALLOW_YAML.key());
            assertThat(d.diagnostic().subject()).isEqualTo(ws.resolve("README").toString());
        });
    }

    @Test
    void aRefusalTheLeaseDidNotCauseNamesNoJob() {
        assertThat(write(dir.resolve("elsewhere").toString())).isInstanceOfSatisfying(Verdict.Denied.class,
                d -> assertThat(d.diagnostic().details()).doesNotContainKey("job"));
        assertThat(write("src/.envrc")).as("a control file is refused for what it is")
                .isInstanceOfSatisfying(Verdict.Denied.class, d -> {
                    assertThat(d.diagnostic().details()).containsKey("control_file").doesNotContainKey("job");
                });
        assertThat(write(cache.resolve("x").toString())).isInstanceOf(Verdict.Allowed.class);
        assertThat(write(temp.resolve("x").toString())).isInstanceOf(Verdict.Allowed.class);
    }

    @Test
    void aKernelRefusalInTheCheckoutIsAttributedToTheJob() {
        Diagnostic kernel = Diagnostic.of(Code.MGS2002, "write denied by Landlock", ws.resolve("x").toString(), Operation.WRITE,
                Layer.KERNEL, "audit");
        assertThat(leased.attribute(kernel).details()).containsEntry("job", "4").containsEntry("lease", ws.toString());
        Diagnostic outside = Diagnostic.of(Code.MGS2002, "write denied", "/etc/passwd", Operation.WRITE, Layer.KERNEL, "audit");
        assertThat(leased.attribute(outside)).isEqualTo(outside);
        Diagnostic read = Diagnostic.of(Code.MGS2001, "read denied", ws.resolve("x").toString(), Operation.READ, Layer.KERNEL, "audit");
        assertThat(leased.attribute(read)).isEqualTo(read);
    }
}
