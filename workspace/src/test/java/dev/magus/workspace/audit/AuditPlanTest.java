package dev.magus.workspace.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.policy.control.ControlFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** The pure half of what the audit does about each change: no filesystem. */
class AuditPlanTest {
    static final Path WS = Path.of("/ws");
    static final Predicate<Path> INSIDE = p -> p.startsWith(WS);
    static final String CORE = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n";

    private static Node.File file(String text) {
        return new Node.File(0644, Node.Content.of(text.getBytes(StandardCharsets.UTF_8)));
    }

    private static final Node.Directory DIR = new Node.Directory(0755);

    private static List<AuditPlan.Step> plan(Map<Path, Snapshot.Recorded> before, Map<Path, Snapshot.Recorded> after,
            Set<Path> present) {
        Snapshot b = Snapshot.of(before);
        Snapshot a = Snapshot.of(after);
        return AuditPlan.of(Comparison.between(b, a), b, a, INSIDE, present::contains, p -> false);
    }

    private static Map<Path, Snapshot.Recorded> newRepo(String dir, String config, String... hooks) {
        Map<Path, Snapshot.Recorded> m = new HashMap<>();
        Path g = WS.resolve(dir).resolve(".git");
        m.put(g, new Snapshot.Recorded(DIR, ControlFiles.GIT));
        m.put(g.resolve("hooks"), new Snapshot.Recorded(DIR, ControlFiles.GIT_HOOKS));
        m.put(g.resolve("hooks/pre-commit.sample"), new Snapshot.Recorded(file("#!/bin/sh\n"), ControlFiles.GIT_HOOKS));
        for (String h : hooks) {
            m.put(g.resolve("hooks").resolve(h), new Snapshot.Recorded(file("evil\n"), ControlFiles.GIT_HOOKS));
        }
        m.put(g.resolve("config"), new Snapshot.Recorded(file(config), ControlFiles.GIT_CONFIG));
        m.put(g.resolve("info"), new Snapshot.Recorded(DIR, ControlFiles.GIT_INFO));
        return m;
    }

    @Test
    void aRepositoryTheRunCreatedIsKeptItsHooksNeutralisedItsConfigJudged() {
        List<AuditPlan.Step> steps = plan(Map.of(), newRepo("sub", CORE + "[core]\n\tfsmonitor = evil\n", "post-checkout"),
                Set.of());
        assertThat(steps).filteredOn(s -> s instanceof AuditPlan.Step.Accept).singleElement()
                .satisfies(s -> assertThat(((AuditPlan.Step.Accept) s).note()).contains("kept the repository"));
        assertThat(steps).filteredOn(s -> s instanceof AuditPlan.Step.Neutralise).extracting(AuditPlan.Step::path)
                .containsExactly(WS.resolve("sub/.git/hooks/post-checkout"));
        assertThat(steps).filteredOn(s -> s instanceof AuditPlan.Step.Revise).singleElement().satisfies(s -> {
            AuditPlan.Step.Revise r = (AuditPlan.Step.Revise) s;
            assertThat(r.text()).isEqualTo(CORE);
            assertThat(r.reverted()).extracting(c -> c.key().dotted()).containsExactly("core.fsmonitor");
        });
        assertThat(steps).filteredOn(AuditPlan.Step::fails).hasSize(1);
    }

    @Test
    void aHarmlessNewRepositoryFailsNothing() {
        assertThat(plan(Map.of(), newRepo("a/b", CORE), Set.of())).noneMatch(AuditPlan.Step::fails);
    }

    @Test
    void aNewRepositoryWithACommondirIsNotKept() {
        List<AuditPlan.Step> steps = plan(Map.of(), newRepo("sub", CORE), Set.of(WS.resolve("sub/.git/commondir")));
        assertThat(steps).singleElement().isInstanceOfSatisfying(AuditPlan.Step.Restore.class,
                r -> assertThat(r.why()).contains("commondir"));
    }

    @Test
    void aGitDirWithoutConfigIsNoRepository() {
        Map<Path, Snapshot.Recorded> after = newRepo("sub", CORE, "pre-commit");
        after.remove(WS.resolve("sub/.git/config"));
        assertThat(plan(Map.of(), after, Set.of())).singleElement().isInstanceOf(AuditPlan.Step.Restore.class);
    }

    @Test
    void aGitFileNamingAGitDirOfAnotherNameInsideIsKeptWhenTheWalkAuditsItAsOne() {
        Path gitFile = WS.resolve("wt/.git");
        Snapshot b = Snapshot.of(Map.of());
        Snapshot a = Snapshot.of(Map.of(gitFile, new Snapshot.Recorded(file("gitdir: ../store.git\n"), ControlFiles.GIT)));
        List<Change> changes = Comparison.between(b, a);
        assertThat(AuditPlan.of(changes, b, a, INSIDE, p -> false, WS.resolve("store.git")::equals)).singleElement()
                .isInstanceOf(AuditPlan.Step.Accept.class);
        assertThat(AuditPlan.of(changes, b, a, INSIDE, p -> false, WS.resolve("other.git")::equals)).singleElement()
                .isInstanceOf(AuditPlan.Step.Restore.class);
    }

    @Test
    void aGitFileIsKeptOnlyWhenItNamesAnAuditedGitDirInside() {
        Path gitFile = WS.resolve("vendor/lib/.git");
        for (Map.Entry<String, Class<?>> c : Map.<String, Class<?>>of(
                "gitdir: ../../.git/modules/vendor/lib\n", AuditPlan.Step.Accept.class,
                "gitdir: ../../elsewhere\n", AuditPlan.Step.Restore.class,
                "gitdir: /home/me/.git\n", AuditPlan.Step.Restore.class,
                "not a gitfile\n", AuditPlan.Step.Restore.class).entrySet()) {
            List<AuditPlan.Step> steps = plan(Map.of(),
                    Map.of(gitFile, new Snapshot.Recorded(file(c.getKey()), ControlFiles.GIT)), Set.of());
            assertThat(steps).as(c.getKey()).singleElement().isInstanceOf(c.getValue());
        }
        List<AuditPlan.Step> link = plan(Map.of(), Map.of(gitFile,
                new Snapshot.Recorded(new Node.Link("/outside/.git"), ControlFiles.GIT)), Set.of());
        assertThat(link).singleElement().isInstanceOfSatisfying(AuditPlan.Step.Restore.class,
                r -> assertThat(r.why()).contains("outside the workspace"));
    }

    @Test
    void anExistingConfigIsJudgedKeyByKeyAndAPlantedHookPutBack() {
        Path config = WS.resolve(".git/config");
        Path hook = WS.resolve(".git/hooks/pre-commit");
        Map<Path, Snapshot.Recorded> before = Map.of(config, new Snapshot.Recorded(file(CORE), ControlFiles.GIT_CONFIG));
        Map<Path, Snapshot.Recorded> harmless = Map.of(config,
                new Snapshot.Recorded(file(CORE + "[remote \"origin\"]\n\turl = /x\n"), ControlFiles.GIT_CONFIG));
        assertThat(plan(before, harmless, Set.of())).singleElement().isInstanceOf(AuditPlan.Step.Accept.class);

        Map<Path, Snapshot.Recorded> planted = new HashMap<>(Map.of(config,
                new Snapshot.Recorded(file(CORE + "[alias]\n\tx = !evil\n"), ControlFiles.GIT_CONFIG)));
        planted.put(hook, new Snapshot.Recorded(file("evil\n"), ControlFiles.GIT_HOOKS));
        List<AuditPlan.Step> steps = plan(before, planted, Set.of());
        assertThat(steps).hasSize(2).allMatch(AuditPlan.Step::fails);
        assertThat(steps).anySatisfy(s -> assertThat(s).isInstanceOf(AuditPlan.Step.Revise.class));
        assertThat(steps).anySatisfy(s -> assertThat(s).isInstanceOfSatisfying(AuditPlan.Step.Restore.class,
                r -> assertThat(r.path()).isEqualTo(hook)));
    }

    @Test
    void aConfigGitCannotReadIsPutBackWhole() {
        Path config = WS.resolve(".git/config");
        List<AuditPlan.Step> steps = plan(Map.of(config, new Snapshot.Recorded(file(CORE), ControlFiles.GIT_CONFIG)),
                Map.of(config, new Snapshot.Recorded(file("[core\n"), ControlFiles.GIT_CONFIG)), Set.of());
        assertThat(steps).singleElement().isInstanceOfSatisfying(AuditPlan.Step.Restore.class,
                r -> assertThat(r.why()).contains("does not read as config"));
    }
}
