package dev.magus.landlock.denials.infer;

import dev.magus.events.DetailKey;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.RunEvent;
import dev.magus.landlock.denials.stream.KernelDenialStream;
import dev.magus.landlock.denials.PrefixConfirmer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KernelDenialsTest {

    @TempDir
    Path root;

    private static final RunEvent.Stream ERR = RunEvent.Stream.STDERR;

    @Test
    void a_denial_reported_twice_is_one_diagnostic() throws IOException {
        Path home = Files.createDirectories(root.resolve("home"));
        Files.writeString(home.resolve("f"), "x");
        KernelDenials denials = new KernelDenials(new PrefixConfirmer(home), KernelDenials.Child.at(root));
        // Node's "open" says no access: the report waits for the frames that say it, or the
        // first line that is no frame.
        assertThat(denials.accept(ERR, "Error: EACCES: permission denied, open '" + home.resolve("f") + "'")).isEmpty();
        assertThat(denials.accept(ERR, "{")).hasSize(1);
        assertThat(denials.accept(ERR, "  path: '" + home.resolve("f") + "'")).isEmpty();
        // A line naming it again is one more occurrence: counted (marked a repeat), not a new denial.
        assertThat(denials.accept(ERR, "cat: " + home.resolve("f") + ": Permission denied"))
                .singleElement().satisfies(d -> assertThat(d.details()).containsEntry(DetailKey.REPEAT.key(), "2"));
        // The same path through another spelling resolves to the same subject.
        assertThat(denials.accept(ERR, "cat: home/./f: Permission denied"))
                .singleElement().satisfies(d -> assertThat(d.details()).containsEntry(DetailKey.REPEAT.key(), "3"));
        // Another operation on it is another denial.
        assertThat(denials.accept(ERR, "rm: cannot remove '" + home.resolve("f") + "': Permission denied"))
                .extracting(Diagnostic::code).containsExactly(Code.MGS2002);
    }

    @Test
    void a_refused_setid_mode_change_is_a_write_denial_naming_the_file() throws IOException {
        Path ws = Files.createDirectories(root.resolve("ws"));
        Files.writeString(ws.resolve("sh"), "x");
        Files.writeString(ws.resolve("t"), "x");
        // The policy allows writing the workspace: the refusal is the seccomp layer's, not a rule's.
        KernelDenials denials = new KernelDenials((op, path, cwd) -> java.util.Optional.empty(), KernelDenials.Child.at(ws));
        assertThat(denials.accept(ERR, "chmod: changing permissions of 'sh': Operation not permitted"))
                .singleElement().satisfies(d -> {
                    assertThat(d.code()).isEqualTo(Code.MGS2002);
                    assertThat(d.subject()).isEqualTo(ws.resolve("sh").toString());
                    assertThat(d.layer()).isEqualTo(dev.magus.events.Layer.KERNEL);
                    assertThat(d.operation()).isEqualTo(dev.magus.events.Operation.WRITE);
                    assertThat(d.message()).contains("set-user-ID");
                    assertThat(d.details()).doesNotContainKey(DetailKey.ALLOW_YAML.key());
                });
        assertThat(denials.accept(ERR, "install: cannot change permissions of '" + ws.resolve("sh") + "': Operation not permitted"))
                .singleElement().satisfies(d -> assertThat(d.details()).containsEntry(DetailKey.REPEAT.key(), "2"));
        assertThat(denials.accept(ERR, "tar: t: Cannot change mode to rwsr-xr-x: Operation not permitted")).hasSize(1);
        // tar saying a mode without the bits, a file that is not there, another errno: not this rule
        assertThat(denials.accept(ERR, "tar: t: Cannot change mode to rwxr-xr-x: Operation not permitted")).isEmpty();
        assertThat(denials.accept(ERR, "chmod: changing permissions of 'gone': Operation not permitted")).isEmpty();
        assertThat(denials.accept(ERR, "chmod: cannot access 'sh': No such file or directory")).isEmpty();
    }

    @Test
    void a_nested_magus_diagnostic_line_is_not_taken_for_a_tool_the_kernel_refused() throws IOException {
        Path home = Files.createDirectories(root.resolve("home"));
        Files.writeString(home.resolve("f"), "x");
        KernelDenials denials = new KernelDenials(new PrefixConfirmer(home), KernelDenials.Child.at(root));
        assertThat(denials.accept(ERR, "magus: MGS2001 read denied: " + home.resolve("f")
                + " is outside every read rule [kernel]; see 'magus explain MGS2001'")).isEmpty();
        assertThat(denials.accept(ERR, "magus: MGS2004 lease cannot be honored: " + home.resolve("f")
                + ": Permission denied")).isEmpty();
        // The tool's own line still counts.
        assertThat(denials.accept(ERR, "cat: " + home.resolve("f") + ": Permission denied")).hasSize(1);
    }

    @Test
    void perl_saying_open_is_a_write_when_its_line_appends() throws IOException {
        Path home = Files.createDirectories(root.resolve("home"));
        Path ws = Files.createDirectories(root.resolve("ws"));
        Files.writeString(home.resolve(".bashrc"), "# rc\n");
        Files.writeString(ws.resolve("x.pl"), "use strict;\nopen(my $f, '>>', $ENV{HOME} . '/.bashrc') or die \"Can't open $!\";\n");
        Files.writeString(ws.resolve("r.pl"), "open(my $f, '<', '/x') or die;\n");
        KernelDenials denials = new KernelDenials(new PrefixConfirmer(home), KernelDenials.Child.at(ws));
        assertThat(denials.accept(ERR, "Can't open " + home.resolve(".bashrc") + ": Permission denied at x.pl line 2."))
                .extracting(Diagnostic::code).containsExactly(Code.MGS2002);
        KernelDenials reading = new KernelDenials(new PrefixConfirmer(home), KernelDenials.Child.at(ws));
        assertThat(reading.accept(ERR, "Can't open " + home.resolve(".bashrc") + ": Permission denied at r.pl line 1."))
                .extracting(Diagnostic::code).containsExactly(Code.MGS2001);
    }

    @Test
    void a_script_the_child_cannot_read_is_not_read_for_it() throws IOException {
        Path home = Files.createDirectories(root.resolve("home"));
        Files.writeString(home.resolve("x.pl"), "open(my $f, '>>', '/x') or die;\n");
        Files.writeString(home.resolve("f"), "x");
        PrefixConfirmer policy = new PrefixConfirmer(home);
        KernelDenials denials = new KernelDenials(policy, KernelDenials.Child.at(root));
        assertThat(denials.accept(ERR, "Can't open " + home.resolve("f") + ": Permission denied at "
                + home.resolve("x.pl") + " line 1.")).extracting(Diagnostic::code).containsExactly(Code.MGS2001);
        assertThat(policy.asked()).contains("READ " + home.resolve("x.pl"));
    }

    @Test
    void a_message_without_an_errno_is_only_believed_for_a_file_that_exists() throws IOException {
        Path home = Files.createDirectories(root.resolve("home"));
        Files.writeString(home.resolve("f"), "x");
        KernelDenials denials = new KernelDenials(new PrefixConfirmer(home), KernelDenials.Child.at(root));
        assertThat(denials.accept(ERR, "curl: (37) Couldn't open file " + home.resolve("missing"))).isEmpty();
        assertThat(denials.accept(ERR, "curl: (37) Couldn't open file " + home.resolve("f")))
                .extracting(Diagnostic::code).containsExactly(Code.MGS2001);
    }

    @Test
    void the_policy_decides_and_nothing_is_invented() {
        PrefixConfirmer allowsAll = new PrefixConfirmer();
        KernelDenials denials = new KernelDenials(allowsAll, KernelDenials.Child.at(root));
        assertThat(denials.accept(ERR, "cat: /etc/shadow: Permission denied")).isEmpty();
        assertThat(allowsAll.asked()).containsExactly("READ /etc/shadow");
    }

    @Test
    void kernel_layer_inferred_source_and_the_policys_details_are_kept() throws IOException {
        Path home = Files.createDirectories(root.resolve("home"));
        KernelDenials denials = new KernelDenials(new PrefixConfirmer(home), KernelDenials.Child.at(root));
        String line = "\u001B[1mtouch: cannot touch '" + home.resolve("n") + "': Permission denied\u001B[0m";
        Diagnostic d = denials.accept(RunEvent.Stream.STDOUT, line).get(0);
        assertThat(d.layer()).isEqualTo(Layer.KERNEL);
        assertThat(d.source()).isEqualTo("inferred:stdout");
        assertThat(d.code()).isEqualTo(Code.MGS2002);
        assertThat(d.operation()).isEqualTo(Operation.WRITE);
        assertThat(d.subject()).isEqualTo(home.resolve("n").toString());
        assertThat(d.details().get("allow_yaml")).contains("mode: rw");
        assertThat(d.details().get(DetailKey.EVIDENCE.key())).isEqualTo(DenialParser.strip(line)).doesNotContain("\u001B");
    }

    @Test
    void an_unknown_access_is_chosen_from_the_path_and_the_rights_the_policy_lacks() throws IOException {
        Path home = Files.createDirectories(root.resolve("home"));
        Path data = Files.writeString(home.resolve("data"), "x");
        Path tool = Files.writeString(home.resolve("tool"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-xr-x"));
        KernelDenials denials = new KernelDenials(new PrefixConfirmer(home), KernelDenials.Child.at(root));
        assertThat(denials.accept(ERR, "bash: " + home.resolve("missing") + ": Permission denied"))
                .extracting(Diagnostic::operation).containsExactly(Operation.WRITE);
        assertThat(denials.accept(ERR, "bash: " + data + ": Permission denied"))
                .extracting(Diagnostic::operation).containsExactly(Operation.READ);
        // bash then opens the file to say why it could not run it: that read is refused too, and
        // counted, but shown only at -v.
        assertThat(denials.accept(ERR, "bash: " + tool + ": Permission denied"))
                .extracting(Diagnostic::operation, d -> "true".equals(d.details().get(DetailKey.QUIET.key())))
                .containsExactly(org.assertj.core.groups.Tuple.tuple(Operation.EXEC, false),
                        org.assertj.core.groups.Tuple.tuple(Operation.READ, true));

        // A policy that lets the file be read but not written: the write is what was refused.
        KernelDenials readOnly = new KernelDenials((op, path, cwd) -> op == Operation.READ ? Optional.empty()
                : new PrefixConfirmer(home).confirm(op, path, cwd), KernelDenials.Child.at(root));
        assertThat(readOnly.accept(ERR, "PermissionError: [Errno 13] Permission denied: '" + data + "'"))
                .extracting(Diagnostic::operation).containsExactly(Operation.WRITE);
    }

    @Test
    void relative_paths_resolve_against_the_childs_directory() throws IOException {
        Path home = Files.createDirectories(root.resolve("home"));
        Path cwd = Files.createDirectories(root.resolve("ws"));
        KernelDenials denials = new KernelDenials(new PrefixConfirmer(home), KernelDenials.Child.at(cwd));
        assertThat(denials.accept(ERR, "cat: ../home/x: Permission denied"))
                .extracting(Diagnostic::subject).containsExactly(home.resolve("x").toString());
        assertThat(denials.accept(ERR, "cat: x: Permission denied")).isEmpty();
    }

    @Test
    void after_the_child_cd_and_exited_a_relative_path_is_placed_where_only_one_guess_is_refused()
            throws IOException {
        Path home = root.resolve("home");
        Files.createDirectories(home.resolve(".aws"));
        Files.writeString(home.resolve(".aws/credentials"), "x");
        Path ws = Files.createDirectories(root.resolve("ws"));
        Files.createDirectories(ws.resolve("sub/deep"));
        // A child that is gone (no such pid): /proc cannot say where it had cd'd to.
        ProcCwd gone = new ProcCwd(Integer.MAX_VALUE - 1, ws);
        KernelDenials denials = new KernelDenials(new PrefixConfirmer(home), new KernelDenials.Child(ws, gone, -1, CommandLine.NONE));
        // sh -c 'cd sub && cat ../../home/.aws/credentials': from ws the path names nothing.
        assertThat(denials.accept(ERR, "cat: ../../home/.aws/credentials: Permission denied"))
                .extracting(Diagnostic::subject, Diagnostic::operation)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(
                        home.resolve(".aws/credentials").toString(), Operation.READ));
        // A name made after 'cd sub/deep' ("../../home/out2"): from ws it is a file in home,
        // from sub/deep one in ws/home; both directories exist and both are refused, so
        // nothing is said rather than a guess.
        Path wsHome = Files.createDirectories(ws.resolve("home"));
        KernelDenials ambiguous = new KernelDenials(new PrefixConfirmer(home, wsHome), new KernelDenials.Child(ws, gone, -1, CommandLine.NONE));
        assertThat(ambiguous.accept(ERR, "bash: line 1: ../home/out2: Permission denied")).isEmpty();
        Files.delete(wsHome);
        // A path that exists from where the run started keeps that reading.
        KernelDenials plain = new KernelDenials(new PrefixConfirmer(home), new KernelDenials.Child(ws, gone, -1, CommandLine.NONE));
        assertThat(plain.accept(ERR, "cat: ../home/.aws/credentials: Permission denied"))
                .extracting(Diagnostic::subject).containsExactly(home.resolve(".aws/credentials").toString());
        // A relative path that cannot be anywhere the kernel was asked about is no denial.
        assertThat(plain.accept(ERR, "cat: ../../nowhere/x/y: Permission denied")).isEmpty();
    }

    @Test
    void after_the_child_exited_a_name_refused_in_several_directories_it_could_have_been_is_placed_where_the_run_started()
            throws IOException {
        // A lease refuses writes everywhere in the checkout but its globs: every subdirectory is
        // a reading of "top.txt" the policy refuses, and a name that does not leave the start
        // directory was most likely made there.
        Path ws = Files.createDirectories(root.resolve("ws"));
        Files.createDirectories(ws.resolve("a/deep"));
        Files.createDirectories(ws.resolve("b"));
        ProcCwd gone = new ProcCwd(Integer.MAX_VALUE - 1, ws);
        KernelDenials denials = new KernelDenials(new PrefixConfirmer(ws), new KernelDenials.Child(ws, gone, -1, CommandLine.NONE));
        assertThat(denials.accept(ERR, "sh: 1: cannot create top.txt: Permission denied"))
                .singleElement().satisfies(d -> {
                    assertThat(d.subject()).isEqualTo(ws.resolve("top.txt").toString());
                    assertThat(d.operation()).isEqualTo(Operation.WRITE);
                    assertThat(d.details().get("evidence")).startsWith("sh: 1: cannot create top.txt")
                            .contains("where the run started is a guess");
                });
        // A name that climbs out of the start directory says the child had moved: which of the
        // refused readings it was is a guess, so nothing is said.
        KernelDenials everywhere = new KernelDenials(new PrefixConfirmer(root), new KernelDenials.Child(ws, gone, -1, CommandLine.NONE));
        assertThat(everywhere.accept(ERR, "sh: 1: cannot create ../out.txt: Permission denied")).isEmpty();
    }

    @Test
    void after_the_child_exited_no_start_directory_guess_is_made_for_a_read_a_name_only_a_subdirectory_holds_or_a_file_the_policy_allows()
            throws IOException {
        // A lease-like policy: the checkout refused but docs/, whose secret.txt is the child's to
        // read, and whose mode may be what refused it.
        Path ws = Files.createDirectories(root.resolve("ws"));
        Path docs = Files.createDirectories(ws.resolve("docs"));
        Files.writeString(docs.resolve("secret.txt"), "x");
        Files.createDirectories(ws.resolve("src/main/x"));
        Files.createDirectories(ws.resolve("src/x"));
        ProcCwd gone = new ProcCwd(Integer.MAX_VALUE - 1, ws);
        PrefixConfirmer lease = new PrefixConfirmer(ws.resolve("src"), ws.resolve("secret.txt"), ws.resolve("x"));
        KernelDenials denials = new KernelDenials(lease, new KernelDenials.Child(ws, gone, -1, CommandLine.NONE));
        // A read of a name missing where the run started could only have failed there with ENOENT.
        assertThat(denials.accept(ERR, "cat: secret.txt: Permission denied")).isEmpty();
        // A create where a file of that name the policy allows exists elsewhere (docs/secret.txt).
        assertThat(denials.accept(ERR, "sh: 1: cannot create secret.txt: Permission denied")).isEmpty();
        // x/ is only in subdirectories: the first reading is not where the run started.
        assertThat(denials.accept(ERR, "sh: 1: cannot create x/y.txt: Permission denied")).isEmpty();
    }

    @Test
    void the_directory_a_command_line_cds_into_places_a_relative_path_the_walk_cannot() throws IOException {
        Path home = Files.createDirectories(root.resolve("home"));
        Path ws = Files.createDirectories(root.resolve("ws"));
        Files.createDirectories(ws.resolve("sub/deep"));
        Path wsHome = Files.createDirectories(ws.resolve("home"));
        ProcCwd gone = new ProcCwd(Integer.MAX_VALUE - 1, ws);
        // Without the command line both readings are refused: nothing is said (see above). The
        // script says the child was in sub/deep: the name was made in home.
        KernelDenials denials = new KernelDenials(new PrefixConfirmer(home, wsHome), new KernelDenials.Child(ws, gone, -1,
                new CommandLine(List.of("bash", "-c", "cd sub/deep && echo x > ../../../home/out2"))));
        assertThat(denials.accept(ERR, "bash: line 1: ../../../home/out2: Permission denied"))
                .extracting(Diagnostic::subject, Diagnostic::operation)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(home.resolve("out2").toString(), Operation.WRITE));
    }

    @Test
    void java_and_node_frames_say_which_way_a_file_was_opened() throws IOException {
        Path home = Files.createDirectories(root.resolve("home"));
        Path rc = Files.writeString(home.resolve(".bashrc"), "x");
        KernelDenials java = new KernelDenials(new PrefixConfirmer(home), KernelDenials.Child.at(root));
        assertThat(java.accept(ERR, "Exception in thread \"main\" java.io.FileNotFoundException: " + rc + " (Permission denied)"))
                .isEmpty();
        assertThat(java.accept(ERR, "\tat java.base/java.io.FileOutputStream.open0(Native Method)"))
                .extracting(Diagnostic::operation).containsExactly(Operation.WRITE);
        KernelDenials node = new KernelDenials(new PrefixConfirmer(home), KernelDenials.Child.at(root));
        assertThat(node.accept(ERR, "Error: EACCES: permission denied, open '" + rc + "'")).isEmpty();
        assertThat(node.accept(ERR, "    at Object.readFileSync (node:fs:441:20)"))
                .extracting(Diagnostic::operation).containsExactly(Operation.READ);
        // No frame came before the streams ended: the path's state decides, as for any unknown access.
        KernelDenials bare = new KernelDenials(new PrefixConfirmer(home), KernelDenials.Child.at(root));
        assertThat(bare.accept(ERR, "java.io.FileNotFoundException: " + rc + " (Permission denied)")).isEmpty();
        assertThat(bare.finish()).extracting(Diagnostic::operation).containsExactly(Operation.READ);
    }

    @Test
    void a_jvm_started_by_the_run_is_known_to_probe_its_core_dump_filter() throws IOException {
        KernelDenials denials = new KernelDenials(new PrefixConfirmer(Path.of("/proc")), KernelDenials.Child.running(4242, root,
                new CommandLine(List.of("/usr/bin/java", "-XX:-UsePerfData", "-version"))));
        assertThat(denials.finish()).singleElement().satisfies(d -> {
            assertThat(d.subject()).isEqualTo("/proc/4242/coredump_filter");
            assertThat(d.operation()).isEqualTo(Operation.WRITE);
            assertThat(d.source()).isEqualTo("inferred:probe");
            assertThat(d.details()).containsEntry(DetailKey.QUIET.key(), "true");
        });
        // Another tool has no such probe.
        assertThat(new KernelDenials(new PrefixConfirmer(Path.of("/proc")), KernelDenials.Child.running(4242, root,
                new CommandLine(List.of("cat", "x")))).finish()).isEmpty();
    }
}
