package dev.magus.policy.trust;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class UntrustedTest {

    @ParameterizedTest
    @ValueSource(strings = {"GITHUB_TOKEN", "NPM_TOKEN", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE", "OPENAI_API_KEY",
            "DB_PASSWORD", "GOOGLE_APPLICATION_CREDENTIALS", "SSH_AUTH_SOCK", "VAULT_ADDR", "MY_APIKEY", "SENTRY_DSN",
            "CARGO_REGISTRY_TOKEN", "TWINE_PASSWORD", "GH_ENTERPRISE_TOKEN", "KUBECONFIG", "DATABASE_URL", "SESSION_COOKIE",
            "gitlab_token"})
    void secretsLookLikeSecrets(String name) {
        assertThat(Untrusted.secretLooking(name)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"CI", "NODE_ENV", "JAVA_HOME", "GOFLAGS", "RUST_BACKTRACE", "LANG", "TERM", "MAVEN_OPTS",
            "PYTHONPATH", "KEYBOARD_LAYOUT", "MONKEY_MODE"})
    void buildVariablesDoNot(String name) {
        assertThat(Untrusted.secretLooking(name)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"localhost", "127.0.0.1", "127.1.2.3", "[::1]", "::1", "169.254.169.254", "10.0.0.5",
            "192.168.1.1", "172.16.0.1", "100.100.100.200", "metadata.google.internal", "*.internal", "db.corp",
            "printer.local", "*", "[fd00:ec2::254]", "[::ffff:127.0.0.1]", "0.0.0.0", "host.docker.internal"})
    void localHostsNeedTrust(String host) {
        assertThat(LocalHosts.why(host)).as(host).isNotNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"registry.npmjs.org", "*.github.com", "8.8.8.8", "[2606:4700::1111]", "example.org",
            "internal.example.com", "localhost.example.com"})
    void publicHostsDoNot(String host) {
        assertThat(LocalHosts.why(host)).as(host).isNull();
    }
}
