package dev.magus.cli.arch;

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
        main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS).importPackages("dev.magus");
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

    /** Static state that is a fact about the process: each field, and why it is one per process. */
    static final Map<String, String> PROCESS_FACTS = Map.of();

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

    /** A non-final field, or a final one whose type holds changing state (a collection, an atomic). */
    private static boolean mutable(JavaField f) {
        if (!f.getModifiers().contains(JavaModifier.FINAL)) {
            return true;
        }
        return MUTABLE_TYPES.contains(f.getRawType().getName());
    }
}
