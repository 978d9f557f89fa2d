package dev.magus.landlock.denials.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.landlock.denials.PrefixConfirmer;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AuditDiagnosticsTest {

    private static final Path CWD = Path.of("/ws");

    @Test
    void an_exec_refused_with_its_read_is_one_exec_diagnostic() {
        var access = new AuditRecord.Access(1, "1a", List.of("fs.execute", "fs.read_file"), Optional.of("/h/tool"));
        assertThat(AuditDiagnostics.of(access, CWD, new PrefixConfirmer(Path.of("/h")))).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2007);
            assertThat(d.layer()).isEqualTo(Layer.KERNEL);
            assertThat(d.source()).isEqualTo("audit");
            assertThat(d.details()).containsEntry("blockers", "fs.execute,fs.read_file").containsEntry("domain", "1a")
                    .containsKey("allow_yaml");
        });
    }

    @Test
    void a_kernel_denial_the_policy_would_allow_is_still_reported() {
        var access = new AuditRecord.Access(1, "1a", List.of("fs.read_file", "fs.write_file"), Optional.of("/ws/f"));
        assertThat(AuditDiagnostics.of(access, CWD, new PrefixConfirmer())).singleElement().satisfies(d -> {
            assertThat(d.operation()).isEqualTo(Operation.WRITE);
            assertThat(d.code()).isEqualTo(Code.MGS2002);
            assertThat(d.message()).contains("/ws/f").contains("policy");
        });
    }

    @Test
    void records_without_a_path_or_without_a_filesystem_right_give_nothing() {
        assertThat(AuditDiagnostics.of(new AuditRecord.Access(1, "1a", List.of("fs.read_file"), Optional.empty()),
                CWD, new PrefixConfirmer())).isEmpty();
        assertThat(AuditDiagnostics.of(new AuditRecord.Access(1, "1a", List.of("scope.signal"), Optional.of("/x")),
                CWD, new PrefixConfirmer())).isEmpty();
    }

    private static AuditRecord.Access net(String text) {
        return (AuditRecord.Access) AuditRecordParser.parse(1423, text).orElseThrow();
    }

    @Test
    void a_refused_connect_is_an_mgs2013_naming_address_and_port() {
        var access = net("audit(1796215887.466:9297): domain=15380f19d blockers=net.connect_tcp daddr=127.0.0.1 dest=40837");
        assertThat(AuditDiagnostics.of(access, CWD, new PrefixConfirmer(Path.of("/h")))).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2013);
            assertThat(d.operation()).isEqualTo(Operation.CONNECT);
            assertThat(d.subject()).isEqualTo("127.0.0.1:40837");
            assertThat(d.layer()).isEqualTo(Layer.KERNEL);
            assertThat(d.source()).isEqualTo("audit");
            assertThat(d.details()).containsEntry("blockers", "net.connect_tcp").containsEntry("domain", "15380f19d")
                    .containsEntry("port", "40837");
        });
    }

    @Test
    void a_refused_bind_the_rules_would_allow_is_still_reported_from_the_record() {
        var access = net("audit(1796215887.586:9298): domain=15380f19d blockers=net.bind_tcp saddr=127.0.0.1 src=42643");
        assertThat(AuditDiagnostics.of(access, CWD, new PrefixConfirmer())).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2013);
            assertThat(d.operation()).isEqualTo(Operation.BIND);
            assertThat(d.subject()).isEqualTo("127.0.0.1:42643");
            assertThat(d.message()).contains("allow it");
        });
    }
}
