package dev.magus.workspace.spell;

import java.util.List;

import static dev.magus.policy.fs.AccessMode.R;
import static dev.magus.policy.fs.AccessMode.RW;
import static dev.magus.policy.fs.AccessMode.RWX;
import static dev.magus.policy.fs.AccessMode.RX;

import dev.magus.policy.decl.Base;
import dev.magus.workspace.spell.SpellBuilder.ToolDir;

/**
 * The built-in node, java, rust and go spells. Each grant is derived from the variable the tool
 * itself reads, with the tool's own default; the credential files each tool keeps beside its
 * cache stay out: {@code ~/.npmrc}, {@code ~/.yarnrc*}, {@code ~/.m2/settings*.xml},
 * {@code ~/.gradle/gradle.properties} (and {@code init.d}), {@code $CARGO_HOME/credentials*},
 * {@code ~/.netrc}. That is why the rust spell grants cargo's registry and not its home.
 */
final class Toolchains {
    private Toolchains() {
    }

    /** npm, pnpm, yarn, corepack (node itself is the system's, or a version manager's). */
    static Spell node(SpellHost host) {
        return new SpellBuilder("node", host)
                .variable("npm-cache", "npm_config_cache", Base.HOME, ".npm", RW)
                .variable("npm-cache-upper", "NPM_CONFIG_CACHE", RW)
                .created("npm-cache", "npm-cache-upper")
                .variable("npm-prefix", "npm_config_prefix", RWX)
                .variable("node-gyp", "npm_config_devdir", Base.XDG_CACHE, "node-gyp", RW)
                .variable("pnpm-home", "PNPM_HOME", Base.XDG_DATA, "pnpm", RWX)
                .base("pnpm-cache", Base.USER_CACHE, "pnpm", RW)
                .base("pnpm-state", Base.XDG_STATE, "pnpm", RW)
                .variable("yarn-cache", "YARN_CACHE_FOLDER", Base.XDG_CACHE, "yarn", RW)
                .variable("yarn-berry", "YARN_GLOBAL_FOLDER", Base.HOME, ".yarn/berry", RW)
                .variable("corepack", "COREPACK_HOME", Base.USER_CACHE, "node/corepack", RWX)
                .pass("NODE_ENV", "NODE_OPTIONS", "NODE_PATH", "NODE_EXTRA_CA_CERTS", "npm_config_cache", "NPM_CONFIG_CACHE",
                        "npm_config_prefix", "npm_config_devdir", "PNPM_HOME", "YARN_CACHE_FOLDER", "YARN_GLOBAL_FOLDER",
                        "COREPACK_HOME", "COREPACK_ENABLE_DOWNLOAD_PROMPT", "COREPACK_ENABLE_STRICT")
                .registries("registry.npmjs.org", "registry.yarnpkg.com", "repo.yarnpkg.com")
                .build();
    }

    /** The files that say a project builds with Maven, and with Gradle. */
    static final List<String> MAVEN_MARKERS = List.of("pom.xml", "mvnw", ".mvn");
    static final List<String> GRADLE_MARKERS = List.of("build.gradle", "build.gradle.kts", "settings.gradle",
            "settings.gradle.kts", "gradlew");

    /** The JDK in JAVA_HOME, Maven and Gradle. */
    static Spell java(SpellHost host) {
        ToolDir gradle = ToolDir.of("GRADLE_USER_HOME", ".gradle");
        ToolDir mavenUser = ToolDir.of("MAVEN_USER_HOME", ".m2");
        return new SpellBuilder("java", host)
                .variable("java-home", "JAVA_HOME", RX)
                .variable("maven-home", "MAVEN_HOME", RX)
                .variable("m2-home", "M2_HOME", RX)
                .path("maven-repository", "~/.m2/repository", RW)
                .createdFor(MAVEN_MARKERS, "maven-repository")
                .under("maven-wrapper", mavenUser, "wrapper", RWX)
                .under("gradle-caches", gradle, "caches", RW)
                .under("gradle-wrapper", gradle, "wrapper", RWX)
                .createdFor(GRADLE_MARKERS, "gradle-caches", "gradle-wrapper")
                .under("gradle-daemon", gradle, "daemon", RW)
                .under("gradle-native", gradle, "native", RW)
                .under("gradle-jdks", gradle, "jdks", RWX)
                .under("gradle-tmp", gradle, ".tmp", RW)
                .pass("JAVA_HOME", "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "JAVA_OPTS", "MAVEN_OPTS", "MAVEN_ARGS",
                        "MAVEN_HOME", "M2_HOME", "MAVEN_USER_HOME", "GRADLE_USER_HOME", "GRADLE_OPTS")
                .registries("repo.maven.apache.org", "repo1.maven.org", "plugins.gradle.org", "services.gradle.org",
                        "downloads.gradle.org")
                .build();
    }

    /**
     * cargo and rustup. The toolchains rustup installed are read and run, never written: a
     * build that could rewrite its own compiler would outlast the run.
     */
    static Spell rust(SpellHost host) {
        ToolDir cargo = ToolDir.of("CARGO_HOME", ".cargo");
        ToolDir rustup = ToolDir.of("RUSTUP_HOME", ".rustup");
        return new SpellBuilder("rust", host)
                .under("cargo-registry", cargo, "registry", RW)
                .under("cargo-git", cargo, "git", RW)
                .created("cargo-registry", "cargo-git")
                .under("cargo-bin", cargo, "bin", RX)
                .under("cargo-config", cargo, "config.toml", R)
                .under("cargo-config-legacy", cargo, "config", R)
                .under("rustup", rustup, "", RX)
                .under("rustup-tmp", rustup, "tmp", RW)
                .under("rustup-downloads", rustup, "downloads", RW)
                .variable("cargo-target", "CARGO_TARGET_DIR", RW)
                .pass("CARGO_HOME", "CARGO_TARGET_DIR", "CARGO_BUILD_JOBS", "CARGO_BUILD_TARGET", "CARGO_INCREMENTAL",
                        "CARGO_NET_OFFLINE", "CARGO_TERM_COLOR", "CARGO_PROFILE_RELEASE_DEBUG", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN",
                        "RUSTUP_AUTO_INSTALL", "RUSTFLAGS", "RUSTDOCFLAGS", "RUSTC_WRAPPER", "RUST_BACKTRACE", "RUST_LOG")
                .registries("crates.io", "index.crates.io", "static.crates.io", "static.rust-lang.org")
                .build();
    }

    /** go: the module and build caches, GOROOT, GOBIN; every Go variable passes. */
    static Spell go(SpellHost host) {
        ToolDir gopath = new ToolDir("GOPATH", "go", true);
        SpellBuilder b = new SpellBuilder("go", host).variable("goroot", "GOROOT", RX);
        if (host.variable("GOMODCACHE").isPresent()) {
            b.variable("gomodcache", "GOMODCACHE", RW);
        } else {
            b.under("gomodcache", gopath, "pkg/mod", RW);
        }
        if (host.variable("GOBIN").isPresent()) {
            b.variable("gobin", "GOBIN", RWX);
        } else {
            b.under("gobin", gopath, "bin", RWX);
        }
        return b.variable("gocache", "GOCACHE", Base.USER_CACHE, "go-build", RWX)
                .created("gomodcache", "gocache")
                .variable("goenv", "GOENV", Base.USER_CONFIG, "go/env", R)
                .pass("GOROOT", "GOPATH", "GOBIN", "GOCACHE", "GOMODCACHE", "GOENV", "GOFLAGS", "GOOS", "GOARCH", "GOEXPERIMENT",
                        "GOPROXY", "GOPRIVATE", "GONOPROXY", "GONOSUMDB", "GOSUMDB", "GOINSECURE", "GOTOOLCHAIN", "GOWORK",
                        "GOTMPDIR", "GODEBUG", "GOAMD64", "GOARM", "GOARM64", "GO386", "GOMIPS", "GOMIPS64", "GOPPC64",
                        "GORISCV64", "GOWASM", "GOVCS", "GOTELEMETRY", "GOGC", "GOMAXPROCS", "GOTRACEBACK", "GOCOVERDIR",
                        "CGO_ENABLED", "CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_CXXFLAGS", "CGO_FFLAGS", "CGO_LDFLAGS")
                .registries("proxy.golang.org", "sum.golang.org")
                .build();
    }
}
