package dev.magus.landlock.denials;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The world the corpus was captured in: a fake home the policy refuses (holding a fake
 * credential, a script, sources) and a workspace it grants. The checked-in corpus refers to
 * them as {@code ${HOME}} and {@code ${WS}}; the corpus test rebuilds the same files so that
 * what exists where is the same as when the lines were captured.
 */
public record Fixture(Path home, Path ws) {

    public static final String FAKE_SECRET = "aws_secret_access_key=AKIAFAKEFAKEFAKEFAKE\n";

    public static Fixture create(Path root) {
        try {
            Path home = Files.createDirectories(root.resolve("home"));
            Path ws = Files.createDirectories(root.resolve("ws"));
            write(home.resolve(".aws/credentials"), FAKE_SECRET);
            write(home.resolve("tool.sh"), "#!/bin/sh\necho hi\n");
            write(home.resolve(".ssh/id_rsa"), "FAKE KEY\n");
            write(home.resolve(".npmrc"), "//registry.example/:_authToken=fake\n");
            write(home.resolve(".git-credentials"), "https://u:fake@example.invalid\n");
            Files.setPosixFilePermissions(home.resolve("tool.sh"), PosixFilePermissions.fromString("rwxr-xr-x"));
            write(home.resolve("m.c"), "int main(void){return 0;}\n");
            write(home.resolve("Makefile"), "all:\n\ttrue\n");
            write(home.resolve("crate/Cargo.toml"), "[package]\nname = \"c\"\nversion = \"0.1.0\"\nedition = \"2021\"\n");
            write(home.resolve("crate/src/main.rs"), "fn main() {}\n");
            Files.createDirectories(ws.resolve("tmp"));
            write(ws.resolve("m.c"), "int main(void){return 0;}\n");
            write(ws.resolve("Makefile"), "run:\n\t" + home.resolve("tool.sh") + "\n");
            write(ws.resolve("np/package.json"), "{\"name\":\"x\",\"version\":\"1.0.0\"}\n");
            write(ws.resolve("R.java"), """
                    import java.nio.file.*;
                    public class R {
                        public static void main(String[] a) throws Exception {
                            switch (a[0]) {
                                case "nio" -> Files.readString(Path.of(a[1]));
                                case "io" -> new java.io.FileInputStream(a[1]).close();
                                case "iow" -> new java.io.FileOutputStream(a[1]).close();
                                case "exec" -> new ProcessBuilder(a[1]).start();
                                default -> throw new IllegalArgumentException(a[0]);
                            }
                        }
                    }
                    """);
            write(ws.resolve("w.sh"), "echo y > " + home.resolve("out") + "\n");
            write(home.resolve("m.go"), "package main\n\nfunc main() {}\n");
            write(home.resolve(".bashrc"), "# a shell startup file a payload appends to\n");
            write(home.resolve("pom.xml"), "<project><modelVersion>4.0.0</modelVersion><groupId>x</groupId>"
                    + "<artifactId>x</artifactId><version>1</version></project>\n");
            write(ws.resolve("append.pl"), "open(my $f, '>>', '" + home.resolve(".bashrc")
                    + "') or die \"Can't open " + home.resolve(".bashrc") + ": $!\";\n");
            StringBuilder lines = new StringBuilder();
            for (int i = 30000; i > 0; i--) {
                lines.append(i).append('\n');
            }
            write(ws.resolve("lines.txt"), lines.toString());
            Files.createDirectories(ws.resolve("sub/deep"));
            return new Fixture(home, ws);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code ${HOME}}/{@code ${WS}} replaced by this fixture's paths. */
    public String expand(String s) {
        return s.replace("${HOME}", home.toString()).replace("${WS}", ws.toString());
    }

    /** This fixture's paths replaced by {@code ${HOME}}/{@code ${WS}}. */
    public String placeholders(String s) {
        return s.replace(home.toString(), "${HOME}").replace(ws.toString(), "${WS}");
    }

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }
}
