package dev.magus.policy.decl;

import dev.magus.env.Allowlist;
import java.util.List;
import java.util.Objects;

/** The {@code env} part of a declaration: variables added back to the children's environment. */
public record SandboxEnv(Allowlist passthrough) {
    public static final SandboxEnv EMPTY = new SandboxEnv(Allowlist.EMPTY);

    public SandboxEnv {
        Objects.requireNonNull(passthrough, "passthrough");
    }

    /**
     * Parses {@code passthrough} entries one by one so that a malformed pattern is MGS2004 naming
     * its own index ({@code spell:go sandbox.env.passthrough[3]}).
     *
     * @param site where the {@code env} key was declared; its key is the prefix of each entry's key
     */
    public static SandboxEnv parse(List<String> passthrough, Site site) {
        Allowlist all = Allowlist.EMPTY;
        for (int i = 0; i < passthrough.size(); i++) {
            String field = "passthrough[" + i + "]";
            all = all.union(Allowlist.parse(List.of(passthrough.get(i)), site.source(field)));
        }
        return new SandboxEnv(all);
    }
}
