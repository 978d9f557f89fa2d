package dev.magus.policy;

import dev.magus.env.platform.Platform;
import static dev.magus.policy.FakeHost.allow;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.env.Allowlist;
import dev.magus.events.Code;
import dev.magus.events.SandboxException;
import dev.magus.policy.decl.DeclLayer;
import dev.magus.policy.decl.MergedDecl;
import dev.magus.policy.decl.SandboxAllow;
import dev.magus.policy.decl.Site;
import dev.magus.policy.fs.Access;
import dev.magus.policy.fs.AccessMode;
import dev.magus.policy.fs.Rule;
import dev.magus.events.Mode;
import dev.magus.policy.path.MemoryFilesystem;
import dev.magus.policy.path.PathResolver;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The exact policy of a host described in memory: every rule, in order, with its mode and
 * origin, and every note, for the core footprint on Linux and macOS, declarations under each
 * kind of base, links, missing paths, the git dirs of a checkout, a linked worktree and a
 * submodule, and links a previous run could have planted. The same on every machine, where
 * {@link PolicyBuilderTest} on a temp dir can only say what this host happens to have.
 */
class InMemoryHostPolicyTest {
    static final Path HOME = Path.of("/home/u");
    static final Path WS = Path.of("/home/u/src/ws");
    static final Path TEMP = Path.of("/run/user/1000/magus-run-1");
    static final List<Path> INSTALLATION = List.of(Path.of("/opt/magus/lib"), Path.of("/usr/lib/jvm/java-17"));

    /** A merged-usr Debian in a container: /bin is a link into /usr, no /lib32, /libx32 or /dev/tty. */
    static MemoryFilesystem.Builder linux() {
        return MemoryFilesystem.builder()
                .dir("/usr/bin", "/usr/sbin", "/usr/lib/jvm/java-17", "/usr/lib64")
                .link("/bin", "usr/bin").link("/sbin", "usr/sbin").link("/lib", "usr/lib").link("/lib64", "usr/lib64")
                .dir("/etc", "/proc", "/sys", "/tmp", "/var/tmp", "/opt/magus/lib")
                .device("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
                .dir(HOME.resolve(".cache/magus"), WS, TEMP)
                .dir(HOME.resolve(".ssh")).file(HOME.resolve(".ssh/id_rsa"), "FAKE KEY\n");
    }

    static HostFacts linuxHost(Map<String, String> env) {
        Map<String, String> all = new HashMap<>(Map.of("HOME", HOME.toString()));
        all.putAll(env);
        return HostFacts.linux(all, HOME, INSTALLATION, TEMP);
    }

    /** The rules of the Linux core for {@link #WS} without a git checkout, in the order a policy lists them. */
    static List<Rule> linuxCore() {
        return List.of(
                rule("/dev/full", AccessMode.RW, "core:/dev/full"),
                rule("/dev/null", AccessMode.RW, "core:/dev/null"),
                rule("/dev/random", AccessMode.RW, "core:/dev/random"),
                rule("/dev/urandom", AccessMode.RW, "core:/dev/urandom"),
                rule("/dev/zero", AccessMode.RW, "core:/dev/zero"),
                rule("/etc", AccessMode.R, "core:/etc"),
                rule("/home/u/.cache/magus", AccessMode.RW, "core:cache"),
                rule("/home/u/src/ws", AccessMode.RWX, "core:workspace"),
                rule("/opt/magus/lib", AccessMode.RX, "core:installation"),
                rule("/proc", AccessMode.R, "core:/proc"),
                rule("/run/user/1000/magus-run-1", AccessMode.RWX, "core:temp"),
                rule("/sys", AccessMode.R, "core:/sys"),
                rule("/usr", AccessMode.RX, "core:/usr"),
                rule("/usr/bin", AccessMode.RX, "core:/bin"),
                rule("/usr/lib", AccessMode.RX, "core:/lib"),
                rule("/usr/lib/jvm/java-17", AccessMode.RX, "core:installation"),
                rule("/usr/lib64", AccessMode.RX, "core:/lib64"),
                rule("/usr/sbin", AccessMode.RX, "core:/sbin"));
    }

    static List<PolicyNote> linuxCoreNotes() {
        return List.of(skipped("core:/lib32", "/lib32"), skipped("core:/libx32", "/libx32"), skipped("core:/dev/tty", "/dev/tty"));
    }

    static Rule rule(String path, AccessMode mode, String origin) {
        return new Rule(Path.of(path), mode, origin);
    }

    static PolicyNote skipped(String origin, String path) {
        return new PolicyNote(PolicyNote.Kind.SKIPPED, origin, path, path + " does not exist on this host");
    }

    static PolicyNote nothing(String origin, String subject, String why) {
        return new PolicyNote(PolicyNote.Kind.GRANTS_NOTHING, origin, subject, why);
    }

    static Policy build(MemoryFilesystem fs, HostFacts host, Path root, SandboxAllow... allow) {
        return new PolicyBuilder(host, fs).policy(Mode.REQUIRED, root, new MergedDecl(List.of(allow), Allowlist.EMPTY));
    }

    static SandboxAllow declare(DeclLayer layer, String name, String env, String base, String path, String mode, int i) {
        return SandboxAllow.declare(Optional.ofNullable(name), Optional.ofNullable(env), Optional.ofNullable(base),
                Optional.ofNullable(path), Optional.of(mode), layer, Site.of(layer.label(), "sandbox.allow[" + i + "]"));
    }

    @Test
    void linuxCoreFootprint() {
        MemoryFilesystem fs = linux().build();
        Policy p = build(fs, linuxHost(Map.of()), WS);
        assertThat(p.rules()).containsExactlyElementsOf(linuxCore());
        assertThat(p.notes()).containsExactlyElementsOf(linuxCoreNotes());
        assertThat(p.controlFiles().gitDirs()).isEmpty();
        // Its checks resolve in the same tree: /bin/sh is /usr/bin/sh, the key is out.
        assertThat(p.resolver()).isEqualTo(new PathResolver(fs));
        assertThat(p.check(Access.EXEC, Path.of("/bin/sh"), WS)).isEqualTo(new Verdict.Allowed(Path.of("/usr/bin/sh")));
        assertThat(p.check(Access.READ, HOME.resolve(".ssh/id_rsa"), WS).allowed()).isFalse();
        assertThat(p.check(Access.WRITE, Path.of("out/x"), WS)).isEqualTo(new Verdict.Allowed(WS.resolve("out/x")));
    }

    @Test
    void macosCoreFootprint() {
        Path home = Path.of("/Users/u");
        Path ws = home.resolve("src/ws");
        Path jdk = Path.of("/Library/Java/JavaVirtualMachines/temurin-17.jdk/Contents/Home");
        MemoryFilesystem fs = MemoryFilesystem.builder()
                .dir("/usr/bin", "/bin", "/sbin", "/System/Library", "/private/etc", "/private/tmp", "/private/var/folders/xy/T")
                .dir(jdk).dir("/opt/homebrew/opt/magus/libexec/lib")
                .link("/etc", "private/etc").link("/tmp", "private/tmp").link("/var", "private/var")
                .device("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")
                .dir(home.resolve("Library/Caches/magus"), ws, home.resolve("Library/Application Support/tool"))
                .dir("/private/var/folders/xy/T/magus-run-1")
                .build();
        HostFacts mac = HostFacts.of(Map.of("HOME", home.toString()), home, 501, Platform.MACOS,
                List.of(Path.of("/opt/homebrew/opt/magus/libexec/lib"), jdk), Path.of("/var/folders/xy/T/magus-run-1"));
        Policy p = build(fs, mac, ws, declare(DeclLayer.spell("tool"), null, null, "userConfig", "tool", "rw", 0));
        assertThat(p.rules()).containsExactly(
                rule("/Library", AccessMode.RX, "core:/Library"),
                rule(jdk.toString(), AccessMode.RX, "core:installation"),
                rule("/System", AccessMode.RX, "core:/System"),
                rule("/Users/u/Library/Application Support/tool", AccessMode.RW, "spell:tool"),
                rule("/Users/u/Library/Caches/magus", AccessMode.RW, "core:cache"),
                rule("/Users/u/src/ws", AccessMode.RWX, "core:workspace"),
                rule("/bin", AccessMode.RX, "core:/bin"),
                rule("/dev/full", AccessMode.RW, "core:/dev/full"),
                rule("/dev/null", AccessMode.RW, "core:/dev/null"),
                rule("/dev/random", AccessMode.RW, "core:/dev/random"),
                rule("/dev/tty", AccessMode.RW, "core:/dev/tty"),
                rule("/dev/urandom", AccessMode.RW, "core:/dev/urandom"),
                rule("/dev/zero", AccessMode.RW, "core:/dev/zero"),
                rule("/opt/homebrew/opt/magus/libexec/lib", AccessMode.RX, "core:installation"),
                // /etc and the temp dir through their links, where the checks will meet them.
                rule("/private/etc", AccessMode.R, "core:/etc"),
                rule("/private/var/folders/xy/T/magus-run-1", AccessMode.RWX, "core:temp"),
                rule("/sbin", AccessMode.RX, "core:/sbin"),
                rule("/usr", AccessMode.RX, "core:/usr"));
        assertThat(p.notes()).isEmpty();
    }

    @Test
    void declarationsUnderEachBaseAreResolvedOrSkippedWithTheirNotes() {
        MemoryFilesystem fs = linux()
                .dir("/data/go-build", "/data/cargo/registry").dir(HOME.resolve(".local/share/mise"), HOME.resolve("go/pkg/mod"))
                .dir(WS.resolve("build/out"), HOME.resolve(".config-alt"))
                .link(WS.resolve("out"), "build/out")
                .link(HOME.resolve(".cargo"), "/data/cargo")
                .build();
        HostFacts host = linuxHost(Map.of("GOCACHE", "/data/go-build", "XDG_CONFIG_HOME", HOME.resolve(".config-alt").toString()));
        Policy p = build(fs, host, WS,
                declare(DeclLayer.spell("go"), "gocache", "GOCACHE", "userCache", "go-build", "rwx", 0),
                declare(DeclLayer.workspace(), "mise-installs", "MISE_DATA_DIR", "xdgData", "mise", "rx", 1),
                declare(DeclLayer.spell("tool"), null, null, "xdgConfig", "tool", "ro", 2),
                declare(DeclLayer.spell("go"), null, null, "home", "go/pkg/mod", "rw", 3),
                declare(DeclLayer.target("test"), null, null, "workspace", "out", "rw", 4),
                declare(DeclLayer.spell("rust"), null, null, null, "~/.cargo/registry", "rw", 5),
                declare(DeclLayer.spell("opt"), null, null, null, "/opt/absent", "rx", 6));
        List<Rule> expected = new java.util.ArrayList<>(linuxCore());
        expected.add(0, rule("/data/cargo/registry", AccessMode.RW, "spell:rust"));
        expected.add(1, rule("/data/go-build", AccessMode.RWX, "spell:go/gocache"));
        expected.add(9, rule("/home/u/.local/share/mise", AccessMode.RX, "workspace:mise-installs"));
        expected.add(10, rule("/home/u/go/pkg/mod", AccessMode.RW, "spell:go"));
        expected.add(12, rule("/home/u/src/ws/build/out", AccessMode.RW, "target:test"));
        assertThat(p.rules()).containsExactlyElementsOf(expected);
        List<PolicyNote> notes = new java.util.ArrayList<>(linuxCoreNotes());
        notes.add(skipped("spell:tool", "/home/u/.config-alt/tool"));
        notes.add(skipped("spell:opt", "/opt/absent"));
        assertThat(p.notes()).containsExactlyElementsOf(notes);
    }

    @Test
    void linksToHomeOrAboveAndLinksPlantedInWritableLocationsGrantNothing() {
        MemoryFilesystem fs = linux()
                .dir("/srv/gen", "/data/outside").dir(WS.resolve("build/real"), WS.resolve(".cache"))
                .link(WS.resolve("out"), HOME.resolve(".ssh"))
                .link(WS.resolve("gen"), "/srv/gen")
                .link(WS.resolve("inside"), "build/real")
                .link(WS.resolve(".cache/magus"), "/data/outside")
                .link("/srv/homelink", "../home/u")
                .build();
        Policy p = build(fs, linuxHost(Map.of("XDG_CACHE_HOME", WS.resolve(".cache").toString())), WS,
                declare(DeclLayer.workspace(), null, null, "workspace", "out", "rw", 0),
                declare(DeclLayer.workspace(), null, null, "workspace", "gen/sub", "rw", 1),
                declare(DeclLayer.spell("abs"), null, null, null, WS.resolve("gen").toString(), "rw", 0),
                declare(DeclLayer.workspace(), null, null, "workspace", "inside", "rwx", 3),
                declare(DeclLayer.spell("home"), null, null, null, "/srv/homelink", "rw", 0));
        List<Rule> expected = new java.util.ArrayList<>(linuxCore());
        expected.remove(rule("/home/u/.cache/magus", AccessMode.RW, "core:cache"));
        expected.add(7, rule("/home/u/src/ws/build/real", AccessMode.RWX, "workspace:sandbox.allow[3]"));
        assertThat(p.rules()).containsExactlyElementsOf(expected);
        String planted = ", a symbolic link inside ~/src/ws (which a confined run can write), to ";
        String widen = " outside it; a link a run could have planted never widens the next run: declare ";
        List<PolicyNote> notes = new java.util.ArrayList<>(linuxCoreNotes());
        notes.add(nothing("core:cache", "/home/u/src/ws/.cache/magus", "/home/u/src/ws/.cache/magus goes through"
                + " ~/src/ws/.cache/magus" + planted + "/data/outside" + widen + "/data/outside itself if it is meant"));
        notes.add(nothing("workspace:sandbox.allow[0]", "/home/u/src/ws/out", "/home/u/src/ws/out goes through ~/src/ws/out"
                + planted + "~/.ssh" + widen + "~/.ssh itself if it is meant"));
        notes.add(nothing("workspace:sandbox.allow[1]", "/home/u/src/ws/gen/sub", "/home/u/src/ws/gen/sub goes through"
                + " ~/src/ws/gen" + planted + "/srv/gen/sub" + widen + "/srv/gen/sub itself if it is meant"));
        notes.add(nothing("spell:abs", "/home/u/src/ws/gen", "/home/u/src/ws/gen goes through ~/src/ws/gen" + planted
                + "/srv/gen" + widen + "/srv/gen itself if it is meant"));
        notes.add(nothing("spell:home", "/srv/homelink", "/srv/homelink resolves to ~, which is the home directory or an"
                + " ancestor of it; $HOME is never granted as a whole"));
        assertThat(p.notes()).containsExactlyElementsOf(notes);
        assertThat(p.check(Access.WRITE, WS.resolve("gen/passwd"), WS).allowed()).isFalse();
    }

    /** A repository's git dir as git lays it out: HEAD, objects and refs. */
    static MemoryFilesystem.Builder repository(MemoryFilesystem.Builder b, Path gitDir) {
        return b.file(gitDir.resolve("HEAD"), "ref: refs/heads/main\n").dir(gitDir.resolve("objects"), gitDir.resolve("refs/heads"))
                .dir(gitDir.resolve("hooks"));
    }

    @Test
    void theGitDirOfACheckoutIsFoundFromASubdirectoryAndGranted() {
        Path sub = WS.resolve("pkg/sub");
        MemoryFilesystem fs = repository(linux(), WS.resolve(".git")).dir(sub).build();
        PathResolver resolver = new PathResolver(fs);
        assertThat(GitDirs.of(WS, HOME, resolver)).isEqualTo(new GitDirs.Found(List.of(WS.resolve(".git")), List.of()));
        assertThat(GitDirs.of(sub, HOME, resolver)).isEqualTo(new GitDirs.Found(List.of(WS.resolve(".git")), List.of()));

        Policy p = build(fs, linuxHost(Map.of()), WS);
        List<Rule> expected = new java.util.ArrayList<>(linuxCore());
        expected.add(8, rule("/home/u/src/ws/.git", AccessMode.RW, "core:git"));
        assertThat(p.rules()).containsExactlyElementsOf(expected);
        assertThat(p.notes()).containsExactlyElementsOf(linuxCoreNotes());
        assertThat(p.check(Access.WRITE, WS.resolve(".git/objects/ab/cdef"), WS).allowed()).isTrue();
        assertThat(p.check(Access.WRITE, WS.resolve(".git/hooks/pre-commit"), WS).allowed()).isFalse();
    }

    @Test
    void aLinkedWorktreeHasItsOwnGitDirAndTheCommonDir() {
        Path main = HOME.resolve("src/main");
        Path wtGitDir = main.resolve(".git/worktrees/ws");
        MemoryFilesystem fs = repository(linux(), main.resolve(".git"))
                .file(wtGitDir.resolve("HEAD"), "ref: refs/heads/ws\n")
                .file(wtGitDir.resolve("commondir"), "../..\n")
                .file(wtGitDir.resolve("gitdir"), WS.resolve(".git") + "\n")
                .file(WS.resolve(".git"), "gitdir: " + wtGitDir + "\n")
                .build();
        assertThat(GitDirs.of(WS, HOME, new PathResolver(fs)))
                .isEqualTo(new GitDirs.Found(List.of(wtGitDir, main.resolve(".git")), List.of()));

        Policy p = build(fs, linuxHost(Map.of()), WS);
        List<Rule> expected = new java.util.ArrayList<>(linuxCore());
        expected.add(7, rule("/home/u/src/main/.git", AccessMode.RW, "core:git"));
        expected.add(8, rule("/home/u/src/main/.git/worktrees/ws", AccessMode.RW, "core:git"));
        assertThat(p.rules()).containsExactlyElementsOf(expected);
        assertThat(p.notes()).containsExactlyElementsOf(linuxCoreNotes());
        assertThat(p.controlFiles().gitDirs()).containsExactly(wtGitDir, main.resolve(".git"));
        assertThat(p.check(Access.WRITE, main.resolve(".git/hooks/pre-commit"), WS).allowed()).isFalse();
        assertThat(p.check(Access.WRITE, main.resolve(".git/objects/ab/cdef"), WS).allowed()).isTrue();
        assertThat(p.check(Access.READ, main.resolve("README"), WS).allowed()).isFalse();
    }

    @Test
    void aSubmoduleHasItsGitDirWhoseConfigNamesItBack() {
        Path app = HOME.resolve("src/app");
        Path sub = app.resolve("vendor/lib");
        Path subGitDir = app.resolve(".git/modules/vendor/lib");
        MemoryFilesystem.Builder b = repository(linux(), app.resolve(".git"));
        MemoryFilesystem fs = repository(b, subGitDir)
                .file(subGitDir.resolve("config"), "[core]\n\trepositoryformatversion = 0\n\tworktree = ../../../../vendor/lib\n")
                .file(sub.resolve(".git"), "gitdir: ../../.git/modules/vendor/lib\n")
                .build();
        assertThat(GitDirs.of(sub, HOME, new PathResolver(fs))).isEqualTo(new GitDirs.Found(List.of(subGitDir), List.of()));

        HostFacts host = linuxHost(Map.of());
        Policy p = build(fs, host, sub);
        assertThat(p.rules()).filteredOn(r -> !r.origin().startsWith("core:/")).containsExactly(
                rule("/home/u/.cache/magus", AccessMode.RW, "core:cache"),
                rule("/home/u/src/app/.git/modules/vendor/lib", AccessMode.RW, "core:git"),
                rule("/home/u/src/app/vendor/lib", AccessMode.RWX, "core:workspace"),
                rule("/opt/magus/lib", AccessMode.RX, "core:installation"),
                rule("/run/user/1000/magus-run-1", AccessMode.RWX, "core:temp"),
                rule("/usr/lib/jvm/java-17", AccessMode.RX, "core:installation"));

        // The same git dir without core.worktree is some other repository's: refused, and said why.
        MemoryFilesystem unnamed = repository(repository(linux(), app.resolve(".git")), subGitDir)
                .file(sub.resolve(".git"), "gitdir: ../../.git/modules/vendor/lib\n").build();
        assertThat(GitDirs.of(sub, HOME, new PathResolver(unnamed))).isEqualTo(new GitDirs.Found(List.of(), List.of(
                nothing("core:git", sub.resolve(".git").toString(), "~/src/app/.git/modules/vendor/lib does not name"
                        + " ~/src/app/vendor/lib back (no core.worktree in its config leading here), so it is some other"
                        + " repository's git dir; if it is this checkout's, run 'git config core.worktree " + sub + "' in it"))));
    }

    @Test
    void aPlantedDotGitGrantsNothingAndSaysWhy() {
        Path other = Path.of("/srv/other/.git");
        MemoryFilesystem linked = repository(linux(), other).link(WS.resolve(".git"), other).build();
        GitDirs.Found found = new GitDirs.Found(List.of(), List.of(nothing("core:git", WS.resolve(".git").toString(),
                "~/src/ws/.git is a symbolic link to /srv/other/.git, out of the workspace or to nothing: a git dir is never"
                        + " reached through a link a run could have planted")));
        assertThat(GitDirs.of(WS, HOME, new PathResolver(linked))).isEqualTo(found);
        Policy p = build(linked, linuxHost(Map.of()), WS);
        assertThat(p.rules()).containsExactlyElementsOf(linuxCore());
        List<PolicyNote> notes = new java.util.ArrayList<>(found.notes());
        notes.addAll(linuxCoreNotes());
        assertThat(p.notes()).containsExactlyElementsOf(notes);

        MemoryFilesystem root = linux().file(WS.resolve(".git"), "gitdir: /\n").build();
        assertThat(GitDirs.of(WS, HOME, new PathResolver(root))).isEqualTo(new GitDirs.Found(List.of(), List.of(
                nothing("core:git", WS.resolve(".git").toString(),
                        "/ is the home directory or an ancestor of it, which is never granted as a git dir"))));

        MemoryFilesystem fifo = linux().device(WS.resolve(".git").toString()).build();
        assertThat(GitDirs.of(WS, HOME, new PathResolver(fifo))).isEqualTo(new GitDirs.Found(List.of(), List.of(
                nothing("core:git", WS.resolve(".git").toString(), "~/src/ws/.git is neither a directory nor a regular file"))));
    }

    @Test
    void readableIsNotExecutableAndTheOperatingSystemsBinariesRun() {
        MemoryFilesystem fs = linux().file("/etc/hostname", "host\n").file("/usr/bin/env").build();
        Policy p = build(fs, linuxHost(Map.of()), WS);
        assertThat(p.check(Access.READ, Path.of("/etc/hostname"), WS)).isEqualTo(new Verdict.Allowed(Path.of("/etc/hostname")));
        assertThat(p.check(Access.EXEC, Path.of("/etc/hostname"), WS)).isInstanceOfSatisfying(Verdict.Denied.class,
                d -> assertThat(d.diagnostic().code()).isEqualTo(Code.MGS2007));
        assertThat(p.check(Access.EXEC, Path.of("/bin/env"), WS)).isEqualTo(new Verdict.Allowed(Path.of("/usr/bin/env")));
        assertThat(p.check(Access.WRITE, Path.of("/usr/bin/env"), WS).allowed()).isFalse();
    }

    @Test
    void theSharedTempDirsAndTheirAncestorsAreNoWorkspace() {
        MemoryFilesystem fs = linux().link("/var/tmp-link", "tmp").build();
        HostFacts host = linuxHost(Map.of());
        for (Map.Entry<String, String> refused : Map.of("/tmp", "the shared temp dir /tmp", "/var",
                "an ancestor of the shared temp dir /var/tmp", "/var/tmp-link", "the shared temp dir /var/tmp").entrySet()) {
            assertThatThrownBy(() -> new PolicyBuilder(host, fs).policy(Mode.REQUIRED, Path.of(refused.getKey()), MergedDecl.EMPTY))
                    .as(refused.getKey())
                    .isInstanceOfSatisfying(SandboxException.class, e -> {
                        assertThat(e.code()).isEqualTo(Code.MGS2004);
                        assertThat(e.diagnostic().message()).contains(" is " + refused.getValue() + ", which a sandbox never");
                    });
        }
    }

    @Test
    void aCheckerResolvesInThePolicysTreeAndAPolicyNeverRemembers() {
        MemoryFilesystem fs = linux().file("/usr/bin/env").link(WS.resolve("keys"), HOME.resolve(".ssh")).build();
        Policy p = build(fs, linuxHost(Map.of()), WS);
        PolicyChecker checker = PolicyChecker.of(p);
        for (Access op : Access.values()) {
            for (Path request : List.of(Path.of("/bin/env"), Path.of("keys/id_rsa"), Path.of("src/new"), WS.resolve(".envrc"))) {
                assertThat(checker.check(op, request, WS)).as("%s %s", op, request).isEqualTo(p.check(op, request, WS));
            }
        }
        assertThat(checker.check(Access.READ, Path.of("keys/id_rsa"), WS).allowed()).isFalse();
        // Two resolvers that remember nothing over one tree answer alike; a caching one is no policy's.
        assertThat(new PathResolver(fs)).isEqualTo(new PathResolver(fs)).isNotEqualTo(PathResolver.walking(fs));
        assertThatThrownBy(() -> new Policy(p.mode(), p.workspaceRoot(), p.home(), p.ruleset(), p.env(), p.controlFiles(),
                p.notes(), PathResolver.caching(fs, 8))).isInstanceOf(IllegalArgumentException.class);
    }
}
