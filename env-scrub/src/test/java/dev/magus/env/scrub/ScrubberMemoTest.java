package dev.magus.env.scrub;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.env.Allowlist;
import dev.magus.env.platform.Platform;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;
import org.junit.jupiter.api.Test;

/** {@link Scrubber#of} hands out its last scrubber again only for equal inputs, and it then filters as a fresh one. */
class ScrubberMemoTest {
    private static final List<String> NAMES = List.of("PATH", "HOME", "LC_ALL", "XDG_CACHE_HOME", "TMPDIR",
            "MAGUS_PROC_SOCKET", "MAGUS_OTHER", "GITHUB_TOKEN", "GOFLAGS", "GOCACHE", "GOOGLE_APPLICATION_CREDENTIALS",
            "MISE_DATA_DIR", "MISER", "TF_PLUGIN_CACHE_DIR", "NPM_TOKEN", "SHELL", "PWD", "AWS_SECRET_ACCESS_KEY");
    private static final List<String> ENTRIES = List.of("GOFLAGS", "GOCACHE", "MISE_*", "TF_PLUGIN_CACHE_DIR", "NPM_TOKEN",
            "AWS_*", "GITHUB_TOKEN", "LC_ALL", "GO_*");

    /** Any sequence of (platform, passthrough): each scrubber handed out keeps exactly what a fresh one keeps. */
    @Property(tries = 300)
    void theMemoisedScrubberIsTheFreshOne(@ForAll("calls") List<Tuple2<Platform, Allowlist>> calls) {
        for (Tuple2<Platform, Allowlist> c : calls) {
            Scrubber got = Scrubber.of(c.get1(), c.get2());
            Scrubber fresh = Scrubber.fresh(c.get1(), c.get2());
            assertThat(got.platform()).isEqualTo(c.get1());
            assertThat(got.passthrough()).isEqualTo(c.get2());
            assertThat(got.allowlist()).isEqualTo(fresh.allowlist());
            for (String n : NAMES) {
                assertThat(got.keeps(n)).as(n + " under " + c).isEqualTo(fresh.keeps(n));
            }
        }
    }

    @Provide
    Arbitrary<List<Tuple2<Platform, Allowlist>>> calls() {
        Arbitrary<Allowlist> lists = Arbitraries.of(ENTRIES).list().ofMaxSize(4).map(l -> Allowlist.parse(l, "test"));
        return Combinators.combine(Arbitraries.of(Platform.class), lists).as(Tuple::of).list().ofMinSize(1).ofMaxSize(8);
    }

    /** Another passthrough, or another platform, is never answered by the scrubber of the last one. */
    @Test
    void otherInputsBuildAnother() {
        Allowlist npm = Allowlist.parse(List.of("NPM_TOKEN"), "magus.yaml");
        Scrubber first = Scrubber.of(Platform.LINUX, npm);
        assertThat(Scrubber.of(Platform.LINUX, Allowlist.parse(List.of("NPM_TOKEN"), "spell"))).isSameAs(first);
        Scrubber narrower = Scrubber.of(Platform.LINUX, Allowlist.EMPTY);
        assertThat(narrower).isNotSameAs(first);
        assertThat(narrower.keeps("NPM_TOKEN")).isFalse();
        assertThat(first.keeps("NPM_TOKEN")).isTrue();
        Scrubber other = Scrubber.of(Platform.OTHER, Allowlist.EMPTY);
        assertThat(other).isNotSameAs(narrower);
        assertThat(other.keeps("XDG_CACHE_HOME")).isFalse();
        assertThat(narrower.keeps("XDG_CACHE_HOME")).isTrue();
    }
}
