package dev.magus.landlock.denials;

import dev.magus.events.Operation;
import java.util.List;
import java.util.Map;

/**
 * One tool run against the fixture: argv and expectations use {@code ${HOME}}/{@code ${WS}}.
 * {@code op} NONE means the run must yield no diagnostic.
 */
public record Scenario(String name, List<String> argv, List<String> grants, Operation op, String path,
        Map<String, String> files) {

    static Scenario of(String name, Operation op, String path, String... argv) {
        return new Scenario(name, List.of(argv), List.of(), op, path, Map.of());
    }

    Scenario grants(String... more) {
        return new Scenario(name, argv, List.of(more), op, path, files);
    }

    /** A file this run alone needs (git's other runs would report it too), removed after it. */
    Scenario with(String file, String text) {
        return new Scenario(name, argv, grants, op, path, Map.of(file, text));
    }

    static final String CREDS = "${HOME}/.aws/credentials";
    static final String TOOL = "${HOME}/tool.sh";

    /** The runs of the corpus; argv[0] is looked up on PATH ({@code python3}: the system one). */
    static List<Scenario> all() {
        Operation r = Operation.READ;
        Operation w = Operation.WRITE;
        Operation x = Operation.EXEC;
        return List.of(
                of("cat", r, CREDS, "cat", CREDS),
                of("cat relative", r, CREDS, "cat", "../home/.aws/credentials"),
                of("head", r, CREDS, "head", CREDS),
                of("grep", r, CREDS, "grep", "x", CREDS),
                of("wc", r, CREDS, "wc", "-l", CREDS),
                of("sed", r, CREDS, "sed", "-n", "p", CREDS),
                of("dd", r, CREDS, "dd", "if=" + CREDS, "of=/dev/null"),
                of("find", r, "${HOME}/.aws", "find", "${HOME}/.aws"),
                of("ls", r, "${HOME}", "ls", "${HOME}"),
                of("tar", r, "${HOME}/.aws", "tar", "cf", "${WS}/tmp/x.tar", "${HOME}/.aws"),
                of("cp read", r, CREDS, "cp", CREDS, "${WS}/copy"),
                of("cp write", w, "${HOME}/copy.c", "cp", "${WS}/m.c", "${HOME}/copy.c"),
                of("mv", w, TOOL, "mv", TOOL, "${WS}/moved.sh"),
                of("touch", w, "${HOME}/new", "touch", "${HOME}/new"),
                of("mkdir", w, "${HOME}/newdir", "mkdir", "${HOME}/newdir"),
                of("rm", w, CREDS, "rm", "-f", CREDS),
                of("truncate", w, CREDS, "truncate", "-s0", CREDS),
                of("tee", w, "${HOME}/t", "tee", "${HOME}/t"),
                of("ln", w, "${HOME}/l", "ln", "-s", "x", "${HOME}/l"),
                of("env exec", x, TOOL, "env", TOOL),
                of("sh write", w, "${HOME}/out", "sh", "-c", "echo x > ${HOME}/out"),
                of("sh read", r, CREDS, "sh", "-c", "cat < " + CREDS),
                of("sh exec", x, TOOL, "sh", "-c", TOOL),
                of("bash write", w, "${HOME}/out", "bash", "-c", "echo x > ${HOME}/out"),
                of("bash read", r, CREDS, "bash", "-c", "cat < " + CREDS),
                of("bash exec", x, TOOL, "bash", "-c", TOOL),
                of("bash relative exec", x, TOOL, "bash", "-c", "../home/tool.sh"),
                of("bash script line", w, "${HOME}/out", "bash", "${WS}/w.sh"),
                of("python3 read", r, CREDS, "python3", "-c", "open('" + CREDS + "').read()"),
                of("python3 write", w, "${HOME}/out.txt", "python3", "-c", "open('${HOME}/out.txt', 'w')"),
                of("python3 mkdir", w, "${HOME}/d", "python3", "-c", "import os; os.mkdir('${HOME}/d')"),
                of("python3 exec", x, TOOL, "python3", "-c", "import subprocess; subprocess.run(['" + TOOL + "'])"),
                of("node read", r, CREDS, "node", "-e", "require('fs').readFileSync('" + CREDS + "')"),
                of("node write", w, "${HOME}/out.txt", "node", "-e", "require('fs').writeFileSync('${HOME}/out.txt', 'x')"),
                of("node mkdir", w, "${HOME}/d", "node", "-e", "require('fs').mkdirSync('${HOME}/d')"),
                of("node exec", x, TOOL, "node", "-e", "require('child_process').execFileSync('" + TOOL + "')"),
                of("java nio read", r, CREDS, "java", "-XX:-UsePerfData", "R.java", "nio", CREDS),
                of("java io read", r, CREDS, "java", "-XX:-UsePerfData", "R.java", "io", CREDS),
                of("java io write", w, "${HOME}/out.bin", "java", "-XX:-UsePerfData", "R.java", "iow", "${HOME}/out.bin"),
                of("java exec", x, TOOL, "java", "-XX:-UsePerfData", "R.java", "exec", TOOL),
                of("git read", r, CREDS, "git", "hash-object", CREDS),
                of("git config lock", w, "${HOME}/gc", "git", "config", "--file", "${HOME}/gc", "user.name", "x"),
                of("git init", w, "${HOME}/repo", "git", "init", "-q", "${HOME}/repo"),
                of("git include warning", r, CREDS, "git", "-c", "include.path=" + CREDS, "config", "--list"),
                of("gcc read", r, "${HOME}/m.c", "gcc", "-c", "${HOME}/m.c", "-o", "${WS}/tmp/m.o"),
                of("gcc ld write", w, "${HOME}/m.out", "gcc", "${WS}/m.c", "-o", "${HOME}/m.out"),
                of("gcc as write", w, "${HOME}/m.o", "gcc", "-c", "${WS}/m.c", "-o", "${HOME}/m.o"),
                of("make read", r, "${HOME}/Makefile", "make", "-f", "${HOME}/Makefile"),
                of("make exec", x, TOOL, "make", "-C", "${WS}", "run"),
                of("npm write", w, "${HOME}/p", "npm", "install", "--offline", "--no-audit", "--no-fund",
                        "--cache", "${WS}/npmcache", "--prefix", "${HOME}/p", "${WS}/np"),
                of("cargo read", r, "${HOME}/crate/Cargo.toml", "cargo", "build", "--offline",
                        "--manifest-path", "${HOME}/crate/Cargo.toml"),
                of("rustc read", r, "${HOME}/m.c", "rustc", "--out-dir", "${WS}/tmp", "${HOME}/m.c"),
                of("go read", r, "${HOME}/m.go", "go", "vet", "${HOME}/m.go"),
                of("rsync read", r, CREDS, "rsync", CREDS, "${WS}/tmp/c"),
                of("rsync dir read", r, "${HOME}/.aws", "rsync", "-a", "${HOME}/.aws/", "${WS}/tmp/aws/"),
                of("rsync write", w, "${HOME}", "rsync", "${WS}/m.c", "${HOME}/m2.c").grants("r:${HOME}"),
                of("rsync mkdir", w, "${HOME}/np", "rsync", "-a", "${WS}/np/", "${HOME}/np/").grants("r:${HOME}"),
                of("perl read", r, CREDS, "perl", "-e",
                        "open(my $f, '<', '" + CREDS + "') or die \"Cannot open " + CREDS + ": $!\""),
                of("perl append", w, "${HOME}/.bashrc", "perl", "append.pl"),
                of("perl -e append", w, "${HOME}/.bashrc", "perl", "-e",
                        "open(my $f, '>>', '${HOME}/.bashrc') or die \"Can't open ${HOME}/.bashrc: $!\""),
                of("bash -c append", w, "${HOME}/.bashrc", "bash", "-c", "echo x >> ${HOME}/.bashrc"),
                of("curl -sS -o write", w, "${HOME}/dl.c", "curl", "-sS", "-o", "${HOME}/dl.c", "file://${WS}/m.c"),
                of("perl -n read", r, CREDS, "perl", "-ne", "print", CREDS),
                of("perl inplace", w, "${HOME}/m.c", "perl", "-pi", "-e", "s/a/b/", "${HOME}/m.c").grants("r:${HOME}"),
                of("curl read", r, CREDS, "curl", "-sS", "file://" + CREDS),
                of("curl write", w, "${HOME}/dl.c", "curl", "-o", "${HOME}/dl.c", "file://${WS}/m.c"),
                of("sed -i temp", w, "${HOME}", "sed", "-i", "s/a/b/", "${HOME}/m.c").grants("r:${HOME}"),
                of("sort temp", w, "${HOME}", "sort", "-S", "1k", "-T", "${HOME}", "${WS}/lines.txt").grants("r:${HOME}"),
                of("mktemp template", w, "${HOME}", "mktemp", "${HOME}/tmp.XXXXXX"),
                of("mktemp dir", w, "${HOME}", "mktemp", "-d", "-p", "${HOME}"),
                of("mvn pom", r, "${HOME}/pom.xml", "mvn", "-B", "-o", "-q", "-f", "${HOME}/pom.xml", "validate"),
                of("cargo gitconfig", r, "${HOME}/.gitconfig", "cargo", "new", "--vcs", "git", "${WS}/tmp/newcrate")
                        .with("${HOME}/.gitconfig", "[user]\n\tname = fixture\n"));
    }
}
