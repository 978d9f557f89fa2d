package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A tiny Maven project and the local repository it builds offline with, taken from the host's own. */
final class MavenSeed {
    static final List<String> PLUGINS = List.of("maven-resources-plugin", "maven-compiler-plugin", "maven-surefire-plugin",
            "maven-jar-plugin");
    /** Kept between runs of the test: resolving the plugins' dependencies is most of its time. */
    static final Path CACHE = Path.of("target", "spells-it-m2");

    private MavenSeed() {
    }

    /**
     * For each plugin, the version this checkout's own build uses (its parent pom), when the
     * host's repository holds its jar: that build resolved it and everything it needs.
     */
    static Map<String, String> plugins(Path parentPom, Path hostRepo) throws IOException {
        String pom = Files.readString(parentPom);
        Map<String, String> out = new LinkedHashMap<>();
        for (String p : PLUGINS) {
            Matcher m = Pattern.compile("<artifactId>" + p + "</artifactId>\\s*<version>([^<]+)</version>").matcher(pom);
            if (m.find() && Files.isRegularFile(hostRepo.resolve("org/apache/maven/plugins").resolve(p).resolve(m.group(1))
                    .resolve(p + "-" + m.group(1) + ".jar"))) {
                out.put(p, m.group(1));
            }
        }
        return out;
    }

    static void project(Path ws, Map<String, String> plugins) throws IOException {
        StringBuilder p = new StringBuilder("<project xmlns=\"http://maven.apache.org/POM/4.0.0\"><modelVersion>4.0.0</modelVersion>\n"
                + "<groupId>demo</groupId><artifactId>demo</artifactId><version>1</version>\n"
                + "<properties><maven.compiler.release>17</maven.compiler.release>"
                + "<project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>\n<build><plugins>\n");
        plugins.forEach((a, v) -> p.append("<plugin><groupId>org.apache.maven.plugins</groupId><artifactId>").append(a)
                .append("</artifactId><version>").append(v).append("</version></plugin>\n"));
        p.append("</plugins></build></project>\n");
        Files.writeString(ws.resolve("pom.xml"), p);
        Files.createDirectories(ws.resolve("src/main/java/demo"));
        Files.writeString(ws.resolve("src/main/java/demo/App.java"),
                "package demo;\npublic class App { public static void main(String[] a) { System.out.println(\"hi\"); } }\n");
    }

    /** Fills {@code repo} with what the project needs, from {@code hostRepo} as a file:// mirror. */
    static void seed(Path hostRepo, Map<String, String> plugins, Path repo, Path scratch) throws IOException, InterruptedException {
        Path cache = CACHE.toAbsolutePath().resolve(String.join("_", plugins.values()));
        if (!Files.isDirectory(cache)) {
            Path work = Files.createDirectories(scratch.resolve("ws"));
            project(work, plugins);
            Path settings = scratch.resolve("settings.xml");
            Files.writeString(settings, "<settings><mirrors><mirror><id>central</id><mirrorOf>*</mirrorOf><url>"
                    + hostRepo.toUri() + "</url></mirror></mirrors></settings>\n");
            Path fresh = Files.createDirectories(scratch.resolve("repo"));
            Path log = scratch.resolve("seed.log");
            Process p = new ProcessBuilder("mvn", "-B", "-q", "-s", settings.toString(), "-Dmaven.repo.local=" + fresh,
                    "package", "-DskipTests").directory(work.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            assertThat(p.waitFor(300, TimeUnit.SECONDS)).as("seeding the local repository ended").isTrue();
            assertThat(p.exitValue()).as("seeding the local repository from the host's:\n%s", Files.readString(log)).isZero();
            Files.createDirectories(cache.getParent());
            copy(fresh, cache);
        }
        copy(cache, repo);
    }

    private static void copy(Path from, Path to) throws IOException, InterruptedException {
        Files.createDirectories(to);
        Process p = new ProcessBuilder("cp", "-a", from + "/.", to.toString()).inheritIO().start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0).as("cp -a %s %s", from, to).isTrue();
    }
}
