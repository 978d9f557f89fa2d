package dev.magus.cli.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The design of {@code docs/architecture.md}, held by the compiled main classes of every module:
 * no package cycles, the module arrows, and static mutable state only where it is a fact about
 * the process (each such field named here with its reason).
 */
class ArchitectureTest {
    private static JavaClasses main;

    @BeforeAll
    static void importMain() {
        // The modules' main classes: their target/classes, or their jars when the reactor has
        // packaged them; never test classes (test-classes, a module's test-jar).
        main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("/test-classes/") && !location.contains("-tests.jar"))
                .importPackages("dev.magus");
        assertThat(main.stream().map(c -> c.getPackageName()).distinct())
                .as("every module's main classes are on this test's class path")
                .anyMatch(p -> p.startsWith("dev.magus.events")).anyMatch(p -> p.startsWith("dev.magus.cli"))
                .anyMatch(p -> p.startsWith("dev.magus.landlock")).anyMatch(p -> p.startsWith("dev.magus.server"));
    }

    @Test
    void noPackageDependsOnItselfThroughAnother() {
        slices().matching("dev.magus.(**)").should().beFreeOfCycles().check(main);
    }

    @Test
    void modulesDependOnlyOnTheModulesToTheirLeft() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("events").definedBy("dev.magus.events..")
                .layer("env-scrub").definedBy("dev.magus.env..")
                .layer("policy-engine").definedBy("dev.magus.policy..")
                .layer("telemetry").definedBy("dev.magus.telemetry..")
                .layer("landlock").definedBy("dev.magus.landlock..")
                .layer("workspace").definedBy("dev.magus.workspace..")
                .layer("orchestrator").definedBy("dev.magus.orchestrator..")
                .layer("server").definedBy("dev.magus.server..")
                .layer("cli").definedBy("dev.magus.cli..")
                .whereLayer("cli").mayNotBeAccessedByAnyLayer()
                .whereLayer("server").mayOnlyBeAccessedByLayers("cli")
                .whereLayer("orchestrator").mayOnlyBeAccessedByLayers("server", "cli")
                .whereLayer("workspace").mayOnlyBeAccessedByLayers("orchestrator", "server", "cli")
                .whereLayer("landlock").mayOnlyBeAccessedByLayers("orchestrator", "server", "cli")
                .whereLayer("telemetry").mayOnlyBeAccessedByLayers("orchestrator", "server", "cli")
                .whereLayer("policy-engine").mayOnlyBeAccessedByLayers("landlock", "workspace", "orchestrator", "server", "cli")
                .whereLayer("env-scrub").mayOnlyBeAccessedByLayers("policy-engine", "landlock", "workspace", "orchestrator",
                        "server", "cli")
                .check(main);
    }

    @Test
    void yamlNodesStayInsideTheWorkspaceModule() {
        noClasses().that().resideOutsideOfPackage("dev.magus.workspace..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.magus.workspace.yaml..", "org.yaml.snakeyaml.nodes..")
                .check(main);
    }

    @Test
    void theProcessHasOneCleaner() {
        noClasses().that().doNotHaveFullyQualifiedName("dev.magus.policy.cleaner.SharedCleaner")
                .should().callMethod(Cleaner.class, "create")
                .orShould().callMethod(Cleaner.class, "create", ThreadFactory.class)
                .because("SharedCleaner.CLEANER is the process's one cleaner thread")
                .check(main);
    }

    /**
     * Static state allowed, each field with why it is one per process: a fact about the process
     * ({@code process:}); a cache of immutable values keyed by their inputs ({@code cache:}),
     * which a fresh process would rebuild the same; or a value of a mutable type that nothing
     * changes after its class is initialized ({@code constant:}). Anything new must say which it
     * is here. Per-run or per-owner state has an owner instead (see {@code RunServices}).
     */
    static final Map<String, String> PROCESS_FACTS = Map.ofEntries(
            Map.entry("dev.magus.cli.ClassArchives.childStarted",
                    "process: whether this JVM started a child, which decides the class archive it writes at exit"),
            Map.entry("dev.magus.cli.JobCommand.MAPPER",
                    "cache: Jackson's serializers, built from fixed settings; only read after"),
            Map.entry("dev.magus.cli.Signals.exitingWith",
                    "process: the JVM's signal handling is one per process"),
            Map.entry("dev.magus.cli.Signals.held",
                    "process: signals held for the run while the JVM's handlers are installed"),
            Map.entry("dev.magus.cli.Signals.run",
                    "process: the one run a command-line JVM forwards its signals to"),
            Map.entry("dev.magus.cli.Signals.state",
                    "process: the signal handlers' state"),
            Map.entry("dev.magus.env.platform.Platform.CURRENT",
                    "process: the OS this JVM runs on, read once"),
            Map.entry("dev.magus.env.scrub.Scrubber.LAST",
                    "cache: the last scrubber built; immutable values, keyed by their inputs"),
            Map.entry("dev.magus.landlock.abi.KernelProbe.INSTANCE",
                    "process: the kernel's Landlock ABI, probed once"),
            Map.entry("dev.magus.landlock.denials.audit.AuditDenialSource.OPEN",
                    "process: the kernel's audit netlink socket, one reader per process"),
            Map.entry("dev.magus.landlock.denials.audit.AuditNetlink$Holder.C",
                    "process: the C library's functions, loaded once"),
            Map.entry("dev.magus.landlock.launch.CapabilityDrop.process",
                    "process: the capability sets this process may drop for its children"),
            Map.entry("dev.magus.landlock.launch.LaunchSequence.ALL_CPUS",
                    "constant: native bytes written at class initialization, only read after"),
            Map.entry("dev.magus.landlock.launch.LaunchSequence.SELF",
                    "constant: native bytes written at class initialization, only read after"),
            Map.entry("dev.magus.landlock.launch.Launched.LIVE",
                    "process: children of this process, which the process-wide reaper collects"),
            Map.entry("dev.magus.landlock.launch.Launched.SPAWNERS",
                    "process: the threads that spawned those children (the kernel's parent-death rule is per thread)"),
            Map.entry("dev.magus.landlock.launch.Launched.inFlight",
                    "process: spawns in flight, for the same reaper"),
            Map.entry("dev.magus.landlock.launch.Launched.spawnerUnknown",
                    "process: a spawn whose thread could not be read"),
            Map.entry("dev.magus.landlock.launch.Launched.spawns",
                    "process: the spawn count of the reaper's bookkeeping"),
            Map.entry("dev.magus.landlock.launch.Launcher.DOMAINS",
                    "process: Landlock domains this process created (a count for the telemetry)"),
            Map.entry("dev.magus.landlock.launch.Launcher.THREADS",
                    "process: launch threads this process made (a count for names)"),
            Map.entry("dev.magus.landlock.launch.Launcher.instance",
                    "process: the launcher owns the process's launch threads and SIGCHLD handling"),
            Map.entry("dev.magus.landlock.launch.Launcher.oneShot",
                    "process: a one-run command line keeps no spare launch threads"),
            Map.entry("dev.magus.landlock.launch.SeccompFilter.BUILT",
                    "cache: compiled BPF programs by their immutable rules"),
            Map.entry("dev.magus.landlock.launch.SeccompFilter.supervised",
                    "cache: the supervised children's notification program, built once; immutable"),
            Map.entry("dev.magus.landlock.launch.SpareThread.RETIRE",
                    "constant: a sentinel compared by identity, never run"),
            Map.entry("dev.magus.landlock.launch.SpareThreads.SPARES",
                    "process: a count for the spare launch threads' names"),
            Map.entry("dev.magus.landlock.launch.SpareThreads.shared",
                    "process: the parked launch threads, which must not take a confined thread's state"),
            Map.entry("dev.magus.landlock.supervise.Supervisor.THREADS",
                    "process: a count for the supervisor threads' names"),
            Map.entry("dev.magus.landlock.supervise.Support.probed",
                    "process: whether this kernel has seccomp user notification and ADDFD, probed once"),
            Map.entry("dev.magus.landlock.sys.FanotifyWatcher.CLOSER",
                    "process: closes fanotify groups off the run's path, also once their owner has gone; ends when idle"),
            Map.entry("dev.magus.landlock.sys.FanotifyWatcher.VERDICT",
                    "cache: whether fanotify can watch a mount table, by the table's exact bytes"),
            Map.entry("dev.magus.landlock.sys.FdStat.BUFFER",
                    "cache: a native buffer per thread, reused; nothing in it outlives a call"),
            Map.entry("dev.magus.landlock.sys.GetdentsReader.BUFFERS",
                    "cache: native buffers per thread, reused; nothing in them outlives a call"),
            Map.entry("dev.magus.landlock.sys.Natives.chosen",
                    "process: the native layer (JNA or the C path) chosen once"),
            Map.entry("dev.magus.landlock.sys.Natives.cleanerPin",
                    "process: keeps JNA's cleaner thread from being restarted by a confined thread"),
            Map.entry("dev.magus.landlock.sys.Natives.glibcVersion",
                    "process: the C library's version"),
            Map.entry("dev.magus.landlock.sys.Natives.libc",
                    "process: the loaded C library"),
            Map.entry("dev.magus.landlock.sys.NoLinkOpen.REQUEST",
                    "cache: a native buffer per thread, reused; nothing in it outlives a call"),
            Map.entry("dev.magus.landlock.sys.NoLinkOpen.noOpenat2",
                    "process: the kernel said openat2 is missing"),
            Map.entry("dev.magus.landlock.sys.ProcFdLookup.BUFFERS",
                    "cache: native buffers per thread, reused; nothing in them outlives a call"),
            Map.entry("dev.magus.landlock.sys.ProcFdLookup.DELETED",
                    "constant: bytes never written"),
            Map.entry("dev.magus.landlock.sys.ProcFdLookup.FDS_PATH",
                    "constant: bytes never written, passed to the kernel"),
            Map.entry("dev.magus.landlock.sys.ProcFdLookup.FD_DIR",
                    "constant: bytes never written, copied for each lookup"),
            Map.entry("dev.magus.landlock.sys.ProcFdLookup.fds",
                    "process: this process's /proc/self/fd, opened once"),
            Map.entry("dev.magus.landlock.sys.ProcFdLookup.fdsIdentity",
                    "process: the identity that descriptor was checked against"),
            Map.entry("dev.magus.landlock.sys.ProcFdLookup.unsupported",
                    "process: the kernel said openat2 is missing"),
            Map.entry("dev.magus.orchestrator.Orchestrator.IDS",
                    "process: the random source of run ids, drawn from by every owner's runs"),
            Map.entry("dev.magus.orchestrator.contain.RunCgroups.ACTIVE",
                    "process: this process's runs that have a cgroup of their own, from spawn to end"),
            Map.entry("dev.magus.orchestrator.contain.RunCgroups.SWEPT",
                    "process: whether this process swept the cgroups of magus processes that are gone"),
            Map.entry("dev.magus.orchestrator.orphans.HeldLists.HELD",
                    "process: /proc child lists held open, under one budget of descriptors"),
            Map.entry("dev.magus.orchestrator.orphans.LeaderList.PROC",
                    "process: this process's /proc child lists, opened at the first check, held until it ends"),
            Map.entry("dev.magus.orchestrator.orphans.Strays.ACTIVE",
                    "process: every running run of the process, whoever owns it: the process is the subreaper of all their strays"),
            Map.entry("dev.magus.orchestrator.orphans.Strays.adopted",
                    "process: whether this process became the child subreaper"),
            Map.entry("dev.magus.orchestrator.orphans.Strays.firstStart",
                    "process: when this process's first run started, whoever owned it"),
            Map.entry("dev.magus.orchestrator.pipeline.RunChecks.LOCKS",
                    "process: one audit lock per workspace root, shared by every run of this process"),
            Map.entry("dev.magus.policy.HostFacts.lastStateDir",
                    "cache: the state dir last derived from the environment; immutable value keyed by its inputs"),
            Map.entry("dev.magus.policy.cleaner.SharedCleaner.CLEANER",
                    "process: one thread releases what the collector found unreachable (descriptors' streams, watchdogs' loops,"
                            + " audit passes' watches), whoever dropped it"),
            Map.entry("dev.magus.policy.Policy.REAL",
                    "constant: a resolver without a cache, which holds nothing"),
            Map.entry("dev.magus.policy.path.RealFilesystem.DEFAULT",
                    "process: the JVM's default file system"),
            Map.entry("dev.magus.server.Session.SERIALS",
                    "process: connection numbers, unique in the server process"),
            Map.entry("dev.magus.server.Session.WELCOME",
                    "constant: the welcome frame's bytes, unreleasable, only ever duplicated"),
            Map.entry("dev.magus.server.client.FastClient.FACTORY",
                    "cache: Jackson's factory for the client's control frames, from fixed settings; only read after"),
            Map.entry("dev.magus.server.protocol.FrameCodec.MAPPER",
                    "cache: Jackson's serializers, built from fixed settings; only read after"),
            Map.entry("dev.magus.telemetry.ndjson.InstantText.last",
                    "cache: the last second's formatted prefix; immutable value"),
            Map.entry("dev.magus.telemetry.ndjson.NdjsonSink.FACTORY",
                    "cache: Jackson's factory, from fixed settings; only read after"),
            Map.entry("dev.magus.workspace.Hashes.KNOWN",
                    "cache: hashes of texts, bounded, keyed by the text"),
            Map.entry("dev.magus.workspace.StateDir.lastOf",
                    "cache: the state dir last derived; immutable value keyed by its inputs"),
            Map.entry("dev.magus.workspace.audit.Readers.DEFAULT",
                    "process: the JVM's default file system"),
            Map.entry("dev.magus.workspace.spell.SpellCatalog.PROVIDERS",
                    "cache: the spell providers a class loader sees"));


    @Test
    void staticMutableStateIsOnlyWhereItIsAFactAboutTheProcess() {
        Map<String, String> found = new TreeMap<>();
        for (var c : main) {
            for (JavaField f : c.getFields()) {
                if (f.getModifiers().contains(JavaModifier.STATIC) && !f.getName().startsWith("$")
                        && !f.getModifiers().contains(JavaModifier.SYNTHETIC)) {
                    String why = mutable(f);
                    if (why != null) {
                        found.put(c.getName() + "." + f.getName(), why);
                    }
                }
            }
        }
        Map<String, String> unexplained = new TreeMap<>(found);
        unexplained.keySet().removeAll(PROCESS_FACTS.keySet());
        assertThat(unexplained).as("static mutable fields without a reason in PROCESS_FACTS").isEmpty();
        assertThat(PROCESS_FACTS.keySet()).as("PROCESS_FACTS names fields that no longer exist or hold no changing state")
                .allMatch(found::containsKey);
    }

    /**
     * Types whose instances never change (or, for a logger, whose changes are no run's state).
     * A final static field of one of these declared types is a constant.
     */
    private static final Set<String> IMMUTABLE_TYPES = Set.of("java.lang.String", "java.lang.Boolean", "java.lang.Byte",
            "java.lang.Character", "java.lang.Short", "java.lang.Integer", "java.lang.Long", "java.lang.Float",
            "java.lang.Double", "java.math.BigInteger", "java.math.BigDecimal", "java.lang.Class", "java.util.regex.Pattern",
            "java.time.Duration", "java.time.Instant", "java.nio.file.Path", "java.nio.charset.Charset", "java.net.URI",
            "java.util.UUID", "java.util.Locale", "java.time.format.DateTimeFormatter", "java.util.OptionalInt",
            "java.util.OptionalLong", "org.slf4j.Logger", "io.netty.util.AttributeKey", "org.jline.utils.AttributedStyle");

    /**
     * Why a static field holds changing state, or null if it does not: a non-final field; a
     * final one whose value, read once its class is initialized, is not deeply immutable (see
     * {@link #immutable}). Only primitives and {@link #IMMUTABLE_TYPES} are judged by the
     * declared type alone.
     */
    private static String mutable(JavaField f) {
        if (!f.getModifiers().contains(JavaModifier.FINAL)) {
            return "not final";
        }
        if (f.getRawType().isPrimitive() || IMMUTABLE_TYPES.contains(f.getRawType().getName())) {
            return null;
        }
        Object value;
        try {
            java.lang.reflect.Field field = Class.forName(f.getOwner().getName(), true, ArchitectureTest.class.getClassLoader())
                    .getDeclaredField(f.getName());
            field.setAccessible(true);
            value = field.get(null);
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new AssertionError("cannot read " + f.getFullName() + ": " + e, e);
        }
        List<String> path = new ArrayList<>();
        return immutable(value, path, Collections.newSetFromMap(new IdentityHashMap<>())) ? null
                : "final, holds " + String.join(" > ", path);
    }

    /**
     * Whether a value never changes: null; a bare {@code Object} (a monitor); an instance of
     * {@link #IMMUTABLE_TYPES}; a JDK enum constant; an enum constant, a record, a lambda or any
     * object of magus's own whose fields (its superclasses' too) are final and hold immutable
     * values; one of the JDK's unmodifiable collections, an {@code Optional} or a
     * {@code Map.entry} of immutable values; an empty array. On false, {@code path} names the
     * mutable part.
     */
    private static boolean immutable(Object v, List<String> path, Set<Object> seen) {
        if (v == null || !seen.add(v)) {
            return true;
        }
        Class<?> c = v.getClass();
        // A bare Object is a monitor: what it guards is judged on its own.
        if (c == Object.class || IMMUTABLE_TYPES.stream().anyMatch(t -> assignableTo(c, t))) {
            return true;
        }
        path.add(c.getName());
        if (c.isArray()) {
            return java.lang.reflect.Array.getLength(v) == 0;
        }
        String name = c.getName();
        if (name.startsWith("java.util.ImmutableCollections$") || name.startsWith("java.util.Collections$Unmodifiable")
                || name.startsWith("java.util.Collections$Empty") || name.startsWith("java.util.Collections$Singleton")) {
            Iterable<?> parts = v instanceof Map<?, ?> m ? m.entrySet() : (Iterable<?>) v;
            for (Object part : parts) {
                boolean ok = part instanceof Map.Entry<?, ?> e
                        ? immutable(e.getKey(), path, seen) && immutable(e.getValue(), path, seen)
                        : immutable(part, path, seen);
                if (!ok) {
                    return false;
                }
            }
            return dropLast(path);
        }
        if (v instanceof java.util.Optional<?> o) {
            return immutable(o.orElse(null), path, seen) && dropLast(path);
        }
        if (name.equals("java.util.KeyValueHolder")) {
            Map.Entry<?, ?> e = (Map.Entry<?, ?>) v;
            return immutable(e.getKey(), path, seen) && immutable(e.getValue(), path, seen) && dropLast(path);
        }
        if (v instanceof Enum<?> && !name.startsWith("dev.magus.") && !c.getSuperclass().getName().startsWith("dev.magus.")) {
            return dropLast(path);
        }
        if (!name.startsWith("dev.magus.")) {
            return false;
        }
        for (Class<?> k = c; k != Object.class && k != Record.class && k != Enum.class; k = k.getSuperclass()) {
            if (!k.getName().startsWith("dev.magus.")) {
                path.add("extends " + k.getName());
                return false;
            }
            for (java.lang.reflect.Field field : k.getDeclaredFields()) {
                if (java.lang.reflect.Modifier.isStatic(field.getModifiers())) {
                    continue;
                }
                path.add(field.getName());
                if (!java.lang.reflect.Modifier.isFinal(field.getModifiers())) {
                    path.add("not final");
                    return false;
                }
                try {
                    field.setAccessible(true);
                    if (!immutable(field.get(v), path, seen)) {
                        return false;
                    }
                } catch (ReflectiveOperationException | RuntimeException e) {
                    throw new AssertionError("cannot read " + field + ": " + e, e);
                }
                dropLast(path);
            }
        }
        return dropLast(path);
    }

    private static boolean assignableTo(Class<?> c, String type) {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            if (k.getName().equals(type)) {
                return true;
            }
            for (Class<?> i : k.getInterfaces()) {
                if (assignableTo(i, type)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean dropLast(List<String> path) {
        path.remove(path.size() - 1);
        return true;
    }
}
