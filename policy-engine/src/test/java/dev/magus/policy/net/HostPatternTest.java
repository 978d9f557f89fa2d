package dev.magus.policy.net;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Combinators;
import org.junit.jupiter.api.Test;

class HostPatternTest {

    static HostPattern host(String text) {
        return ((HostPattern.Result.Parsed) HostPattern.parse(text)).pattern();
    }

    static String refusal(String text) {
        return ((HostPattern.Result.Refused) HostPattern.parse(text)).why();
    }

    @Test
    void exactHostsMatchThemselvesWithoutCaseOrTrailingDot() {
        HostPattern h = host("Registry.NPMjs.org.");
        assertThat(h.text()).isEqualTo("registry.npmjs.org");
        assertThat(h.matches("registry.npmjs.org")).isTrue();
        assertThat(h.matches("REGISTRY.npmjs.org.")).isTrue();
        assertThat(h.matches("evil-registry.npmjs.org")).isFalse();
        assertThat(h.matches("registry.npmjs.org.evil.com")).isFalse();
        assertThat(h.isWildcard()).isFalse();
    }

    @Test
    void aPatternMatchesEveryHostBelowItsDomainButNotTheDomainItself() {
        HostPattern p = host("*.example.org");
        assertThat(p.matches("a.example.org")).isTrue();
        assertThat(p.matches("a.b.example.org")).isTrue();
        assertThat(p.matches("example.org")).isFalse();
        assertThat(p.matches("badexample.org")).isFalse();
        assertThat(p.matches("example.org.evil.com")).isFalse();
    }

    @Test
    void ipLiteralsAreHosts() {
        assertThat(host("10.0.0.5").matches("10.0.0.5")).isTrue();
        assertThat(host("::1").text()).isEqualTo("[::1]");
        assertThat(host("[fd00:ec2::254]").matches("fd00:ec2::254")).isTrue();
    }

    @Test
    void whatCannotBeAHostIsRefusedWithTheReason() {
        assertThat(refusal("*")).contains("every host");
        assertThat(refusal("*.org")).contains("top-level domain");
        assertThat(refusal("a.*.org")).contains("first label");
        assertThat(refusal("*example.org")).contains("first label");
        assertThat(refusal("example.org:443")).contains("no port");
        assertThat(refusal("https://example.org")).contains("not a URL");
        assertThat(refusal("")).contains("empty");
        assertThat(refusal("a..b")).contains("empty label");
        assertThat(refusal("-a.org")).contains("not a DNS label");
        assertThat(refusal("a b.org")).contains("not a DNS label");
        assertThat(refusal("x".repeat(64) + ".org")).contains("not a DNS label");
        assertThat(refusal("[zz::1]")).contains("IPv6");
    }

    @Provide
    Arbitrary<String> labels() {
        return Arbitraries.strings().withChars("abcdefghijklmnopqrstuvwxyz0123456789").ofMinLength(1).ofMaxLength(12);
    }

    @Property
    void aPatternMatchesExactlyTheNamesThatEndInDotSuffix(@ForAll("labels") String a, @ForAll("labels") String b,
            @ForAll("labels") String c, @ForAll("labels") String other) {
        String suffix = b + "." + c;
        HostPattern p = host("*." + suffix);
        assertThat(p.matches(a + "." + suffix)).isTrue();
        assertThat(p.matches(other + a + "." + suffix)).isTrue();
        assertThat(p.matches(suffix)).isFalse();
        // Glued to the suffix without a dot is another domain.
        assertThat(p.matches(a + suffix)).isFalse();
        // The suffix followed by more labels is another domain (the last label is not c).
        assertThat(p.matches(a + "." + suffix + "." + c + "-")).isFalse();
    }

    @Property
    void exactHostsMatchOnlyThemselves(@ForAll("labels") String a, @ForAll("labels") String b, @ForAll("labels") String x) {
        HostPattern h = host(a + "." + b);
        assertThat(h.matches((a + "." + b).toUpperCase())).isTrue();
        assertThat(h.matches(x + "." + a + "." + b)).isFalse();
    }

    @Property
    void parsingIsIdempotent(@ForAll("names") String name) {
        HostPattern once = host(name);
        assertThat(host(once.text())).isEqualTo(once);
    }

    @Provide
    Arbitrary<String> names() {
        Arbitrary<String> label = Arbitraries.strings().withChars("abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789")
                .ofMinLength(1).ofMaxLength(10);
        return Combinators.combine(label, label, label, Arbitraries.of("", "*.")).as((x, y, z, w) -> w + x + "." + y + "." + z);
    }
}
