package dev.magus.landlock.supervise;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import dev.magus.landlock.seccomp.Arch;
import dev.magus.landlock.sys.Natives;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Reading a caller's strings and bytes, tried on this very process, and the calls by number. */
class ChildMemoryTest {
    private static final int PAGE = 4096;

    private static int self() {
        Assumptions.assumeTrue(Natives.syscalls().available() && Arch.host().isPresent(), "no natives here");
        return (int) ProcessHandle.current().pid();
    }

    private static long put(Memory m, long offset, String s) {
        byte[] b = (s + '\0').getBytes(StandardCharsets.UTF_8);
        m.write(offset, b, 0, b.length);
        return Pointer.nativeValue(m) + offset;
    }

    @Test
    void aStringIsReadUpToItsNulAcrossPagesAndPastTheFirstChunk() {
        int pid = self();
        try (Memory m = new Memory(4 * PAGE); ChildMemory memory = new ChildMemory()) {
            long page = (Pointer.nativeValue(m) + PAGE - 1) / PAGE * PAGE - Pointer.nativeValue(m);
            String shortOne = "/home/me/.ssh/id_rsa";
            assertThat(memory.string(pid, put(m, page, shortOne))).hasValue(shortOne);
            String across = "/tmp/" + "é".repeat(200) + "/x";
            assertThat(memory.string(pid, put(m, page + PAGE - 7, across))).hasValue(across);
            String longOne = "/a".repeat(1500);
            assertThat(memory.string(pid, put(m, page + 3, longOne))).hasValue(longOne);
            assertThat(memory.string(pid, 0)).isEmpty();
        }
    }

    @Test
    void aStringWithoutItsNulWithinPathMaxIsNothing() {
        int pid = self();
        try (Memory m = new Memory(ChildMemory.PATH_MAX + 16); ChildMemory memory = new ChildMemory()) {
            m.setMemory(0, ChildMemory.PATH_MAX + 16, (byte) 'a');
            assertThat(memory.string(pid, Pointer.nativeValue(m))).isEmpty();
        }
    }

    @Test
    void bytesAreReadWholeOrNotAtAll() {
        int pid = self();
        try (Memory m = new Memory(2 * PAGE); ChildMemory memory = new ChildMemory()) {
            for (int i = 0; i < 2 * PAGE; i++) {
                m.setByte(i, (byte) i);
            }
            long at = Pointer.nativeValue(m) + PAGE - 5;
            byte[] expected = m.getByteArray(PAGE - 5, 24);
            assertThat(memory.bytes(pid, at, 24)).hasValueSatisfying(b -> assertThat(b).isEqualTo(expected));
            assertThat(memory.bytes(pid, at, 0)).isEmpty();
            assertThat(memory.bytes(pid, at, ChildMemory.PATH_MAX + 1)).isEmpty();
            // Nothing is mapped at the first page: the read fails instead of returning part of it.
            assertThat(memory.bytes(pid, 16, 24)).isEmpty();
            assertThat(memory.string(pid, 16)).isEmpty();
        }
    }

    @Test
    void theWorkingDirectoryAndADescriptorAreWhereTheyLead() {
        int pid = self();
        try (ChildMemory memory = new ChildMemory()) {
            assertThat(memory.directory(pid, ChildMemory.AT_FDCWD)).hasValue(System.getProperty("user.dir"));
            assertThat(memory.directory(pid, 1 << 20)).isEmpty();
            assertThat(memory.directory(pid, -7)).isEmpty();
        }
    }

    @Test
    void theTableFindsEachCallAsTheSearchDoes() {
        for (Arch arch : Arch.values()) {
            Call.Table table = new Call.Table(arch);
            for (int nr = 0; nr < 600; nr++) {
                assertThat(table.of(nr)).as("%s %d", arch, nr).isEqualTo(Call.of(arch, nr));
            }
            // No call is numbered NONE, which the search takes for a call the architecture lacks.
            assertThat(table.of(Arch.NONE)).isEmpty();
        }
    }
}
