package dev.magus.workspace.trust;

import dev.magus.workspace.StateDir;
import dev.magus.workspace.spell.SpellCatalog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The workspace files this user trusts, pinned by content as {@code direnv allow} pins an
 * {@code .envrc}: {@code <state dir>/trust/<pin>}, where the pin is a SHA-256 of the file's
 * real path, its bytes and the bytes of the workspace's YAML spells
 * ({@code .magus/spells/*.yaml}, which a repository ships beside it and which grant as it
 * does). A changed file, or a changed spell, has another pin and needs trust again; a file
 * moved elsewhere too. The state dir is never in a run's grant, so a confined run can neither
 * read nor add a pin. A pin that cannot be computed (an unreadable file) is never trusted.
 */
public final class TrustStore {
    private final Path dir;

    /** The trust store of the user whose environment and home these are (their state dir). */
    public static TrustStore of(java.util.Map<String, String> env, Path home) {
        return new TrustStore(StateDir.of(env, home));
    }

    public TrustStore(StateDir state) {
        this.dir = Objects.requireNonNull(state, "state").dir().resolve("trust");
    }

    public Path dir() {
        return dir;
    }

    /** The pin of {@code workspaceFile} as it is now; empty when it cannot be read whole. */
    public static Optional<String> pin(Path workspaceFile) {
        try {
            Path real = workspaceFile.toRealPath();
            MessageDigest all = sha256();
            all.update(real.toString().getBytes(StandardCharsets.UTF_8));
            all.update((byte) 0);
            all.update(digest(Files.readAllBytes(real)));
            for (Path spell : spellFiles(real.getParent())) {
                all.update((byte) 0);
                all.update(spell.getFileName().toString().getBytes(StandardCharsets.UTF_8));
                all.update((byte) 0);
                all.update(digest(Files.readAllBytes(spell)));
            }
            return Optional.of(HexFormat.of().formatHex(all.digest()));
        } catch (IOException | RuntimeException unreadable) {
            return Optional.empty();
        }
    }

    /** Whether this user trusts {@code workspaceFile} as it is now. */
    public boolean trusts(Path workspaceFile) {
        return pin(workspaceFile).map(p -> Files.isRegularFile(dir.resolve(p), LinkOption.NOFOLLOW_LINKS)).orElse(false);
    }

    /**
     * Trusts {@code workspaceFile} as it is now: writes its pin (holding the file's path, for a
     * person who looks). Returns the pin.
     *
     * @throws IOException when the file cannot be read or the pin written
     */
    public String trust(Path workspaceFile) throws IOException {
        String pin = pin(workspaceFile).orElseThrow(() -> new IOException("cannot read " + workspaceFile + " whole"));
        Files.createDirectories(dir.getParent());
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        Path tmp = Files.createTempFile(dir, ".pin", ".tmp");
        Files.writeString(tmp, workspaceFile.toRealPath() + "\n");
        Files.move(tmp, dir.resolve(pin), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return pin;
    }

    /** The workspace's YAML spells, by name. */
    private static List<Path> spellFiles(Path root) throws IOException {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(root.resolve(SpellCatalog.DIR), "*.yaml")) {
            s.forEach(out::add);
        } catch (NoSuchFileException | NotDirectoryException none) {
            return List.of();
        }
        out.sort(null);
        return out;
    }

    private static byte[] digest(byte[] bytes) {
        return sha256().digest(bytes);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is in every JDK", e);
        }
    }
}
