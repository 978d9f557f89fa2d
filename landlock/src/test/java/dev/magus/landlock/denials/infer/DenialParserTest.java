package dev.magus.landlock.denials.infer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.RunEvent;
import java.nio.file.Path;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Single-line and multi-line reports, including formats of tools not installed here (Go). */
class DenialParserTest {

    private static final Path CWD = Path.of("/home/dev/ws");
    private static final RunEvent.Stream ERR = RunEvent.Stream.STDERR;

    private static List<Candidate> parse(String... lines) {
        DenialParser parser = new DenialParser();
        List<Candidate> all = new java.util.ArrayList<>();
        for (String l : lines) {
            all.addAll(parser.parse(l, ERR, () -> CWD));
        }
        all.addAll(parser.finish());
        return all;
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '\u0000', textBlock = """
            cat: /x/secret: Permission denied                                         | READ    | /x/secret
            sh: 1: cannot create /x/a b: Permission denied                            | WRITE   | /x/a b
            sh: 1: /x/tool: Permission denied                                         | EXEC    | /x/tool
            bash: /x/f: Permission denied                                             | UNKNOWN | /x/f
            bash: line 1: /x/f: Permission denied                                     | UNKNOWN | /x/f
            bash: ./x: Permission denied                                              | UNKNOWN | /home/dev/ws/./x
            touch: cannot touch '/x/n': Permission denied                             | WRITE   | /x/n
            mkdir: cannot create directory ‘/x/d’: Permission denied                  | WRITE   | /x/d
            ls: cannot open directory '/x': Permission denied                         | READ    | /x
            cp: cannot create regular file '/x/c': Permission denied                  | WRITE   | /x/c
            rm: cannot remove '/x/c': Permission denied                               | WRITE   | /x/c
            truncate: cannot open '/x/c' for writing: Permission denied               | WRITE   | /x/c
            open /x/go.mod: permission denied                                         | UNKNOWN | /x/go.mod
            go: writing stat cache: mkdir /x/cache: permission denied                 | WRITE   | /x/cache
            fork/exec /x/bin/tool: permission denied                                  | EXEC    | /x/bin/tool
            lstat /x/y: permission denied                                             | READ    | /x/y
            EACCES: permission denied, open '/x/f'                                    | UNKNOWN | /x/f
            Error: EACCES: permission denied, mkdir '/x/d'                            | WRITE   | /x/d
            Error: EACCES: permission denied, scandir '/x'                            | READ    | /x
            Error: spawn /x/tool EACCES                                               | EXEC    | /x/tool
            PermissionError: [Errno 13] Permission denied: '/x/f'                     | UNKNOWN | /x/f
            java.nio.file.AccessDeniedException: /x/f                                 | UNKNOWN | /x/f
            Caused by: java.nio.file.AccessDeniedException: rel/f                     | UNKNOWN | /home/dev/ws/rel/f
            java.io.FileNotFoundException: /x/f (Permission denied)                   | UNKNOWN | /x/f
            java.io.IOException: Cannot run program "/x/t": error=13, Permission denied | EXEC  | /x/t
            error: couldn't read `/x/m.rs`: Permission denied (os error 13)           | READ    | /x/m.rs
            error: couldn't create a temp dir: Permission denied (os error 13) at path "/x/t1" | WRITE | /x/t1
            fatal: could not open '/x/f' for reading: Permission denied               | READ    | /x/f
            error: could not lock config file /x/.gitconfig: Permission denied        | WRITE   | /x/.gitconfig
            warning: unable to access '/x/.config/git/attributes': Permission denied  | READ    | /x/.config/git/attributes
            fatal: Unable to create '/x/.git/index.lock': Permission denied           | WRITE   | /x/.git/index.lock
            make: /x/Makefile: Permission denied                                      | UNKNOWN | /x/Makefile
            Makefile:6: /x/inc.mk: Permission denied                                  | READ    | /x/inc.mk
            cc1: fatal error: /x/m.c: Permission denied                               | READ    | /x/m.c
            /usr/bin/ld: cannot open output file /x/a.out: Permission denied          | WRITE   | /x/a.out
            tar: /x/d: Cannot mkdir: Permission denied                                | WRITE   | /x/d
            env: ‘/x/t’: Permission denied                                            | EXEC    | /x/t
            tee: out.log: Permission denied                                           | WRITE   | /home/dev/ws/out.log
            rsync: [sender] send_files failed to open "/x/f": Permission denied (13)  | READ    | /x/f
            rsync: [sender] opendir "/x/d/." failed: Permission denied (13)           | READ    | /x/d/.
            rsync: [Receiver] mkdir "/x/d" failed: Permission denied (13)             | WRITE   | /x/d
            rsync: [receiver] mkstemp "/x/.f.Ab12Cd" failed: Permission denied (13)   | WRITE   | /x
            Cannot open /x/f: Permission denied at -e line 1.                         | READ    | /x/f
            Can't open /x/f: Permission denied.                                       | READ    | /x/f
            Can't open /x/f: Permission denied at x.pl line 3, <STDIN> line 2.        | READ    | /x/f
            Can't do inplace edit on /x/f: Cannot make temp name: Permission denied.  | WRITE   | /x/f
            curl: (37) Couldn't open file /x/f                                        | READ    | /x/f
            sed: couldn't open temporary file /x/sedA07drW: Permission denied         | WRITE   | /x
            sort: cannot create temporary file in '/x': Permission denied             | WRITE   | /x
            mktemp: failed to create file via template ‘/x/tmp.XXXXXX’: Permission denied | WRITE | /x
            mktemp: failed to create directory via template ‘/x/t.XXX’: Permission denied | WRITE | /x
            [FATAL] Non-readable POM /x/pom.xml: /x/pom.xml (Permission denied) @     | READ    | /x/pom.xml
              failed open - '/x/.gitconfig' is locked: Permission denied; class=Os (2); code=Locked (-14) | READ | /x/.gitconfig
            """)
    void one_line_one_candidate(String line, AccessHint hint, String path) {
        assertThat(parse(line)).singleElement().satisfies(c -> {
            assertThat(c.hint()).isEqualTo(hint);
            assertThat(c.path()).isEqualTo(Path.of(path));
            assertThat(c.line()).isEqualTo(line);
            assertThat(c.stream()).isEqualTo(ERR);
        });
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '\u0000', textBlock = """
            cat: /x/f: No such file or directory
            fatal: not a git repository (or any of the parent directories): .git
            git@github.com: Permission denied (publickey).
            sudo: Permission denied
            make: *** [Makefile:2: all] Error 127
            compilation terminated.
            Permission denied (os error 13)
            PermissionError: [Errno 13] Permission denied
            all tests passed
            cat: ~/.ssh/id_rsa: Permission denied
            ssh: connect to host example.invalid port 22: Permission denied
            x: couldn't open temporary file: Permission denied
            x: cannot open temporary file /x/y: Permission denied
            x: failed to open file via template /x/y: Permission denied
            Permission denied at -e line 1.
            curl: (23) Failure writing output to destination
            """)
    void lines_that_name_no_refused_path_give_nothing(String line) {
        assertThat(parse(line)).isEmpty();
    }

    @Test
    void curl_wraps_its_warning_and_the_pieces_join_back() {
        assertThat(parse("  0     0    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0"
                        + "Warning: Failed to open the file /x/dl.c: ", "Warning: Permission denied"))
                .singleElement().satisfies(c -> {
                    assertThat(c.hint()).isEqualTo(AccessHint.WRITE);
                    assertThat(c.path()).isEqualTo(Path.of("/x/dl.c"));
                });
        // Cut mid-word when a piece has no blank to break at.
        assertThat(parse("Warning: Failed to open the file /x/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                "Warning: bbb: Permission denied"))
                .extracting(Candidate::path)
                .containsExactly(Path.of("/x/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaabbb"));
        assertThat(parse("Warning: Failed to open the file /x/a: ", "other", "Warning: Permission denied")).isEmpty();
    }

    @Test
    void a_verb_phrase_is_never_taken_for_a_path() {
        for (String line : List.of("x: couldn't open temporary file /x/y: Permission denied",
                "x: cannot create temporary file in '/x': Permission denied",
                "x: failed to create file via template ‘/x/t.XX’: Permission denied",
                "x: could not write lock file /x/l: Permission denied")) {
            assertThat(parse(line)).as(line).allSatisfy(c -> assertThat(c.path().toString())
                    .startsWith("/x").doesNotContain(" "));
        }
    }

    @Test
    void a_relative_path_asks_the_live_cwd_and_an_absolute_one_does_not() {
        DenialParser parser = new DenialParser();
        int[] asked = new int[1];
        DenialParser.Cwd live = () -> {
            asked[0]++;
            return Path.of("/w/sub");
        };
        assertThat(parser.parse("cat: ../x: Permission denied", ERR, live))
                .extracting(Candidate::path).containsExactly(Path.of("/w/sub/../x"));
        assertThat(asked[0]).isEqualTo(1);
        parser.parse("cat: /x: Permission denied", ERR, live);
        parser.parse("compiling 12 files", ERR, live);
        assertThat(asked[0]).as("no readlink for a line without a relative path").isEqualTo(1);
    }

    @Test
    void perl_names_the_script_line_it_died_at() {
        assertThat(parse("Can't open /x/.bashrc: Permission denied at x.pl line 1."))
                .singleElement().satisfies(c -> assertThat(c.diedAt())
                        .contains(new DenialParser.ScriptLine("x.pl", 1)));
        // -e: the script is the command line's (CommandLine reads it there).
        assertThat(parse("Cannot open /x/f: Permission denied at -e line 1.")).singleElement()
                .satisfies(c -> assertThat(c.diedAt()).contains(new DenialParser.ScriptLine("-e", 1)));
        // bash names the line of its -c script, or of its script file.
        assertThat(parse("bash: line 2: /x/f: Permission denied")).singleElement()
                .satisfies(c -> assertThat(c.diedAt()).contains(new DenialParser.ScriptLine("-c", 2)));
        assertThat(parse("build.sh: line 3: /x/f: Permission denied")).singleElement()
                .satisfies(c -> assertThat(c.diedAt()).contains(new DenialParser.ScriptLine("build.sh", 3)));
    }

    @Test
    void colour_codes_are_ignored() {
        String line = "\u001B[31merror\u001B[0m: couldn't read `/x/m.rs`: Permission denied (os error 13)\r";
        assertThat(parse(line)).singleElement().satisfies(c -> {
            assertThat(c.path()).isEqualTo(Path.of("/x/m.rs"));
            assertThat(c.line()).doesNotContain("\u001B").doesNotContain("\r");
        });
    }

    @Test
    void two_paths_of_a_move_are_both_candidates() {
        assertThat(parse("mv: cannot move '/x/a' to '/y/b': Permission denied"))
                .extracting(Candidate::path).containsExactly(Path.of("/x/a"), Path.of("/y/b"));
        assertThat(parse("rename /x/a /y/b: permission denied"))
                .extracting(Candidate::hint).containsExactly(AccessHint.WRITE, AccessHint.WRITE);
    }

    @Test
    void cargo_names_the_path_lines_before_the_cause() {
        assertThat(parse("error: failed to read `/x/Cargo.toml`", "", "Caused by:", "  Permission denied (os error 13)"))
                .singleElement().satisfies(c -> {
                    assertThat(c.hint()).isEqualTo(AccessHint.READ);
                    assertThat(c.path()).isEqualTo(Path.of("/x/Cargo.toml"));
                });
    }

    @Test
    void a_cause_far_from_the_path_is_not_attributed_to_it() {
        assertThat(parse("error: failed to read `/x/Cargo.toml`", "a", "b", "c", "d", "e",
                "  Permission denied (os error 13)")).isEmpty();
    }

    @Test
    void npm_old_and_new_prefixes_and_the_path_line() {
        assertThat(parse("npm ERR! code EACCES", "npm ERR! syscall mkdir", "npm ERR! path /x/lib/node_modules"))
                .singleElement().satisfies(c -> {
                    assertThat(c.hint()).isEqualTo(AccessHint.WRITE);
                    assertThat(c.path()).isEqualTo(Path.of("/x/lib/node_modules"));
                });
        assertThat(parse("npm error code EACCES", "npm error syscall open", "npm error path /x/.npmrc"))
                .extracting(Candidate::path).containsExactly(Path.of("/x/.npmrc"));
    }

    @Test
    void a_path_line_outside_an_eacces_dump_is_not_a_denial() {
        assertThat(parse("  path: '/x/y'")).isEmpty();
        assertThat(parse("npm error path /x/y")).isEmpty();
    }

    @Test
    void python_exec_is_told_apart_by_its_traceback() {
        assertThat(parse("Traceback (most recent call last):",
                "  File \"/usr/lib/python3.11/subprocess.py\", line 1901, in _execute_child",
                "    raise child_exception_type(errno_num, err_msg, err_filename)",
                "PermissionError: [Errno 13] Permission denied: '/x/tool'"))
                .extracting(Candidate::hint).containsExactly(AccessHint.EXEC);
        assertThat(parse("Traceback (most recent call last):", "  File \"<string>\", line 1, in <module>",
                "PermissionError: [Errno 13] Permission denied: '/x/f'"))
                .extracting(Candidate::hint).containsExactly(AccessHint.UNKNOWN);
    }

    @Test
    void streams_keep_their_own_context() {
        DenialParser parser = new DenialParser();
        parser.parse("error: failed to read `/x/Cargo.toml`", RunEvent.Stream.STDOUT, () -> CWD);
        assertThat(parser.parse("Permission denied (os error 13)", RunEvent.Stream.STDERR, () -> CWD)).isEmpty();
        assertThat(parser.parse("Permission denied (os error 13)", RunEvent.Stream.STDOUT, () -> CWD)).hasSize(1);
    }

    @Property(tries = 500)
    void any_line_parses_without_failing_and_gives_absolute_paths(@ForAll String line) {
        DenialParser parser = new DenialParser();
        assertThat(parser.parse(line, ERR, () -> CWD)).allSatisfy(c -> assertThat(c.path().isAbsolute()).isTrue());
        assertThat(parser.parse(line + ": Permission denied", ERR, () -> CWD))
                .allSatisfy(c -> assertThat(c.path().isAbsolute()).isTrue());
    }
}
