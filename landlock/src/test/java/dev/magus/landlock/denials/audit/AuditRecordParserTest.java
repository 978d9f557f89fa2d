package dev.magus.landlock.denials.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Operation;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Records as this machine's kernel (6.18, ABI 7) sent them on the read-log group. */
class AuditRecordParserTest {

    @Test
    void access_record_with_a_quoted_path() {
        String text = "audit(1796154399.053:3): domain=165307ff4 blockers=fs.read_file "
                + "path=\"/tmp/dd/home/.aws/credentials\" dev=\"vda\" ino=2146546";
        assertThat(AuditRecordParser.parse(1423, text)).contains(new AuditRecord.Access(3, "165307ff4",
                List.of("fs.read_file"), Optional.of("/tmp/dd/home/.aws/credentials")));
    }

    @Test
    void access_record_with_a_hex_encoded_path() {
        String text = "audit(1796154399.065:5): domain=165307ff4 blockers=fs.read_file "
                + "path=2F746D702F64642F686F6D652F612062 dev=\"vda\" ino=2147649";
        assertThat(AuditRecordParser.parse(1423, text)).get()
                .isInstanceOfSatisfying(AuditRecord.Access.class,
                        a -> assertThat(a.path()).contains("/tmp/dd/home/a b"));
    }

    /** TCP records as this kernel logs them (LSM net audit data: the kernel leaves out zeros). */
    @Test
    void network_records_carry_the_address_and_port() {
        assertThat(AuditRecordParser.parse(1423, "audit(1796215887.466:9297): domain=15380f19d blockers=net.connect_tcp "
                + "daddr=127.0.0.1 dest=40837")).contains(new AuditRecord.Access(9297, "15380f19d",
                        List.of("net.connect_tcp"), Optional.empty(),
                        Optional.of(new AuditRecord.Socket("127.0.0.1", java.util.OptionalInt.of(40837)))));
        AuditRecord.Access bind = (AuditRecord.Access) AuditRecordParser.parse(1423,
                "audit(1796215478.030:9224): domain=15380e865 blockers=net.bind_tcp saddr=127.0.0.1 src=5558").orElseThrow();
        assertThat(bind.socket()).contains(new AuditRecord.Socket("127.0.0.1", java.util.OptionalInt.of(5558)));
        assertThat(Blockers.network(bind.blockers())).contains(Operation.BIND);
        // A bind to 0.0.0.0 names only the port.
        AuditRecord.Access any = (AuditRecord.Access) AuditRecordParser.parse(1423,
                "audit(1.2:3): domain=1a blockers=net.bind_tcp src=3000").orElseThrow();
        assertThat(any.socket()).contains(new AuditRecord.Socket("", java.util.OptionalInt.of(3000)));
        assertThat(Blockers.network(List.of("fs.read_file"))).isEmpty();
    }

    @Test
    void several_blockers_and_a_create_on_the_parent() {
        AuditRecord.Access a = (AuditRecord.Access) AuditRecordParser.parse(1423,
                "audit(1.2:9): domain=1a blockers=fs.write_file,fs.truncate path=\"/x/f\" dev=\"vda\" ino=1").get();
        assertThat(Blockers.operations(a.blockers())).containsExactly(Operation.WRITE);
        assertThat(Blockers.onParentDirectory(a.blockers())).isFalse();
        assertThat(Blockers.onParentDirectory(List.of("fs.make_reg"))).isTrue();
        assertThat(Blockers.operations(List.of("fs.read_file", "fs.write_file")))
                .containsExactly(Operation.READ, Operation.WRITE);
        assertThat(Blockers.operations(List.of("net.connect_tcp", "scope.signal"))).isEmpty();
        assertThat(Blockers.operation("fs.execute")).contains(Operation.EXEC);
    }

    /**
     * A refused rename (captured here: {@code mv ~/a ~/b} confined without write to the home)
     * lists every right the file would need at its destination, {@code fs.execute} among them:
     * it is a write on the directory, not an exec of it.
     */
    @Test
    void a_refused_rename_or_link_is_a_write_not_an_exec() {
        AuditRecord.Access rename = (AuditRecord.Access) AuditRecordParser.parse(1423,
                "audit(1796200021.113:2411): domain=11590a1d3 blockers=fs.execute,fs.write_file,fs.read_file,"
                        + "fs.read_dir,fs.remove_dir,fs.remove_file,fs.make_char,fs.make_dir,fs.make_reg,fs.make_sock,"
                        + "fs.make_fifo,fs.make_block,fs.make_sym,fs.refer,fs.truncate,fs.ioctl_dev "
                        + "path=\"/h\" dev=\"vda\" ino=5").get();
        assertThat(Blockers.primary(rename.blockers())).contains(Operation.WRITE);
        assertThat(Blockers.primary(List.of("fs.refer"))).contains(Operation.WRITE);
        assertThat(Blockers.primary(List.of("fs.make_reg", "fs.execute"))).contains(Operation.WRITE);
        assertThat(Blockers.primary(List.of("fs.execute", "fs.read_file"))).contains(Operation.EXEC);
        assertThat(Blockers.primary(List.of("fs.read_file", "fs.write_file"))).contains(Operation.WRITE);
        assertThat(Blockers.primary(List.of("fs.read_dir"))).contains(Operation.READ);
    }

    @Test
    void domain_records_allocated_and_deallocated() {
        String allocated = "audit(1796154399.053:3): domain=165307ff4 status=allocated mode=enforcing pid=14166 "
                + "uid=0 exe=\"/usr/bin/python3.11\" comm=\"python3\"";
        assertThat(AuditRecordParser.parse(1424, allocated))
                .contains(new AuditRecord.Domain(3, "165307ff4", "allocated", OptionalLong.of(14166), "python3"));
        AuditRecord.Domain gone = (AuditRecord.Domain) AuditRecordParser
                .parse(1424, "audit(1796154399.133:7): domain=165307ff4 status=deallocated denials=4").get();
        assertThat(gone.allocated()).isFalse();
        assertThat(gone.pid()).isEmpty();
    }

    @Test
    void syscall_record_gives_the_process() {
        String text = "audit(1796154399.053:3): arch=c000003e syscall=257 success=no exit=-13 a0=ffffff9c "
                + "a1=7ffff83f985a a2=0 a3=0 items=0 ppid=14166 pid=14167 auid=4294967295 uid=0 gid=0 "
                + "comm=\"cat\" exe=\"/usr/bin/cat\" key=(null)";
        assertThat(AuditRecordParser.parse(1300, text)).contains(new AuditRecord.Syscall(3, 14167, 14166));
    }

    @Test
    void other_types_and_malformed_text_are_ignored() {
        assertThat(AuditRecordParser.parse(1327, "audit(1.2:3): proctitle=636174")).isEmpty();
        assertThat(AuditRecordParser.parse(1423, "garbage")).isEmpty();
        assertThat(AuditRecordParser.parse(1423, "audit(1.2:3): blockers=fs.read_file")).isEmpty();
    }

    @Test
    void a_quoted_value_that_looks_like_hex_stays_as_is() {
        assertThat(AuditRecordParser.untrusted("\"ABCD\"")).isEqualTo("ABCD");
        assertThat(AuditRecordParser.untrusted("2F78")).isEqualTo("/x");
    }
}
