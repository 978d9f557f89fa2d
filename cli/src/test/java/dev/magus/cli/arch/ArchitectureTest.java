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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
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

    /**
     * Static state allowed, each field with why it is one per process: a fact about the process
     * ({@code process:}), or a cache of immutable values keyed by their inputs ({@code cache:}),
     * which a fresh process would rebuild the same. Anything new must say which it is here.
     */
    static final Map<String, String> PROCESS_FACTS = Map.ofEntries(
            Map.entry("dev.magus.cli.ClassArchives.childStarted",
                    "process: whether this JVM started a child, which decides the class archive it writes at exit"),
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
            Map.entry("dev.magus.landlock.denials.audit.AuditDenialSource.OPEN",
                    "process: the kernel's audit netlink socket, one reader per process"),
            Map.entry("dev.magus.landlock.launch.CapabilityDrop.process",
                    "process: the capability sets this process may drop for its children"),
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
            Map.entry("dev.magus.landlock.supervise.Supervisor.THREADS",
                    "process: a count for the supervisor threads' names"),
            Map.entry("dev.magus.landlock.supervise.Support.probed",
                    "process: whether this kernel has seccomp user notification and ADDFD, probed once"),
            Map.entry("dev.magus.landlock.launch.SpareThreads.SPARES",
                    "process: a count for the spare launch threads' names"),
            Map.entry("dev.magus.landlock.launch.SpareThreads.shared",
                    "process: the parked launch threads, which must not take a confined thread's state"),
            Map.entry("dev.magus.landlock.sys.FanotifyWatcher.VERDICT",
                    "cache: whether fanotify can watch a mount table, by the table's exact bytes"),
            Map.entry("dev.magus.landlock.sys.Natives.chosen",
                    "process: the native layer (JNA or the C path) chosen once"),
            Map.entry("dev.magus.landlock.sys.Natives.cleanerPin",
                    "process: keeps JNA's cleaner thread from being restarted by a confined thread"),
            Map.entry("dev.magus.landlock.sys.Natives.glibcVersion",
                    "process: the C library's version"),
            Map.entry("dev.magus.landlock.sys.Natives.libc",
                    "process: the loaded C library"),
            Map.entry("dev.magus.landlock.sys.NoLinkOpen.noOpenat2",
                    "process: the kernel said openat2 is missing"),
            Map.entry("dev.magus.landlock.sys.ProcFdLookup.fds",
                    "process: this process's /proc/self/fd, opened once"),
            Map.entry("dev.magus.landlock.sys.ProcFdLookup.fdsIdentity",
                    "process: the identity that descriptor was checked against"),
            Map.entry("dev.magus.landlock.sys.ProcFdLookup.unsupported",
                    "process: the kernel said openat2 is missing"),
            Map.entry("dev.magus.orchestrator.pipeline.RunChecks.LOCKS",
                    "process: one audit lock per workspace root, shared by every run of this process"),
            Map.entry("dev.magus.orchestrator.contain.RunCgroups.ACTIVE",
                    "process: this process's runs that have a cgroup of their own, from spawn to end"),
            Map.entry("dev.magus.orchestrator.contain.RunCgroups.SWEPT",
                    "process: whether this process swept the cgroups of magus processes that are gone"),
            Map.entry("dev.magus.orchestrator.orphans.HeldLists.HELD",
                    "process: /proc child lists held open, under one budget of descriptors"),
            Map.entry("dev.magus.orchestrator.orphans.Strays.ACTIVE",
                    "process: every running run of the process, whoever owns it: the process is the subreaper of all their strays"),
            Map.entry("dev.magus.orchestrator.orphans.Strays.adopted",
                    "process: whether this process became the child subreaper"),
            Map.entry("dev.magus.orchestrator.orphans.Strays.firstStart",
                    "process: when this process's first run started, whoever owned it"),
            Map.entry("dev.magus.policy.HostFacts.lastStateDir",
                    "cache: the state dir last derived from the environment; immutable value keyed by its inputs"),
            Map.entry("dev.magus.server.Session.SERIALS",
                    "process: connection numbers, unique in the server process"),
            Map.entry("dev.magus.telemetry.ndjson.InstantText.last",
                    "cache: the last second's formatted prefix; immutable value"),
            Map.entry("dev.magus.workspace.Hashes.KNOWN",
                    "cache: hashes of texts, bounded, keyed by the text"),
            Map.entry("dev.magus.workspace.StateDir.lastOf",
                    "cache: the state dir last derived; immutable value keyed by its inputs"),
            Map.entry("dev.magus.workspace.spell.SpellCatalog.PROVIDERS",
                    "cache: the spell providers a class loader sees"));

    @Test
    void staticMutableStateIsOnlyWhereItIsAFactAboutTheProcess() {
        Set<String> found = new TreeSet<>();
        for (var c : main) {
            for (JavaField f : c.getFields()) {
                if (f.getModifiers().contains(JavaModifier.STATIC) && mutable(f) && !f.getName().startsWith("$")
                        && !f.getModifiers().contains(JavaModifier.SYNTHETIC)) {
                    found.add(c.getName() + "." + f.getName());
                }
            }
        }
        Map<String, String> unexplained = new TreeMap<>();
        found.stream().filter(f -> !PROCESS_FACTS.containsKey(f)).forEach(f -> unexplained.put(f, ""));
        assertThat(unexplained.keySet()).as("static mutable fields without a reason in PROCESS_FACTS").isEmpty();
        assertThat(PROCESS_FACTS.keySet()).as("PROCESS_FACTS names fields that no longer exist").allMatch(found::contains);
    }

    /**
     * Types whose instances change: a final field of one holds changing state. A final
     * {@code List}, {@code Set} or {@code Map} is taken as the immutable constant the code
     * base makes them ({@code List.of}); one that holds a mutable collection is declared as such.
     */
    private static final List<String> MUTABLE_TYPES = List.of("java.util.HashMap", "java.util.ArrayList",
            "java.util.HashSet", "java.util.concurrent.ConcurrentHashMap", "java.util.concurrent.ConcurrentMap",
            "java.util.ArrayDeque", "java.util.LinkedHashMap", "java.util.LinkedHashSet", "java.util.TreeMap",
            "java.util.concurrent.atomic.AtomicBoolean", "java.util.concurrent.atomic.AtomicInteger",
            "java.util.concurrent.atomic.AtomicLong", "java.util.concurrent.atomic.AtomicReference",
            "java.util.concurrent.CopyOnWriteArrayList", "java.util.concurrent.ConcurrentLinkedQueue",
            "java.util.concurrent.ConcurrentLinkedDeque", "java.util.WeakHashMap", "java.util.IdentityHashMap",
            "java.util.concurrent.ConcurrentSkipListSet", "java.util.concurrent.ConcurrentSkipListMap",
            "java.util.concurrent.Semaphore", "java.util.concurrent.locks.ReentrantLock");

    /**
     * A non-final field; a final one whose type holds changing state (a concrete collection, an
     * atomic); or a final {@code Map}/{@code Set}/{@code List} whose value, read after its class
     * is initialized, is not one of the JDK's unmodifiable collections.
     */
    private static boolean mutable(JavaField f) {
        if (!f.getModifiers().contains(JavaModifier.FINAL)) {
            return true;
        }
        if (MUTABLE_TYPES.contains(f.getRawType().getName())) {
            return true;
        }
        if (!f.getRawType().isAssignableTo(java.util.Collection.class) && !f.getRawType().isAssignableTo(Map.class)) {
            return false;
        }
        try {
            java.lang.reflect.Field field = Class.forName(f.getOwner().getName(), true, ArchitectureTest.class.getClassLoader())
                    .getDeclaredField(f.getName());
            field.setAccessible(true);
            Object value = field.get(null);
            if (value == null) {
                return false;
            }
            String type = value.getClass().getName();
            return !(type.startsWith("java.util.ImmutableCollections$") || type.startsWith("java.util.Collections$Unmodifiable")
                    || type.startsWith("java.util.Collections$Empty") || type.startsWith("java.util.Collections$Singleton"));
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new AssertionError("cannot read " + f.getFullName() + ": " + e, e);
        }
    }
}
