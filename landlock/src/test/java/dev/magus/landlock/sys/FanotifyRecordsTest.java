package dev.magus.landlock.sys;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** {@link FanotifyRecords} on byte arrays laid out as the kernel lays them out. */
class FanotifyRecordsTest {
    static final byte[] HANDLE = {1, 2, 3, 4, 5, 6, 7, 8};

    /** One event: metadata, then a DFID_NAME (or DFID when name is null) record, padded to 4 bytes. */
    static byte[] event(long mask, int infoType, long fsid, byte[] handle, String name) {
        byte[] n = name == null ? new byte[0] : (name + "\0").getBytes(StandardCharsets.UTF_8);
        int rec = 4 + 8 + 8 + handle.length + n.length;
        rec = (rec + 3) & ~3;
        ByteBuffer b = ByteBuffer.allocate(24 + rec).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(24 + rec).put((byte) 3).put((byte) 0).putShort((short) 24).putLong(mask).putInt(-1).putInt(1234);
        b.put((byte) infoType).put((byte) 0).putShort((short) rec).putLong(fsid).putInt(handle.length).putInt(1)
                .put(handle).put(n);
        return b.array();
    }

    static byte[] overflow() {
        ByteBuffer b = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(24).put((byte) 3).put((byte) 0).putShort((short) 24).putLong(FanotifyRecords.FAN_Q_OVERFLOW)
                .putInt(-1).putInt(0);
        return b.array();
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    @Test
    void aCreateInADirectoryGivesTheHandleAndTheName() {
        byte[] b = concat(event(0x100, 2, 0x1122334455667788L, HANDLE, ".envrc"),
                event(0x100 | FanotifyRecords.FAN_ONDIR, 2, 7, HANDLE, "sub"));
        FanotifyRecords.Batch batch = FanotifyRecords.parse(b, b.length);
        assertThat(batch.malformed()).isEmpty();
        assertThat(batch.events()).hasSize(2);
        FanotifyRecords.Event e = batch.events().get(0);
        assertThat(e.mask()).isEqualTo(0x100);
        assertThat(e.name()).isEqualTo(".envrc");
        assertThat(e.directory()).get().satisfies(h -> {
            assertThat(h.fsid()).isEqualTo(0x1122334455667788L);
            assertThat(h.type()).isEqualTo(1);
            assertThat(h.bytes()).isEqualTo(HANDLE);
        });
        assertThat(batch.events().get(1).name()).isEqualTo("sub");
        assertThat(batch.events().get(1).directory()).isEqualTo(e.directory().map(h -> new FanotifyRecords.Handle(7, 1, HANDLE)));
    }

    @Test
    void aDirectorysOwnEventIsDot() {
        byte[] b = concat(event(0x4 | FanotifyRecords.FAN_ONDIR, 2, 1, HANDLE, "."), event(0x4, 3, 1, HANDLE, null));
        FanotifyRecords.Batch batch = FanotifyRecords.parse(b, b.length);
        assertThat(batch.malformed()).isEmpty();
        assertThat(batch.events()).extracting(FanotifyRecords.Event::name).containsExactly(".", ".");
    }

    @Test
    void anOverflowIsAnEventWithoutRecords() {
        byte[] b = concat(event(0x100, 2, 1, HANDLE, "a"), overflow());
        FanotifyRecords.Batch batch = FanotifyRecords.parse(b, b.length);
        assertThat(batch.malformed()).isEmpty();
        assertThat(batch.events().get(1).overflow()).isTrue();
        assertThat(batch.events().get(0).overflow()).isFalse();
    }

    @Test
    void aNameThatIsNotUtf8IsEmptyNotDropped() {
        byte[] b = event(0x200, 2, 1, HANDLE, "x");
        int at = 24 + 20 + HANDLE.length;
        b[at] = (byte) 0xff;
        FanotifyRecords.Batch batch = FanotifyRecords.parse(b, b.length);
        assertThat(batch.malformed()).isEmpty();
        assertThat(batch.events()).hasSize(1);
        assertThat(batch.events().get(0).name()).isIn("", "\ufffd");
    }

    @Test
    void everyTruncationOrCorruptionIsMalformedNeverSilentlySkipped() {
        byte[] first = event(0x100, 2, 1, HANDLE, "magus.yaml");
        byte[] whole = concat(first, event(0x80, 2, 1, HANDLE, "hooks"));
        for (int n = 1; n < whole.length; n++) {
            if (n == first.length) {
                continue; // the first event whole: a valid batch
            }
            FanotifyRecords.Batch batch = FanotifyRecords.parse(whole, n);
            assertThat(batch.malformed()).as("cut at %d", n).isPresent();
        }
        byte[] version = whole.clone();
        version[4] = 2;
        assertThat(FanotifyRecords.parse(version, version.length).malformed()).get().asString().contains("version");
        byte[] noDir = event(0x100, 2, 1, HANDLE, "a");
        noDir[24] = 9; // another record type: no directory left
        assertThat(FanotifyRecords.parse(noDir, noDir.length).malformed()).get().asString().contains("without a directory");
        byte[] bigHandle = event(0x100, 2, 1, HANDLE, "a");
        ByteBuffer.wrap(bigHandle).order(ByteOrder.LITTLE_ENDIAN).putInt(24 + 12, 4096);
        assertThat(FanotifyRecords.parse(bigHandle, bigHandle.length).malformed()).isPresent();
        byte[] noNul = event(0x100, 2, 1, HANDLE, "abc");
        Arrays.fill(noNul, 24 + 20 + HANDLE.length, noNul.length, (byte) 'z');
        assertThat(FanotifyRecords.parse(noNul, noNul.length).malformed()).get().asString().contains("NUL");
        byte[] zeroLen = event(0x100, 2, 1, HANDLE, "a");
        ByteBuffer.wrap(zeroLen).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 0);
        assertThat(FanotifyRecords.parse(zeroLen, zeroLen.length).malformed()).isPresent();
    }
}
