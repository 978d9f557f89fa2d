package dev.magus.landlock.supervise;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.DetailKey;
import dev.magus.landlock.denials.PrefixConfirmer;
import dev.magus.policy.net.NetworkMode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;

/**
 * Approval of a refused open while a real confined child (as nobody) waits: magus opens the
 * path itself and hands the descriptor over; the child's Landlock domain never grows.
 */
class ApprovalTest {
    @TempDir
    Path tmp;
    Path home;
    Path ws;
    Path key;
    Path data;
    final List<Ask> asks = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() throws IOException {
        SupervisedChildren.assume();
        home = SupervisedChildren.open(tmp.resolve("home"));
        ws = SupervisedChildren.open(tmp.resolve("ws"));
        key = Files.writeString(SupervisedChildren.open(home.resolve(".ssh")).resolve("id_rsa"), "SECRET-KEY\n");
        data = SupervisedChildren.open(home.resolve("data"));
        Files.writeString(data.resolve("notes"), "public notes\n");
        for (Path p : List.of(key, data.resolve("notes"))) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-r--r--"));
        }
    }

    private SupervisedChildren.Result run(String script, Duration timeout, Function<Ask, Mono<Decision>> approver) {
        Approver a = ask -> {
            asks.add(ask);
            return approver.apply(ask);
        };
        return SupervisedChildren.sh(ws, SupervisedChildren.env(home), NetworkMode.OPEN, new PrefixConfirmer(home),
                script, s -> { }, Optional.of(new Approval(a, timeout)));
    }

    private SupervisedChildren.Result run(String script, Function<Ask, Mono<Decision>> approver) {
        return run(script, Duration.ofSeconds(10), approver);
    }

    private static List<String> decisions(SupervisedChildren.Result r) {
        return r.denials().stream().map(d -> d.details().get(DetailKey.DECISION.key())).toList();
    }

    @Test
    void allowOnceReadsTheFileAndTheNextReadIsAskedAgain() {
        var r = run("cat ~/.ssh/id_rsa; echo \"1=$?\"; cat ~/.ssh/id_rsa 2>/dev/null; echo \"2=$?\"",
                ask -> Mono.just(asks.size() == 1 ? Decision.ALLOW_ONCE : Decision.DENY));
        assertThat(r.out()).isEqualTo("SECRET-KEY\n1=0\n2=1\n");
        assertThat(asks).hasSize(2);
        assertThat(asks.get(0)).satisfies(a -> {
            assertThat(a.process()).isEqualTo("cat");
            assertThat(a.asked()).isEqualTo(key.toString());
            assertThat(a.resolved()).isEqualTo(key.toString());
            assertThat(a.access()).isEqualTo(Ask.Access.READ);
        });
        assertThat(decisions(r)).containsExactly("allow-once", "deny");
        assertThat(r.denials()).allSatisfy(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2001);
            assertThat(d.source()).isEqualTo(Supervisor.SOURCE);
            assertThat(d.subject()).isEqualTo(key.toString());
        });
    }

    @Test
    void allowForThisRunAsksOnceAndBothReadsSucceed() {
        var r = run("cat ~/.ssh/id_rsa; cat ~/.ssh/id_rsa", ask -> Mono.just(Decision.ALLOW_FOR_RUN));
        assertThat(r.out()).isEqualTo("SECRET-KEY\nSECRET-KEY\n");
        assertThat(asks).hasSize(1);
        assertThat(decisions(r)).containsExactly("allow-for-run");
    }

    @Test
    void denyFailsTheOpenWithEacces() {
        var r = run("cat ~/.ssh/id_rsa; echo \"status=$?\"", ask -> Mono.just(Decision.DENY));
        assertThat(r.out()).isEqualTo("status=1\n");
        assertThat(r.err()).contains("Permission denied");
        assertThat(decisions(r)).containsExactly("deny");
    }

    @Test
    void anApproverThatDoesNotAnswerInTimeDenies() {
        long start = System.nanoTime();
        var r = run("cat ~/.ssh/id_rsa; echo \"status=$?\"", Duration.ofMillis(300), ask -> Mono.never());
        assertThat(r.out()).isEqualTo("status=1\n");
        assertThat(r.err()).contains("Permission denied");
        assertThat(decisions(r)).containsExactly("timeout");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void otherCallsAreAnsweredWhileOneWaits() throws IOException {
        // The reader waits for its approval; a second process meanwhile opens what the policy allows.
        Files.writeString(ws.resolve("allowed"), "fine\n");
        var r = run("cat ~/.ssh/id_rsa > out & while [ ! -e asked ]; do :; done; cat allowed; : > done; wait",
                ask -> Mono.fromCallable(() -> {
                    Files.writeString(ws.resolve("asked"), "");
                    long until = System.nanoTime() + 5_000_000_000L;
                    while (!Files.exists(ws.resolve("done")) && System.nanoTime() < until) {
                        Thread.onSpinWait();
                    }
                    return Files.exists(ws.resolve("done")) ? Decision.ALLOW_ONCE : Decision.DENY;
                }).subscribeOn(reactor.core.scheduler.Schedulers.boundedElastic()));
        assertThat(r.out()).isEqualTo("fine\n");
        assertThat(decisions(r)).containsExactly("allow-once");
        assertThat(Files.readString(ws.resolve("out"))).isEqualTo("SECRET-KEY\n");
    }

    @Test
    void aDirectoryIsAskedAsAListing() {
        var r = run("ls ~/.ssh", ask -> Mono.just(Decision.ALLOW_ONCE));
        assertThat(r.out()).isEqualTo("id_rsa\n");
        assertThat(asks).extracting(Ask::access).containsExactly(Ask.Access.LIST);
    }

    @Test
    void aCreateIsAskedAsOneAndOpenedWithTheCallsFlags() throws IOException {
        var r = run("echo hello > ~/data/new; echo \"status=$?\"", ask -> Mono.just(Decision.ALLOW_ONCE));
        assertThat(r.out()).isEqualTo("status=0\n");
        assertThat(asks).extracting(Ask::access).containsExactly(Ask.Access.CREATE);
        assertThat(Files.readString(data.resolve("new"))).isEqualTo("hello\n");
        assertThat(r.denials()).singleElement().satisfies(d -> assertThat(d.code()).isEqualTo(Code.MGS2002));
    }

    @Test
    void aMkdirIsAskedAsACreateAndMadeByMagus() {
        var r = run("mkdir ~/data/made; echo \"1=$?\"; mkdir ~/data/refused 2>/dev/null; echo \"2=$?\"",
                ask -> Mono.just(ask.asked().endsWith("made") ? Decision.ALLOW_ONCE : Decision.DENY));
        assertThat(r.out()).isEqualTo("1=0\n2=1\n");
        assertThat(asks).extracting(Ask::access).containsExactly(Ask.Access.CREATE, Ask.Access.CREATE);
        assertThat(data.resolve("made")).isDirectory();
        assertThat(data.resolve("refused")).doesNotExist();
        assertThat(decisions(r)).containsExactly("allow-once", "deny");
    }

    @Test
    void anExecIsNeverAskedAndSaysItCannotBeApproved() throws IOException {
        Path prog = home.resolve("prog");
        Files.copy(Path.of("/bin/true"), prog);
        Files.setPosixFilePermissions(prog, PosixFilePermissions.fromString("rwxr-xr-x"));
        var r = run("~/prog 2>/dev/null; echo \"status=$?\"", ask -> Mono.just(Decision.ALLOW_FOR_RUN));
        assertThat(r.out()).isEqualTo("status=126\n");
        assertThat(asks).isEmpty();
        assertThat(r.denials()).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2007);
            assertThat(d.details()).containsEntry(DetailKey.DECISION.key(), "not-approvable");
            assertThat(d.message()).contains("cannot be approved");
        });
    }

    @Test
    void aPathSwappedForALinkAfterTheAskOpensNothing() throws IOException {
        // The approver swaps the asked file's directory for a link to the secret's before it
        // allows: magus opens the path resolved before the ask, following no link, and fails.
        Files.writeString(data.resolve("id_rsa"), "decoy\n");
        Files.setPosixFilePermissions(data.resolve("id_rsa"), PosixFilePermissions.fromString("rw-r--r--"));
        var r = run("cat ~/data/id_rsa; echo \"status=$?\"", ask -> {
            try {
                Files.move(data, home.resolve("data.old"));
                Files.createSymbolicLink(data, key.getParent());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return Mono.just(Decision.ALLOW_ONCE);
        });
        assertThat(r.out()).doesNotContain("SECRET").isEqualTo("status=1\n");
        assertThat(r.err()).contains("Too many levels of symbolic links");
        assertThat(r.denials()).singleElement().satisfies(d -> {
            assertThat(d.details()).containsEntry(DetailKey.DECISION.key(), "allow-once");
            assertThat(d.message()).contains("magus's own open failed: ELOOP");
        });
    }
}
