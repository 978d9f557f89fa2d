package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.abi.LandlockProbe;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The specification: a confined child can neither read the token file nor unlink the socket
 * and bind its own in its place, because the socket directory is granted to no run, not even
 * the sibling magus cache dir (which every sandboxed run may write).
 */
class ConfinedChildTest {
    @TempDir
    Path root;

    @Test
    void aConfinedChildCanNeitherReadTheTokenNorReplaceTheSocket() throws Exception {
        int abi = LandlockProbe.kernel().abi();
        String why = "server test skipped: needs Linux with Landlock ABI 3 or newer (ABI " + abi + ")";
        if (abi < 3) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(abi >= 3, why);
        try (Fixture f = new Fixture(root)) {
            f.yaml("sandbox:\n  mode: required\n");
            Path token = f.dir.tokenFile();
            Path socket = f.dir.socket();
            Path cacheDir = f.home.resolve(".cache/magus");
            String script = "cat '" + token + "' && echo READ-TOKEN; "
                    + "rm -f '" + socket + "' && echo UNLINKED; "
                    + "mv '" + socket + "' '" + socket + ".x' && echo MOVED; "
                    + "ls '" + f.dir.dir() + "' && echo LISTED; "
                    + "mkdir -p '" + cacheDir + "' && touch '" + cacheDir + "/reached' && echo CACHE-OK; exit 0";
            Fixture.Result r = f.forward(f.run(f.env, List.of(), "sh", "-c", script));
            assertThat(r.status()).isZero();
            assertThat(r.out()).doesNotContain("READ-TOKEN").doesNotContain(f.server.token()).doesNotContain("UNLINKED")
                    .doesNotContain("MOVED").doesNotContain("LISTED");
            // The cache dir is in the grant, and the socket dir beside it is not.
            assertThat(r.out()).contains("CACHE-OK");
            assertThat(Files.exists(socket, LinkOption.NOFOLLOW_LINKS)).isTrue();
            assertThat(MagusServer.running(socket)).isTrue();
            assertThat(Files.readString(token).trim()).isEqualTo(f.server.token());
        }
    }
}
